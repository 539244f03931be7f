"""Finding Defects4J's Subversion revisions in a git conversion, by content.

The history is written here: a conversion with one commit per revision whose
trunk revisions are empty (the conversion kept only a branch folder), the fix
arriving on the branch one revision before the trunk revision Defects4J names,
and a rewritten history with the branch at the root of its trees.
"""

import json
import subprocess

import pytest

from benchsmith.core.errors import SourceUnavailable
from benchsmith.sources.defects4j import Bug
from benchsmith.sources.history import REVISION_MAPS, UpstreamGitSource, fixed_commit
from benchsmith.sources.revision_map import EXACT, NOT_FOUND, TWIN, RevisionMap
from benchsmith.sources.svn_history import SvnHistory, SvnImport, match_revision

BUGGY = "class Foo {\n  int check(Object o) {\n    if (o != null) {\n      return 0;\n    }\n    return 1;\n  }\n}\n"
FIXED = BUGGY.replace("o != null", "o == null")
PATH = "source/Foo.java"
FIX_MESSAGE = "Bug 42:\n* source/Foo.java (check): Fix null check."
SVN = SvnImport(ref="refs/import/raw", folder="branches/b", first_revision=1, window=5)


def git(repo, *args, env=None):
    return subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
            "PATH": "/usr/bin:/bin",
            **(env or {}),
        },
    ).stdout.strip()


def commit(repo, revision, message, files=None):
    for path, text in (files or {}).items():
        target = repo / "branches" / "b" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    git(repo, "add", "-A")
    date = f"2010-02-09T10:{revision:02d}:00+00:00"
    git(repo, "commit", "-q", "--allow-empty", "-m", message, env={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})


def patch_for(fixed_blob: str = "0000000") -> str:
    """Defects4J's way round: from the fixed file to the buggy one."""
    return (
        f"diff --git a/{PATH} b/{PATH}\nindex {fixed_blob}..1111111 100644\n--- a/{PATH}\n+++ b/{PATH}\n"
        "@@ -1,6 +1,6 @@\n class Foo {\n   int check(Object o) {\n-    if (o == null) {\n+    if (o != null) {\n"
        "       return 0;\n     }\n     return 1;\n"
    )


@pytest.fixture
def svn_repo(tmp_path):
    """r1 imports the buggy file, r2 is a trunk-only revision, r3 fixes the branch, r4 is the same fix on trunk
    (empty here, as Defects4J's revision is), r5 changes something else; and a rewritten history of the branch."""
    repo = tmp_path / "conversion"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "raw")
    commit(repo, 1, "Initial import.", {PATH: BUGGY, "README": "r1\n"})
    commit(repo, 2, "Trunk only.")
    commit(repo, 3, FIX_MESSAGE, {PATH: FIXED})
    commit(repo, 4, FIX_MESSAGE)
    commit(repo, 5, "Docs.", {"README": "r5\n"})
    git(repo, "update-ref", "refs/import/raw", "raw")
    rewritten = None
    for sha in git(repo, "rev-list", "--reverse", "raw").split():
        parents = ["-p", rewritten] if rewritten else []
        rewritten = git(repo, "commit-tree", *parents, "-m", "rewritten", f"{sha}:branches/b")
    git(repo, "update-ref", "refs/heads/main", rewritten)
    git(repo, "checkout", "-q", "--detach")
    git(repo, "branch", "-q", "-D", "raw")
    return repo


def rewritten_commit_with_tree(repo, tree):
    return next(
        line.split()[1] for line in git(repo, "log", "--all", "--format=%T %H").splitlines() if line.split()[0] == tree
    )


def test_a_revision_is_its_position_and_its_fix_is_found_on_the_branch(svn_repo):
    history = SvnHistory(svn_repo / ".git", SVN)
    found = match_revision(history, "P-1", "4", patch_for(), "1.src.patch")
    assert found.kind == TWIN
    evidence = found.evidence
    assert evidence["message"] == FIX_MESSAGE.splitlines()  # revision 4 is the 4th commit
    assert evidence["revision_commit_changes_folder"] is False
    assert evidence["revisions_away"] == -1 and evidence["same_message"] is True
    fix_tree = git(svn_repo, "rev-parse", f"{evidence['fix_commit']}:branches/b")
    assert found.commit == rewritten_commit_with_tree(svn_repo, fix_tree)
    assert git(svn_repo, "show", f"{found.commit}:{PATH}") + "\n" == FIXED


def test_the_blob_defects4j_names_makes_a_match_exact(svn_repo):
    blob = git(svn_repo, "rev-parse", f"main:{PATH}")
    found = match_revision(SvnHistory(svn_repo / ".git", SVN), "P-1", "4", patch_for(blob[:7]), "1.src.patch")
    assert found.kind == EXACT and found.evidence["fixed_blobs"] == {PATH: blob}


def test_no_commit_near_the_revision_takes_the_patch(svn_repo):
    history = SvnHistory(svn_repo / ".git", SVN)
    other = patch_for().replace("return 1;", "return 2;")  # context no version of the file has
    found = match_revision(history, "P-1", "4", other, "1.src.patch")
    assert found.kind == NOT_FOUND and found.commit is None
    assert "none takes the patch" in found.evidence["why"]
    # Searched no further than the window: the fix arrived one revision before revision 4.
    narrow = SvnHistory(svn_repo / ".git", SvnImport(SVN.ref, SVN.folder, 1, window=0))
    far = match_revision(narrow, "P-1", "4", patch_for(), "1.src.patch")
    assert far.kind == NOT_FOUND


def test_the_map_is_stored_with_its_evidence_and_read_by_the_source(svn_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHSMITH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setitem(REVISION_MAPS, "P", SVN)
    bug = Bug("P", 1, "2", "4", "UNKNOWN", "UNKNOWN")
    fixed, buggy = UpstreamGitSource(svn_repo / ".git").files(bug, [PATH], patch_for(), "1.src.patch")
    assert fixed == {PATH: FIXED} and buggy == {PATH: BUGGY}
    stored = json.loads((tmp_path / "cache" / "revision-maps" / "P.json").read_text())
    (match,) = stored["matches"].values()
    assert match["kind"] == TWIN and match["bug"] == "P-1" and match["evidence"]["patch_applies"] is True
    # The stored match is what later builds read: the history is not walked again.
    assert RevisionMap("P", svn_repo / ".git", SVN).match(1, "4", patch_for(), "1.src.patch").commit == match["commit"]
    with pytest.raises(SourceUnavailable, match="outside refs/import/raw"):
        UpstreamGitSource(svn_repo / ".git").files(Bug("P", 2, "8", "9", "", ""), [PATH], patch_for(), "2.src.patch")


def test_a_revision_number_that_abbreviates_some_commit_hash_is_still_a_revision(svn_repo, tmp_path, monkeypatch):
    """Chart's revision 1166 is also the start of an unrelated commit's hash in jfree/jfreechart."""
    noise = 0
    while not (
        number := next(
            (sha[:4] for sha in git(svn_repo, "rev-list", "--all").split() if sha[:4].isdigit() and sha[0] != "0"), None
        )
    ):
        noise += 1
        git(svn_repo, "commit", "-q", "--allow-empty", "-m", f"noise {noise}")
    assert (
        subprocess.run(
            ["git", "-C", str(svn_repo), "rev-parse", "-q", "--verify", f"{number}^{{commit}}"], capture_output=True
        ).returncode
        == 0
    )
    monkeypatch.setenv("BENCHSMITH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setitem(REVISION_MAPS, "P", SvnImport(SVN.ref, SVN.folder, first_revision=int(number) - 3, window=5))
    bug = Bug("P", 1, str(int(number) - 2), number, "UNKNOWN", "UNKNOWN")  # revision 4 of the fixture, renumbered
    expected = match_revision(SvnHistory(svn_repo / ".git", SVN), "P-1", "4", patch_for(), "1.src.patch").commit
    assert fixed_commit(bug, svn_repo / ".git", patch_for(), "1.src.patch") == expected
