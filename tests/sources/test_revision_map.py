"""Defects4J hashes of a history rewritten since (Math): the fix is found by the blobs its patch names.

The history is written here: the buggy file, an unrelated commit, the fix (with a second file), a later
change; Defects4J's hash is one the history has never had.
"""

import subprocess

import pytest

from benchsmith.core.errors import SourceUnavailable
from benchsmith.sources.defects4j import Bug
from benchsmith.sources.history import REVISION_MAPS, UpstreamGitSource
from benchsmith.sources.revision_map import EXACT, NOT_FOUND, RewrittenHistory

BUGGY = "class A {\n  int f() {\n    return 1;\n  }\n}\n"
FIXED = BUGGY.replace("return 1", "return 2")
OLD_HASH = "0da657a65c92b086a301a6ffe9e34ec272f8889c"


def git(repo, *args, data=None):
    completed = subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        input=data,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
            "PATH": "/usr/bin:/bin",
        },
    )
    return completed.stdout.decode().strip()


def commit(repo, message, files):
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def patch_for(repo, fixed_text, path="src/A.java"):
    blob = git(repo, "hash-object", "--stdin", data=fixed_text.encode())
    return (
        f"diff --git a/{path} b/{path}\nindex {blob[:7]}..1111111 100644\n--- a/{path}\n+++ b/{path}\n"
        "@@ -1,5 +1,5 @@\n class A {\n   int f() {\n-    return 2;\n+    return 1;\n   }\n }\n"
    )


@pytest.fixture
def rewritten(tmp_path):
    repo = tmp_path / "math"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Import.", {"src/A.java": BUGGY})
    commit(repo, "Unrelated.", {"README": "x\n"})
    fix = commit(repo, "MATH-1: return 2.", {"src/A.java": FIXED, "src/ATest.java": "test\n"})
    commit(repo, "Later.", {"src/A.java": FIXED + "// later\n"})
    return repo, fix


def test_the_commit_that_brings_the_fixed_blob_is_the_fix(rewritten):
    repo, fix = rewritten
    found = RewrittenHistory().matcher(repo / ".git").match("Math-1", OLD_HASH, patch_for(repo, FIXED), "1.src.patch")
    assert found.kind == EXACT and found.commit == fix
    assert found.evidence["message"] == "MATH-1: return 2."
    assert found.evidence["commits_bringing_the_fixed_blob"] == [fix]


def test_a_blob_no_commit_has_is_not_found(rewritten):
    repo, _ = rewritten
    found = RewrittenHistory().matcher(repo / ".git").match("Math-1", OLD_HASH, patch_for(repo, FIXED + "//\n"), "p")
    assert found.kind == NOT_FOUND and found.commit is None and "no commit brings src/A.java" in found.evidence["why"]


def test_the_source_reads_the_fix_under_its_new_hash(rewritten, tmp_path, monkeypatch):
    repo, fix = rewritten
    monkeypatch.setenv("BENCHSMITH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setitem(REVISION_MAPS, "P", RewrittenHistory())
    bug = Bug("P", 1, "1780da711d88f669e29e0517f83d692fb80099db", OLD_HASH, "MATH-1", "")
    fixed, buggy = UpstreamGitSource(repo / ".git").files(bug, ["src/A.java"], patch_for(repo, FIXED), "1.src.patch")
    assert fixed == {"src/A.java": FIXED} and buggy == {"src/A.java": BUGGY}
    assert (tmp_path / "cache" / "revision-maps" / "P.json").is_file()
    with pytest.raises(SourceUnavailable, match="no commit brings"):
        UpstreamGitSource(repo / ".git").files(
            Bug("P", 2, "a", "b" * 40, "", ""), ["src/A.java"], patch_for(repo, "nothing\n"), "2.src.patch"
        )
