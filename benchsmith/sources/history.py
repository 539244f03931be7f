"""Where a bug's fixed and buggy source files come from.

Two providers behind one interface. With the ``defects4j`` command on PATH,
its own checkouts. Without it, the project's upstream git history: the fixed
revision, and the buggy files made by applying the Defects4J patch to it. A
project whose Defects4J revisions are Subversion numbers (Chart) is read from a
git conversion of its history, each revision found by content
(benchsmith/sources/svn_history.py).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Protocol

from benchsmith.core.config import cache_dir
from benchsmith.core.errors import SourceUnavailable
from benchsmith.sources.defects4j import Bug
from benchsmith.sources.patches import apply_patch
from benchsmith.sources.revision_map import MatcherConfig, RevisionMap, RewrittenHistory
from benchsmith.sources.svn_history import SvnImport

log = logging.getLogger(__name__)

# The upstream repository of each Defects4J project; None where the history is not git.
UPSTREAM_URLS: dict[str, str | None] = {
    "Chart": "https://github.com/jfree/jfreechart.git",  # a conversion of its Subversion history: REVISION_MAPS
    "Cli": "https://github.com/apache/commons-cli.git",
    "Closure": "https://github.com/google/closure-compiler.git",
    "Codec": "https://github.com/apache/commons-codec.git",
    "Collections": "https://github.com/apache/commons-collections.git",
    "Compress": "https://github.com/apache/commons-compress.git",
    "Csv": "https://github.com/apache/commons-csv.git",
    "Gson": "https://github.com/google/gson.git",
    "JacksonCore": "https://github.com/FasterXML/jackson-core.git",
    "JacksonDatabind": "https://github.com/FasterXML/jackson-databind.git",
    "JacksonXml": "https://github.com/FasterXML/jackson-dataformat-xml.git",
    "Jsoup": "https://github.com/jhy/jsoup.git",
    "JxPath": "https://github.com/apache/commons-jxpath.git",
    "Lang": "https://github.com/apache/commons-lang.git",
    "Math": "https://github.com/apache/commons-math.git",
    "Mockito": "https://github.com/mockito/mockito.git",
    "Time": "https://github.com/JodaOrg/joda-time.git",
}

# Projects whose Defects4J revisions are not in today's history, and how they are found in it by content.
REVISION_MAPS: dict[str, MatcherConfig] = {
    # jfree/jfreechart keeps the raw conversion of the SourceForge repository under refs/import/raw: one commit
    # per revision from r1, only the 1.0.x branch's files. Defects4J checked out trunk, which the conversion
    # left out, so a revision's own commit is empty and its fix is found on the branch
    # (benchsmith/sources/svn_history.py).
    "Chart": SvnImport(ref="refs/import/raw", folder="branches/jfreechart-1.0.x-branch", first_revision=1),
    # Defects4J took Math's hashes from the git-svn mirror of its day; apache/commons-math's history was
    # rewritten since, so none of them is in it, but the blobs are.
    "Math": RewrittenHistory(),
}

# Folders that hold the whole project in some revisions, which Defects4J's checkout moves to the root
# (``framework/core/Project/Time.pm``'s ``_post_checkout``): Joda-Time's early history kept it in ``JodaTime/``, beside
# ``JodaTimeContrib/``; Defects4J's patches and layouts name its paths from inside that folder.
PROJECT_FOLDERS: dict[str, str] = {"Time": "JodaTime"}

CLONE_TIMEOUT_SECONDS = 1800
_FULL_HASH = re.compile(r"[0-9a-f]{40}")


class SourceProvider(Protocol):
    description: str

    def files(
        self, bug: Bug, paths: list[str], patch_text: str, patch_name: str
    ) -> tuple[dict[str, str | None], dict[str, str | None]]:
        """The fixed and the buggy text of each path (None where the file does not exist)."""
        ...


def decode(data: bytes) -> str:
    # Round-trips any byte: some Defects4J sources are Latin-1.
    return data.decode("utf-8", errors="surrogateescape")


class GitHistory:
    """Reads files at revisions of one git repository, bare or not."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = Path(git_dir)

    def _git(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "--git-dir", str(self.git_dir), *args], capture_output=True)

    def has_revision(self, revision: str) -> bool:
        return self._git("cat-file", "-e", f"{revision}^{{commit}}").returncode == 0

    def read(self, revision: str, path: str) -> str | None:
        completed = self._git("show", f"{revision}:{path}")
        return decode(completed.stdout) if completed.returncode == 0 else None

    def head(self) -> str:
        return self._git("rev-parse", "HEAD").stdout.decode().strip()

    def commit_date(self, revision: str) -> str:
        """The committer date of *revision* (ISO 8601), or "" when the repository lacks it."""
        completed = self._git("log", "-1", "--format=%cI", f"{revision}^{{commit}}", "--")
        return completed.stdout.decode().strip() if completed.returncode == 0 else ""


def project_folder(project: str, git_dir: Path, revision: str) -> str:
    """The folder of *revision* that Defects4J takes as the project's root (``"JodaTime/"``), or "" for the root."""
    folder = PROJECT_FOLDERS.get(project)
    if folder is None:
        return ""
    completed = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "-t", f"{revision}:{folder}"], capture_output=True, text=True
    )
    return f"{folder}/" if completed.stdout.strip() == "tree" else ""


def git_dir_of(path: Path) -> Path | None:
    """The git directory of a repository at *path* (bare or with a work tree), or None."""
    completed = subprocess.run(
        ["git", "-C", str(path), "rev-parse", "--absolute-git-dir"], capture_output=True, text=True
    )
    return Path(completed.stdout.strip()) if completed.returncode == 0 else None


def fixed_commit(bug: Bug, git_dir: Path, patch_text: str, patch_name: str) -> str:
    """The commit of *git_dir* that holds *bug*'s fixed revision: the revision itself, or its match by content."""
    config = REVISION_MAPS.get(bug.project)
    if config is None:
        return bug.revision_fixed
    # Only a full hash can be taken as it is: a Subversion number such as Chart's 1166 is also a valid
    # abbreviation of some unrelated commit's hash.
    if _FULL_HASH.fullmatch(bug.revision_fixed) and GitHistory(git_dir).has_revision(bug.revision_fixed):
        return bug.revision_fixed
    return RevisionMap(bug.project, git_dir, config).commit(bug.bug_id, bug.revision_fixed, patch_text, patch_name)


def locate_upstream(project: str, repos_dir: Path | None) -> Path:
    """The git directory of *project*'s history: ``repos_dir/<project>``, else a cached clone."""
    if repos_dir is not None:
        candidate = Path(repos_dir) / project
        if candidate.exists():
            git_dir = git_dir_of(candidate)
            if git_dir is None:
                raise SourceUnavailable(f"{candidate}: not a git repository")
            return git_dir
    url = UPSTREAM_URLS.get(project, "")
    if url is None:
        raise SourceUnavailable(
            f"{project}: its history is Subversion, not git; install the defects4j command to include it"
        )
    if not url:
        raise SourceUnavailable(f"{project}: no upstream repository known; put one at --repos DIR/{project}")
    clone = cache_dir("repos") / f"{project}.git"
    if git_dir_of(clone) is not None:
        return clone
    log.info("cloning %s from %s", project, url)
    partial = clone.with_name(clone.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        completed = subprocess.run(
            ["git", "clone", "--bare", "--quiet", url, str(partial)],
            capture_output=True,
            text=True,
            timeout=CLONE_TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired:
        completed = None
    if completed is None or completed.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        why = "timed out" if completed is None else (completed.stderr.strip().splitlines() or ["failed"])[-1]
        where = f" and {Path(repos_dir) / project} does not exist" if repos_dir else ""
        raise SourceUnavailable(f"{project}: cloning {url} {why}{where}")
    partial.rename(clone)
    return clone


class UpstreamGitSource:
    """Fixed files from the upstream history; buggy files = fixed + the Defects4J patch."""

    def __init__(self, git_dir: Path) -> None:
        self.history = GitHistory(git_dir)
        self.description = f"git {git_dir} (HEAD {self.history.head()[:12]})"

    def files(
        self, bug: Bug, paths: list[str], patch_text: str, patch_name: str
    ) -> tuple[dict[str, str | None], dict[str, str | None]]:
        revision = fixed_commit(bug, self.history.git_dir, patch_text, patch_name)
        if not self.history.has_revision(revision):
            raise SourceUnavailable(f"fixed revision {revision} is not in {self.history.git_dir}")
        folder = project_folder(bug.project, self.history.git_dir, revision)
        fixed = {path: self.history.read(revision, folder + path) for path in paths}
        present = {path: text for path, text in fixed.items() if text is not None}
        buggy = apply_patch(patch_text, present, patch_name)
        return fixed, {path: buggy.get(path) for path in paths}


class Defects4JCommandSource:
    """Checkouts made by the ``defects4j`` command, cached per bug and version."""

    def __init__(self, executable: str) -> None:
        self.executable = executable
        self.description = f"defects4j command ({executable})"

    def _checkout(self, bug: Bug, version: str) -> Path:
        work = cache_dir("defects4j-checkouts", bug.project) / f"{bug.bug_id}{version}"
        marker = work / ".benchsmith-complete"
        if not marker.exists():
            shutil.rmtree(work, ignore_errors=True)
            completed = subprocess.run(
                [self.executable, "checkout", "-p", bug.project, "-v", f"{bug.bug_id}{version}", "-w", str(work)],
                capture_output=True,
                text=True,
            )
            if completed.returncode != 0:
                last = (completed.stderr.strip().splitlines() or ["failed"])[-1]
                raise SourceUnavailable(f"defects4j checkout {bug.project}-{bug.bug_id}{version}: {last}")
            marker.touch()
        return work

    def files(
        self, bug: Bug, paths: list[str], patch_text: str, patch_name: str
    ) -> tuple[dict[str, str | None], dict[str, str | None]]:
        versions = []
        for version in ("f", "b"):
            work = self._checkout(bug, version)
            versions.append(
                {path: decode((work / path).read_bytes()) if (work / path).is_file() else None for path in paths}
            )
        return versions[0], versions[1]


def has_git_history(project: str) -> bool:
    return UPSTREAM_URLS.get(project, "") is not None


def provider_for(project: str, repos_dir: Path | None) -> SourceProvider:
    executable = shutil.which("defects4j", path=os.environ.get("PATH"))
    if executable:
        return Defects4JCommandSource(executable)
    return UpstreamGitSource(locate_upstream(project, repos_dir))
