"""A checkout of a repository at a commit, as both languages' builds read it: the pristine source tree of a SPEC.

SPEC is ``pypi:NAME==VERSION`` (the sdist, which carries the tests), a git URL or local git repository (with a
commit), or a local directory. The pristine tree is cached per SPEC and commit; every run works on copies of it.

Whatever holds a task's ground truth (the pristine trees, the downloaded sdists and clones, the analyses and the
build's runs) lives in cache folders private to root (0700): where no mount namespace hides them, a sandbox uid must
not read them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import tarfile
import urllib.request
import zipfile
from datetime import datetime, timezone
from pathlib import Path

from packaging.utils import canonicalize_name

from benchsmith.core.atomic import atomic_path, exclusive, write_text_atomic
from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.sources.scm_version import write_version_files

log = logging.getLogger(__name__)

SCM_VERSION = ".benchsmith-scm-version"  # in a tree exported from git: the version its nearest tag names
# Cache folders under classbench/ that hold the ground truth: root's alone.
PRIVATE_FOLDERS = ("sources", "sdists", "clones", "analysis", "runs", "paraphrased", "reconstructed")


def private_cache_dir(*parts: str) -> Path:
    """``cache_dir("classbench", *parts)``, its top folder (one of ``PRIVATE_FOLDERS``) readable by root alone."""
    if parts[0] not in PRIVATE_FOLDERS:
        raise ValueError(f"{parts[0]}: not one of the private classbench cache folders {PRIVATE_FOLDERS}")
    cache_dir("classbench", parts[0]).chmod(0o700)
    return cache_dir("classbench", *parts)


def protect_private_caches() -> None:
    """Close the private folders a cache made by an older version left readable."""
    for name in PRIVATE_FOLDERS:
        folder = cache_dir("classbench") / name
        if folder.is_dir() and not folder.is_symlink() and folder.stat().st_mode & 0o077:
            folder.chmod(0o700)


def as_utc(moment: datetime) -> str:
    moment = moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def source_tree(spec: str, commit: str | None) -> tuple[str, Path, str]:
    """The cache key, the pristine tree and the source's own date (UTC, RFC 3339) of a pypi:, git or folder spec."""
    sources = private_cache_dir("sources")
    if spec.startswith("pypi:"):
        match = re.fullmatch(r"pypi:([A-Za-z0-9_.\-]+)==([A-Za-z0-9_.+\-!]+)", spec)
        if not match:
            raise BenchsmithError(f"{spec}: expected pypi:NAME==VERSION")
        name, version = match.groups()
        key = f"pypi-{name.lower()}-{version}"
        tree = sources / key
        with exclusive(tree):  # workers of one run open the same source at once
            archive, uploaded = _download_sdist(name, version)
            if not (tree / ".benchsmith-complete").exists():
                _unpack(archive, tree)
        return key, tree, uploaded
    path = Path(spec)
    if commit or spec.endswith(".git") or "://" in spec:
        if not commit:
            raise BenchsmithError(f"{spec}: a git repository needs --commit")
        # A mirror's bare repository is often just "repo" or ".git": its folder's name says which project it is.
        name = path.parent.name if path.name in ("repo", ".git") else path.name.removesuffix(".git")
        at = commit[:12] if re.fullmatch(r"[0-9a-f]{7,40}", commit) else re.sub(r"[^A-Za-z0-9.]+", "-", commit)
        key = f"git-{re.sub(r'[^A-Za-z0-9]+', '-', name)}-{at}"
        tree = sources / key
        with exclusive(tree):
            git_dir = _git_dir(spec)
            if not (tree / ".benchsmith-complete").exists():
                export_commit(spec, git_dir, commit, tree)
            if not (tree / SCM_VERSION).exists():
                _record_scm_version(git_dir, commit, tree)
            write_version_files(tree, (tree / SCM_VERSION).read_text().strip())
        # ^{commit}: an annotated tag names its commit (plain `show` would print the tag's own message)
        shown = subprocess.run(
            ["git", "-C", str(git_dir), "show", "-s", "--format=%cI", f"{commit}^{{commit}}"],
            capture_output=True,
            text=True,
        )
        if shown.returncode != 0:
            raise BenchsmithError(f"{spec}: cannot read the date of commit {commit}: {shown.stderr.strip()[:200]}")
        return key, tree, as_utc(datetime.fromisoformat(shown.stdout.strip()))
    if not path.is_dir():
        raise BenchsmithError(f"{spec}: not a directory, a git repository or pypi:NAME==VERSION")
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:10]
    key = f"dir-{path.resolve().name}-{digest}"
    tree = sources / key
    with exclusive(tree):
        shutil.rmtree(tree, ignore_errors=True)  # a local folder may have changed: always a fresh copy
        shutil.copytree(path, tree, ignore=shutil.ignore_patterns(".git", "__pycache__", ".tox", ".venv", "*.egg-info"))
        newest = max((p.stat().st_mtime for p in tree.rglob("*") if p.is_file()), default=0.0)
        (tree / ".benchsmith-complete").touch()
    return key, tree, as_utc(datetime.fromtimestamp(newest, timezone.utc))


def _download_sdist(name: str, version: str) -> tuple[Path, str]:
    """The release's sdist (digest checked) and its upload time, from the JSON API (:func:`pypi_json_url`)."""
    folder = private_cache_dir("sdists", f"{name.lower()}-{version}")
    release = folder / "release.json"
    url = f"{pypi_json_url()}/{name}/{version}/json"
    if not release.exists():
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                data = json.loads(response.read())
        except (OSError, ValueError) as exc:  # where only the simple index is reachable, its PEP 691 JSON says the same
            data = _release_from_index(name, version, f"cannot read {url}: {exc}")
        write_text_atomic(release, json.dumps(data))
    sdists = [u for u in json.loads(release.read_text()).get("urls", []) if u.get("packagetype") == "sdist"]
    if not sdists:
        raise BenchsmithError(f"pypi:{name}=={version}: {url} lists no sdist")
    sdist = sdists[0]
    archive = folder / Path(sdist["filename"]).name
    if not archive.exists():
        try:
            with urllib.request.urlopen(sdist["url"], timeout=300) as response:
                data = response.read()
        except OSError as exc:
            raise BenchsmithError(f"pypi:{name}=={version}: cannot download {sdist['url']}: {exc}") from None
        expected = sdist.get("digests", {}).get("sha256")
        if expected and hashlib.sha256(data).hexdigest() != expected:
            raise BenchsmithError(f"pypi:{name}=={version}: {sdist['url']} does not match its sha256 {expected}")
        with atomic_path(archive) as staging:
            staging.write_bytes(data)
    return archive, as_utc(datetime.fromisoformat(sdist["upload_time_iso_8601"].replace("Z", "+00:00")))


def nearest_tag(git_dir: Path, commit: str) -> str:
    """The name of the tag nearest before *commit* (``git describe --tags --abbrev=0``); "" when there is none."""
    described = subprocess.run(
        ["git", "-C", str(git_dir), "describe", "--tags", "--abbrev=0", f"{commit}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    return described.stdout.strip() if described.returncode == 0 else ""


def _record_scm_version(git_dir: Path, commit: str, tree: Path) -> None:
    """The nearest tag's version, for builds that read theirs from git (setuptools-scm, hatch-vcs), which an exported
    tree no longer has: pytest's and pvlib's requirements are known only once they are built."""
    version = nearest_tag(git_dir, commit).removeprefix("v")
    write_text_atomic(tree / SCM_VERSION, version if re.fullmatch(r"\d[\w.+!-]*", version) else "")


def _release_from_index(name: str, version: str, why: str) -> dict:
    """The release's sdist as the JSON API would list it, from the simple index's PEP 691 JSON (PEP 700 times)."""
    url = f"{index_url().rstrip('/')}/{canonicalize_name(name)}/"
    request = urllib.request.Request(url, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            files = json.loads(response.read()).get("files", [])
    except (OSError, ValueError) as exc:
        raise BenchsmithError(f"pypi:{name}=={version}: {why}; nor {url}: {exc}") from None

    def release_of(filename: str) -> tuple[str, str]:
        base, _, found = re.sub(r"\.(tar\.gz|zip)$", "", filename).rpartition("-")
        return canonicalize_name(base), found

    wanted = (canonicalize_name(name), version)
    urls = [
        {
            "packagetype": "sdist",
            "filename": f["filename"],
            "url": f["url"],
            "digests": f.get("hashes", {}),
            "upload_time_iso_8601": f.get("upload-time", ""),
        }
        for f in files
        if f["filename"].endswith((".tar.gz", ".zip")) and release_of(f["filename"]) == wanted
    ]
    if not urls or not urls[0]["upload_time_iso_8601"]:
        raise BenchsmithError(f"pypi:{name}=={version}: {why}; {url} lists no sdist of it with an upload time")
    return {"urls": urls}


def _unpack(archive: Path, tree: Path) -> None:
    staging = tree.with_name(tree.name + ".unpacking")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as handle:
            handle.extractall(staging)
    else:
        with tarfile.open(archive) as handle:
            handle.extractall(staging, filter="data")
    (top,) = [p for p in staging.iterdir()] or [staging]
    shutil.rmtree(tree, ignore_errors=True)
    top.rename(tree)
    shutil.rmtree(staging, ignore_errors=True)
    (tree / ".benchsmith-complete").touch()


def _git_dir(spec: str) -> Path:
    """A local repository as it is; a remote one cloned (bare) once into the private cache."""
    if Path(spec).exists():
        return Path(spec)
    git_dir = private_cache_dir("clones") / Path(spec).name
    with exclusive(git_dir):
        if not git_dir.exists():
            completed = subprocess.run(
                ["git", "clone", "--bare", "--quiet", spec, str(git_dir)], capture_output=True, text=True
            )
            if completed.returncode != 0:
                raise BenchsmithError(
                    f"{spec}: cannot clone: {(completed.stderr.strip().splitlines() or ['failed'])[-1]}"
                )
    return git_dir


def export_commit(spec: str, git_dir: Path, commit: str, tree: Path) -> None:
    """*commit*'s files into *tree* (emptied first); from a partial mirror, every blob it has, the rest named."""
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    archive = subprocess.Popen(
        ["git", "-C", str(git_dir), "archive", commit], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    untar = subprocess.run(["tar", "-x", "-C", str(tree)], stdin=archive.stdout, capture_output=True)
    archive.stdout.close()
    if archive.wait() != 0 or untar.returncode != 0:
        error = archive.stderr.read().decode().strip()
        if "cannot read" not in error:
            raise BenchsmithError(f"{spec}: cannot export commit {commit}: {error[:200]}")
        missing = _export_blobs(git_dir, commit, tree)  # a partial mirror: every blob it has
        log.warning(
            "%s: %d file(s) of %s are missing from %s, left out: %s",
            spec,
            len(missing),
            commit,
            git_dir,
            ", ".join(missing[:3]),
        )
    (tree / ".benchsmith-complete").touch()


def _export_blobs(git_dir: Path, commit: str, tree: Path) -> list[str]:
    """Write *commit*'s files under *tree* blob by blob; the paths whose blobs the repository lacks."""
    listing = subprocess.run(
        ["git", "-C", str(git_dir), "ls-tree", "-r", "-z", commit], capture_output=True, check=True
    ).stdout
    missing = []
    for record in filter(None, listing.split(b"\0")):
        meta, path = record.split(b"\t", 1)
        mode, kind, sha = meta.decode().split()
        if kind != "blob":
            continue
        shown = subprocess.run(["git", "-C", str(git_dir), "cat-file", "blob", sha], capture_output=True)
        if shown.returncode != 0:
            missing.append(os.fsdecode(path))
            continue
        target = tree / os.fsdecode(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            target.symlink_to(os.fsdecode(shown.stdout))
        else:
            target.write_bytes(shown.stdout)
    return missing


def index_url() -> str:
    """The package index uv resolves from (PEP 503/691; ``BENCHSMITH_INDEX_URL``, PyPI by default). An as-of
    resolution needs one that reports upload times (PEP 700's ``upload-time``, in its JSON form)."""
    return os.environ.get("BENCHSMITH_INDEX_URL", "https://pypi.org/simple")


def pypi_json_url() -> str:
    """PyPI's JSON API (``BENCHSMITH_PYPI_JSON_URL``): an sdist's download URL, digest and upload time."""
    return os.environ.get("BENCHSMITH_PYPI_JSON_URL", "https://pypi.org/pypi").rstrip("/")
