"""A repository to build tasks from: its pristine source tree and its Python environment.

SPEC is ``pypi:NAME==VERSION`` (the sdist, which carries the tests), a git URL
or local git repository (with a commit), or a local directory. The pristine
tree and the environment are cached per SPEC and commit; every run works on
copies of the tree.

The environment holds the package's dependencies and its test requirements,
not the package itself: tests import the package from the copy they run in
(``PYTHONPATH``), so removing a class from that copy really removes it.

Whatever holds a task's ground truth (the pristine trees, the downloaded
sdists and clones, the analyses and the build's runs) lives in cache folders
private to root (0700): where no mount namespace hides them, a sandbox uid
must not read them. The environment stays readable: candidates run in it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

from benchsmith.atomic import write_text_atomic
from benchsmith.config import cache_dir
from benchsmith.errors import BenchsmithError

log = logging.getLogger(__name__)

_TEST_EXTRAS = ("test", "tests", "testing")
_TEST_REQUIREMENT_FILES = (
    "requirements/tests.txt", "requirements/test.txt", "requirements/tests.in", "requirements-test.txt",
    "requirements-tests.txt", "test-requirements.txt", "tests/requirements.txt", "requirements-dev.txt",
)  # fmt: skip
ENV_FORMAT = 4  # 4: the package is uninstalled after every requirement (one of them may pull it back in)
# Cache folders under classbench/ that hold the ground truth: root's alone.
PRIVATE_FOLDERS = ("sources", "sdists", "clones", "analysis", "runs", "paraphrased")


@dataclass(frozen=True)
class Repository:
    spec: str
    commit: str
    key: str  # names the cache entries: "pypi-requests-2.31.0"
    tree: Path  # pristine source tree
    import_root: str  # relative folder that goes on PYTHONPATH ("src" or "")
    python: Path  # the environment's interpreter
    installed: dict  # name -> version, as pip reports them
    package: str  # the distribution's import name(s) guess, for the card


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


def resolve(spec: str, commit: str | None = None) -> Repository:
    """Fetch and prepare *spec*; cached, so a second call does no work."""
    protect_private_caches()
    key, tree = _source_tree(spec, commit)
    import_root = "src" if (tree / "src").is_dir() and any((tree / "src").glob("*/__init__.py")) else ""
    python, installed = _environment(key, tree)
    package = next((p.parent.name for p in sorted((tree / import_root).glob("*/__init__.py")) if p.parent.name != "tests"), "")
    return Repository(spec, commit or "", key, tree, import_root, python, installed, package)


def _source_tree(spec: str, commit: str | None) -> tuple[str, Path]:
    sources = private_cache_dir("sources")
    if spec.startswith("pypi:"):
        match = re.fullmatch(r"pypi:([A-Za-z0-9_.\-]+)==([A-Za-z0-9_.+\-!]+)", spec)
        if not match:
            raise BenchsmithError(f"{spec}: expected pypi:NAME==VERSION")
        name, version = match.groups()
        key = f"pypi-{name.lower()}-{version}"
        tree = sources / key
        if not (tree / ".benchsmith-complete").exists():
            _unpack(_download_sdist(name, version), tree)
        return key, tree
    path = Path(spec)
    if commit or spec.endswith(".git") or "://" in spec:
        if not commit:
            raise BenchsmithError(f"{spec}: a git repository needs --commit")
        key = f"git-{re.sub(r'[^A-Za-z0-9]+', '-', path.name.removesuffix('.git'))}-{commit[:12]}"
        tree = sources / key
        if not (tree / ".benchsmith-complete").exists():
            _export_git(spec, commit, tree)
        return key, tree
    if not path.is_dir():
        raise BenchsmithError(f"{spec}: not a directory, a git repository or pypi:NAME==VERSION")
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:10]
    key = f"dir-{path.resolve().name}-{digest}"
    tree = sources / key
    shutil.rmtree(tree, ignore_errors=True)  # a local folder may have changed: always a fresh copy
    shutil.copytree(path, tree, ignore=shutil.ignore_patterns(".git", "__pycache__", ".tox", ".venv", "*.egg-info"))
    (tree / ".benchsmith-complete").touch()
    return key, tree


def _download_sdist(name: str, version: str) -> Path:
    folder = private_cache_dir("sdists", f"{name.lower()}-{version}")
    found = [p for p in folder.iterdir() if p.suffix in (".gz", ".zip")] if folder.exists() else []
    if found:
        return found[0]
    completed = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:", "--dest", str(folder),
         f"{name}=={version}"],
        capture_output=True, text=True,
    )  # fmt: skip
    found = [p for p in folder.iterdir() if p.suffix in (".gz", ".zip")]
    if completed.returncode != 0 or not found:
        last = (completed.stderr.strip().splitlines() or ["failed"])[-1]
        raise BenchsmithError(f"pypi:{name}=={version}: cannot download its sdist: {last}")
    return found[0]


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


def _export_git(spec: str, commit: str, tree: Path) -> None:
    git_dir = Path(spec) if Path(spec).exists() else private_cache_dir("clones") / Path(spec).name
    if not Path(spec).exists() and not git_dir.exists():
        completed = subprocess.run(["git", "clone", "--bare", "--quiet", spec, str(git_dir)], capture_output=True, text=True)
        if completed.returncode != 0:
            raise BenchsmithError(f"{spec}: cannot clone: {(completed.stderr.strip().splitlines() or ['failed'])[-1]}")
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    archive = subprocess.Popen(["git", "-C", str(git_dir), "archive", commit], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    untar = subprocess.run(["tar", "-x", "-C", str(tree)], stdin=archive.stdout, capture_output=True)
    archive.stdout.close()
    if archive.wait() != 0 or untar.returncode != 0:
        raise BenchsmithError(f"{spec}: cannot export commit {commit}: {archive.stderr.read().decode().strip()[:200]}")
    (tree / ".benchsmith-complete").touch()


def _environment(key: str, tree: Path) -> tuple[Path, dict]:
    env = cache_dir("classbench", "envs") / key
    manifest = env / "benchsmith-env.json"
    if manifest.exists():
        record = json.loads(manifest.read_text())
        if record.get("format") == ENV_FORMAT:
            return env / "bin" / "python", record["installed"]
    log.info("creating the environment of %s (dependencies and test requirements from PyPI)", key)
    shutil.rmtree(env, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True, capture_output=True)
    python = env / "bin" / "python"

    def pip(*args: str, required: bool = True) -> bool:
        completed = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *args],
                                   capture_output=True, text=True)  # fmt: skip
        if completed.returncode != 0 and required:
            raise BenchsmithError(f"{key}: pip install {' '.join(args)[:120]} failed: {completed.stderr.strip()[-400:]}")
        if completed.returncode != 0:
            log.warning("%s: optional pip install %s failed", key, " ".join(args)[:120])
        return completed.returncode == 0

    pip("pytest")
    with tempfile.TemporaryDirectory() as scratch:  # pip builds in place: keep the pristine tree clean
        copy = Path(scratch) / tree.name
        shutil.copytree(tree, copy)
        pip(f"{copy}[{','.join(_TEST_EXTRAS)}]")
    for requirement_file in _TEST_REQUIREMENT_FILES:
        if (tree / requirement_file).is_file():
            pip("-r", str(tree / requirement_file), required=False)
    for group in _dependency_groups(tree):
        pip(*group, required=False)
    # pytest-timeout last, held to the pytest the repository's requirements chose (requests pins pytest 6).
    pytest_version = _installed(python).get("pytest", "")
    constraints = env / "benchsmith-constraints.txt"
    constraints.write_text(f"pytest=={pytest_version}\n")
    pip("-c", str(constraints), "pytest-timeout", required=False)
    name = _distribution_name(tree)
    if name:  # keep its dependencies, drop the package: tests import it from their copy of the tree
        subprocess.run([str(python), "-m", "pip", "uninstall", "--quiet", "--yes", name], capture_output=True)
    _check_package_absent(env, tree, key)
    installed = _installed(python)
    write_text_atomic(manifest, json.dumps({"format": ENV_FORMAT, "installed": installed}, indent=2))
    return python, installed


def _check_package_absent(env: Path, tree: Path, key: str) -> None:
    """The environment must not import the package from anywhere but the tree: a copy of it there would hold the
    ground truth, readable by every candidate, and would answer imports of the class the task removed."""
    roots = [tree / "src", tree] if (tree / "src").is_dir() else [tree]
    names = {p.parent.name for root in roots for p in root.glob("*/__init__.py")} - {"tests", "test", "testing", "docs"}
    for site_packages in env.glob("lib/python*/site-packages"):
        left = sorted(n for n in names if (site_packages / n).exists() or (site_packages / f"{n}.py").exists())
        if left:
            raise BenchsmithError(f"{key}: its environment still holds the package {', '.join(left)} in {site_packages} "
                                  "after uninstalling it; delete the environment and rebuild")  # fmt: skip


@dataclass(frozen=True)
class Runtime:
    """What a jailed test run needs of an environment: the venv and the installation of its base interpreter."""

    env: Path
    prefixes: tuple[Path, ...]  # the base interpreter's installation, where not already part of every jail (/usr)
    hidden: tuple[Path, ...]  # site-packages of the base and system interpreters: never on the env's path, and they
    #                           may hold another copy of the package under test (pyenv's 3.11 ships a click)


@functools.cache
def runtime(python: Path) -> Runtime:
    """The folders that *python* (``<env>/bin/python``, a link to an interpreter elsewhere, e.g. under
    ``/root/.pyenv``) needs to start, found by asking it; never a whole home folder."""
    probe = "import json, site, sys; print(json.dumps([sys.base_prefix, sys.base_exec_prefix, site.getsitepackages([sys.base_prefix, sys.base_exec_prefix])]))"
    completed = subprocess.run([str(python), "-I", "-c", probe], capture_output=True, text=True)
    if completed.returncode != 0:
        raise BenchsmithError(f"{python}: the environment's interpreter does not start: {completed.stderr.strip()[-300:]}")
    base, exec_base, base_site = json.loads(completed.stdout)
    real = Path(os.path.realpath(python))
    candidates = [Path(base), Path(exec_base), real.parent.parent]
    prefixes: list[Path] = []
    for prefix in candidates:
        if prefix == Path("/") or prefix.is_relative_to("/usr") or any(prefix.is_relative_to(p) for p in prefixes):
            continue
        prefixes = [p for p in prefixes if not p.is_relative_to(prefix)] + [prefix]
    system = [*Path("/usr/lib").glob("python3*/*-packages"), *Path("/usr/local/lib").glob("python3*/*-packages")]
    hidden = sorted({Path(p) for p in [*base_site, *system] if Path(p).is_dir() and not Path(p).is_symlink()
                     and any(Path(p).is_relative_to(r) for r in [Path("/usr"), *prefixes])})  # fmt: skip
    return Runtime(python.parent.parent, tuple(prefixes), tuple(hidden))


def _installed(python: Path) -> dict:
    listing = subprocess.run([str(python), "-m", "pip", "list", "--format", "json"], capture_output=True, text=True, check=True)
    return {p["name"]: p["version"] for p in json.loads(listing.stdout)}


def _distribution_name(tree: Path) -> str:
    pyproject = tree / "pyproject.toml"
    if pyproject.is_file():
        name = tomllib.loads(pyproject.read_text()).get("project", {}).get("name")
        if name:
            return name
    for info in (tree / "PKG-INFO", *tree.glob("*.egg-info/PKG-INFO"), *tree.glob("src/*.egg-info/PKG-INFO")):
        if info.is_file():
            match = re.search(r"^Name: (.+)$", info.read_text(errors="replace"), re.M)
            if match:
                return match[1].strip()
    return ""


def _dependency_groups(tree: Path) -> list[list[str]]:
    """PEP 735 dependency groups meant for tests, as requirement lists."""
    pyproject = tree / "pyproject.toml"
    if not pyproject.is_file():
        return []
    groups = tomllib.loads(pyproject.read_text()).get("dependency-groups", {})
    return [[r for r in groups[g] if isinstance(r, str)] for g in ("test", "tests", "testing") if g in groups]
