"""Defects4J revisions that a repository's history does not hold, mapped to its commits by content.

Two histories need it: Chart's Subversion revisions in a git conversion (benchsmith/sources/svn_history.py) and
Math's git hashes, which predate the rewrite of apache/commons-math's history (``RewrittenHistory``
below). RepoClassBench's published Java tasks, which name no commit at all, are found the same way
from their ground truths' blobs (``blobs_at``; builders/classbench/java/locate.py). Each match records its evidence and
is stored in ``<cache>/revision-maps/<project>.json``, so
that it is computed once and can be read and checked.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError, SourceUnavailable

MAP_FORMAT = 1  # bump when a matching rule changes, so stored matches are recomputed
EXACT, TWIN, NOT_FOUND = "exact", "twin", "not found"
_INDEX_LINE = re.compile(r"^diff --git a/(\S+) b/\S+\r?\n(?:[a-z].*\r?\n)*?index (\w+)\.\.(\w+)", re.M)


@dataclass(frozen=True)
class RevisionMatch:
    bug: str  # "Chart-1"
    revision: str  # Defects4J's fixed revision
    kind: str  # EXACT, TWIN or NOT_FOUND
    commit: str | None  # a commit of the converted history, with the project at the root of its tree
    evidence: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


class Matcher(Protocol):
    def match(self, bug: str, revision: str, patch_text: str, patch_name: str) -> RevisionMatch: ...


class MatcherConfig(Protocol):
    def matcher(self, git_dir: Path) -> Matcher: ...


def blob_id(data: bytes) -> str:
    """The id git gives a blob of *data*: a file's content names it in every history that holds it."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def blobs_at(
    git_dir: Path, commits: list[str], paths: list[str], chunk: int = 2000
) -> Iterator[tuple[str, tuple[str | None, ...]]]:
    """Each commit with the blob id of every path at it (None where absent), in *commits*' order.

    One ``git cat-file --batch-check`` per *chunk* commits rather than a process per commit: a history of
    30,000 commits is read in seconds. Ids are interned, since a file has few versions and many commits.
    """
    for start in range(0, len(commits), chunk):
        part = commits[start : start + chunk]
        asked = "".join(f"{commit}:{path}\n" for commit in part for path in paths)
        completed = subprocess.run(
            ["git", "--git-dir", str(git_dir), "cat-file", "--batch-check=%(objectname) %(objecttype)"],
            input=asked.encode("utf-8", "surrogateescape"),
            capture_output=True,
        )
        if completed.returncode != 0:
            raise SourceUnavailable(
                f"{git_dir}: git cat-file failed: {completed.stderr.decode(errors='replace').strip()[:200]}"
            )
        answers = completed.stdout.decode().splitlines()
        for number, commit in enumerate(part):
            row = answers[number * len(paths) : (number + 1) * len(paths)]
            yield commit, tuple(sys.intern(a.split()[0]) if a.endswith(" blob") else None for a in row)


def index_blobs(patch_text: str) -> dict[str, str]:
    """``path → abbreviated blob id of the fixed file``, from the patch's ``index`` lines."""
    return {path: fixed for path, fixed, _buggy in _INDEX_LINE.findall(patch_text)}


@dataclass(frozen=True)
class RewrittenHistory:
    """A git history rewritten after Defects4J took its revisions: the same commits under new hashes.

    A blob's id is its content, so it survives the rewrite. The commit that holds a bug's fix is the
    one that brings the fixed blob the patch's ``index`` line names (and its parent does not have), with
    every file of the patch at its fixed blob: the first, if the fix was also carried to other branches.
    """

    def matcher(self, git_dir: Path) -> "BlobMatcher":
        return BlobMatcher(Path(git_dir))


class BlobMatcher:
    def __init__(self, git_dir: Path) -> None:
        self.git_dir = git_dir

    def _git(self, *args: str) -> str:
        completed = subprocess.run(["git", "--git-dir", str(self.git_dir), *args], capture_output=True)
        return completed.stdout.decode("utf-8", errors="surrogateescape") if completed.returncode == 0 else ""

    def match(self, bug: str, revision: str, patch_text: str, patch_name: str) -> RevisionMatch:
        wanted = index_blobs(patch_text)
        if not wanted:
            return RevisionMatch(
                bug, revision, NOT_FOUND, None, {"why": f"{patch_name} has no index lines naming blobs"}
            )
        first_path, first_blob = next(iter(wanted.items()))
        arrivals = []  # (date, commit, subject), newest first as git log gives them
        current = None
        for line in self._git(
            "log", "--all", "--format=C %H %aI %s", "--raw", "--no-abbrev", "--", first_path
        ).splitlines():
            if line.startswith("C "):
                current = line[2:].split(" ", 2)
            elif line.startswith(":") and current:
                old, new = line.split()[2:4]
                if new.startswith(first_blob) and not old.startswith(first_blob):
                    arrivals.append(current)
        holding = [
            c for c in arrivals if all(self._git("rev-parse", f"{c[0]}:{p}").startswith(b) for p, b in wanted.items())
        ]
        evidence: dict = {"defects4j_blobs": wanted, "commits_bringing_the_fixed_blob": [c[0] for c in arrivals]}
        if not holding:
            evidence["why"] = (
                f"no commit brings {first_path} at blob {first_blob}"
                if not arrivals
                else f"none of the {len(arrivals)} commits bringing {first_path}'s fixed blob holds the "
                f"other files at theirs"
            )
            return RevisionMatch(bug, revision, NOT_FOUND, None, evidence)
        commit, date, subject = min(holding, key=lambda c: c[1])
        evidence.update(
            {
                "fix_commit": commit,
                "fix_date": date,
                "message": subject,
                "fixed_blobs": {p: self._git("rev-parse", f"{commit}:{p}").strip() for p in wanted},
                "other_commits_holding_the_fix": [c[0] for c in holding if c[0] != commit],
            }
        )
        return RevisionMatch(bug, revision, EXACT, commit, evidence)


class RevisionMap:
    """Matches of one project, computed at first use and stored with their evidence."""

    def __init__(self, project: str, git_dir: Path, config: MatcherConfig) -> None:
        self.project, self.git_dir, self.config = project, Path(git_dir), config
        self.path = cache_dir("revision-maps") / f"{project}.json"
        self._matcher: Matcher | None = None

    def _stored(self) -> dict:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except ValueError as exc:
            raise BenchsmithError(f"{self.path}: corrupt revision map ({exc}); delete it to recompute") from exc
        return data.get("matches", {}) if data.get("format") == MAP_FORMAT and data.get("import") == self._key() else {}

    def _key(self) -> dict:
        return {"git_dir": str(self.git_dir), "kind": type(self.config).__name__, **dataclasses.asdict(self.config)}

    def match(self, bug_id: int, revision: str, patch_text: str, patch_name: str) -> RevisionMatch:
        key = f"{bug_id}:{revision}:{hashlib.sha256(patch_text.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}"
        stored = self._stored()
        if key in stored:
            return RevisionMatch(**stored[key])
        if self._matcher is None:
            self._matcher = self.config.matcher(self.git_dir)
        found = self._matcher.match(f"{self.project}-{bug_id}", revision, patch_text, patch_name)
        stored = {**self._stored(), key: found.as_dict()}  # re-read: another process may have added matches
        write_text_atomic(
            self.path, json.dumps({"format": MAP_FORMAT, "import": self._key(), "matches": stored}, indent=1)
        )
        return found

    def commit(self, bug_id: int, revision: str, patch_text: str, patch_name: str) -> str:
        found = self.match(bug_id, revision, patch_text, patch_name)
        if found.commit is None:
            raise SourceUnavailable(
                f"{self.project} revision {revision} has no commit in {self.git_dir}: {found.evidence.get('why')}"
            )
        return found.commit
