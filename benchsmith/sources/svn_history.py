"""Defects4J revisions of a Subversion project, found by content in a git conversion of its history.

Defects4J names the revisions of a Subversion project (Chart) by number. A git
conversion that keeps one commit per Subversion revision, empty where the
revision touched nothing the conversion kept, numbers them by position: the
n-th commit from the root of its ref is revision ``first_revision + n - 1``.
The revision's own commit gives the message and the date; it can be empty when
the fix went to a folder the conversion left out (JFreeChart's trunk), while
the same fix, with the same ChangeLog message, went to the converted branch a
few revisions away. So the commit that holds a bug's fix is found by content:

* the revision's own commit, then the commits within ``window`` revisions of it
  that change a file of the patch, those with the revision's message first,
  then the nearest;
* the first whose files take Defects4J's patch (fixed → buggy) while its
  parent's do not: the fix arrives in that commit;
* ``exact`` when the file's blob is the one the patch's ``index`` line names
  (the very file Defects4J has), ``twin`` otherwise.

The commit is then the one of the repository's converted history whose tree is
that folder's tree, so the rest of benchsmith reads it at the usual paths.
Matches are stored with their evidence by benchsmith/sources/revision_map.py.
"""

from __future__ import annotations

import dataclasses
import subprocess
from dataclasses import dataclass
from pathlib import Path

from benchsmith.core.errors import BenchsmithError, PatchError, SourceUnavailable
from benchsmith.sources.patches import apply_patch, parse_patch
from benchsmith.sources.revision_map import EXACT, NOT_FOUND, TWIN, RevisionMatch, index_blobs


@dataclass(frozen=True)
class SvnImport:
    """Where a Subversion history sits in a git repository."""

    ref: str  # a linear ref, one commit per Subversion revision
    folder: str = ""  # the converted branch's folder in that ref's trees ("" for the root)
    first_revision: int = 1  # the revision of the ref's root commit
    window: int = 40  # how many revisions away the fix may have gone to the converted folder

    def matcher(self, git_dir: Path) -> SvnHistory:
        return SvnHistory(git_dir, self)


@dataclass(frozen=True)
class _Commit:
    sha: str
    tree: str  # of the converted folder ("" where the folder does not exist)
    date: str
    message: str


class SvnHistory:
    """The commits of one Subversion import, by revision, and the files of its converted folder."""

    def __init__(self, git_dir: Path, svn: SvnImport) -> None:
        self.git_dir, self.svn = Path(git_dir), svn
        listing = self._git(
            "log", "--reverse", "--first-parent", "--format=%H%x00%ad%x00%B%x01", "--date=iso-strict", svn.ref
        )
        self.commits: list[_Commit] = []
        for record in listing.split("\x01"):
            if record.strip():
                sha, date, message = record.strip("\n").split("\0", 2)
                self.commits.append(_Commit(sha, "", date, message.strip()))
        if not self.commits:
            raise SourceUnavailable(f"{git_dir}: no commits under {svn.ref}")
        trees = self._folder_trees([c.sha for c in self.commits])
        self.commits = [dataclasses.replace(c, tree=t) for c, t in zip(self.commits, trees)]
        self._root_commits: dict[str, str] | None = None

    def match(self, bug: str, revision: str, patch_text: str, patch_name: str) -> RevisionMatch:
        return match_revision(self, bug, revision, patch_text, patch_name)

    def _git(self, *args: str, data: bytes | None = None) -> str:
        completed = subprocess.run(["git", "--git-dir", str(self.git_dir), *args], capture_output=True, input=data)
        if completed.returncode != 0:
            raise SourceUnavailable(
                f"{self.git_dir}: git {args[0]} failed: {completed.stderr.decode(errors='replace').strip()}"
            )
        return completed.stdout.decode("utf-8", errors="surrogateescape")

    def _folder_trees(self, shas: list[str]) -> list[str]:
        spec = (lambda sha: f"{sha}:{self.svn.folder}") if self.svn.folder else (lambda sha: f"{sha}^{{tree}}")
        lines = self._git(
            "cat-file", "--batch-check=%(objectname) %(objecttype)", data="".join(spec(s) + "\n" for s in shas).encode()
        ).splitlines()
        return [line.split()[0] if line.endswith(" tree") else "" for line in lines]

    def position(self, revision: str) -> int:
        if not revision.isdigit():
            raise BenchsmithError(f"revision {revision!r}: not a Subversion revision number")
        index = int(revision) - self.svn.first_revision
        if not 0 <= index < len(self.commits):
            raise SourceUnavailable(f"revision {revision} is outside {self.svn.ref} ({len(self.commits)} commits)")
        return index

    def blob(self, index: int, path: str) -> str | None:
        tree = self.commits[index].tree
        if not tree:
            return None
        completed = subprocess.run(
            ["git", "--git-dir", str(self.git_dir), "rev-parse", "--verify", "-q", f"{tree}:{path}"],
            capture_output=True,
            text=True,
        )
        return completed.stdout.strip() or None

    def text(self, blob: str) -> str:
        return self._git("cat-file", "blob", blob)

    def root_commit(self, tree: str) -> str | None:
        """A commit, anywhere in the repository, whose whole tree is *tree*."""
        if self._root_commits is None:
            self._root_commits = {}
            for line in self._git("log", "--all", "--format=%T %H").splitlines():
                tree_id, sha = line.split()
                self._root_commits.setdefault(tree_id, sha)
        return self._root_commits.get(tree)


def match_revision(history: SvnHistory, bug: str, revision: str, patch_text: str, patch_name: str) -> RevisionMatch:
    """The commit that holds *bug*'s fix, with the evidence, or a NOT_FOUND match saying what was tried."""
    paths = [p.path for p in parse_patch(patch_text, patch_name) if p.in_fixed]
    own = history.position(revision)
    mine = history.commits[own]
    evidence: dict = {
        "revision_commit": mine.sha,
        "date": mine.date,
        "message": mine.message.splitlines()[:4],
        "revision_commit_changes_folder": own > 0 and mine.tree != history.commits[own - 1].tree,
    }
    blobs = {i: {p: history.blob(i, p) for p in paths} for i in _window(history, own)}
    touching = [i for i in blobs if i > 0 and any(blobs[i][p] != history.blob(i - 1, p) for p in paths)]
    ordered = sorted(touching, key=lambda i: (i != own, history.commits[i].message != mine.message, abs(i - own), i))
    tried = []
    for index in ordered:
        if not _takes_patch(history, blobs[index], patch_text, patch_name):
            tried.append(history.commits[index].sha[:10])
            continue
        if _takes_patch(history, {p: history.blob(index - 1, p) for p in paths}, patch_text, patch_name):
            tried.append(history.commits[index].sha[:10] + " (parent already fixed)")
            continue
        commit = history.commits[index]
        wanted = index_blobs(patch_text)
        exact = all(blobs[index][p] and wanted.get(p) and blobs[index][p].startswith(wanted[p]) for p in paths)
        root = history.root_commit(commit.tree)
        evidence.update(
            {
                "fix_commit": commit.sha,
                "fix_date": commit.date,
                "revisions_away": index - own,
                "same_message": commit.message == mine.message,
                "patch_applies": True,
                "patch_applies_to_parent": False,
                "fixed_blobs": {p: blobs[index][p] for p in paths},
                "defects4j_blobs": {p: wanted.get(p) for p in paths},
                "rejected_before": tried,
            }
        )
        if root is None:
            evidence["why"] = f"no commit of the repository has the tree of {history.svn.folder or '/'} at {commit.sha}"
            return RevisionMatch(bug, revision, NOT_FOUND, None, evidence)
        return RevisionMatch(bug, revision, EXACT if exact else TWIN, root, evidence)
    evidence["why"] = (
        f"of the {len(touching)} commits within {history.svn.window} revisions that change "
        f"{', '.join(paths)}, none takes the patch while its parent does not"
        + (f" (tried {', '.join(tried)})" if tried else "")
    )
    return RevisionMatch(bug, revision, NOT_FOUND, None, evidence)


def _window(history: SvnHistory, own: int) -> range:
    return range(max(0, own - history.svn.window), min(len(history.commits), own + history.svn.window + 1))


def _takes_patch(history: SvnHistory, blobs: dict[str, str | None], patch_text: str, patch_name: str) -> bool:
    if any(blob is None for blob in blobs.values()):
        return False
    try:
        apply_patch(patch_text, {p: history.text(b) for p, b in blobs.items()}, patch_name)
    except PatchError:
        return False
    return True
