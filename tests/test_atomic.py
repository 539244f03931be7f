"""``benchsmith.core.atomic``: one builder at a time, across threads and processes; folders built whole or not at
all."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from benchsmith.core.atomic import build_folder_atomic, exclusive

BUILD = """
import sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
import pytest

from benchsmith.core.atomic import build_folder_atomic, exclusive
target = Path({target!r})
with exclusive(target):
    if not target.exists():
        time.sleep(0.3)
        with open({log!r}, "a") as log:
            log.write("built\\n")
        target.write_text("done")
"""


def build_once(target: Path, log: Path) -> None:
    with exclusive(target):
        if not target.exists():
            time.sleep(0.2)
            with open(log, "a") as out:
                out.write("built\n")
            target.write_text("done")


def at_once(work, count: int) -> tuple[list, list[BaseException]]:
    """*work* called by *count* threads released together: what they returned, and what they raised."""
    barrier = threading.Barrier(count)
    results, errors = [], []

    def one() -> None:
        barrier.wait()
        try:
            results.append(work())
        except BaseException as exc:  # noqa: BLE001 - the tests count them
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, errors


def test_threads_build_once(tmp_path):
    target, log = tmp_path / "env", tmp_path / "log"
    _, errors = at_once(lambda: build_once(target, log), 4)
    assert errors == []
    assert log.read_text() == "built\n"


def test_processes_build_once(tmp_path):
    target, log = tmp_path / "env", tmp_path / "log"
    code = BUILD.format(root=str(Path(__file__).resolve().parent.parent), target=str(target), log=str(log))
    processes = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(3)]
    assert [p.wait(60) for p in processes] == [0, 0, 0]
    assert log.read_text() == "built\n"


def test_workers_of_one_process_stage_the_pytest_plugin_at_once(tmp_path, monkeypatch):
    """Two eval workers opening runners into an empty cache copy the plugin at once (one pid, two threads)."""
    from benchsmith.runners.python.pytest_run import plugin_dir

    monkeypatch.setenv("BENCHSMITH_CACHE", str(tmp_path / "cache"))
    folders, errors = at_once(plugin_dir, 8)
    assert errors == []
    assert len(set(folders)) == 1
    assert folders[0].parent == tmp_path / "cache" / "classbench" / "plugin"
    assert (folders[0] / "benchsmith_directcov.py").is_file()


def test_workers_export_one_commit_at_once(tmp_path, monkeypatch):
    """Two eval workers judging one repository's tasks open its source at the same commit into an empty cache."""
    from benchsmith.sources.checkout import source_tree

    monkeypatch.setenv("BENCHSMITH_CACHE", str(tmp_path / "cache"))
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("VALUE = 1\n")
    for argv in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "one"]):
        subprocess.run(["git", "-C", str(repo), *argv], check=True)
    commit = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    trees, errors = at_once(lambda: source_tree(str(repo), commit)[1], 6)
    assert errors == []
    assert len(set(trees)) == 1 and (trees[0] / "pkg" / "__init__.py").read_text() == "VALUE = 1\n"


def test_a_folder_is_built_once_and_never_seen_half_built(tmp_path):
    target = tmp_path / "views" / "v1"
    seen_during_build = []

    def build(tree: Path) -> None:
        (tree / "pkg").mkdir(parents=True)
        (tree / "pkg" / "a.py").write_text("x = 1\n")
        seen_during_build.append(target.exists())

    assert build_folder_atomic(target, build) == target
    assert (target / "pkg" / "a.py").read_text() == "x = 1\n" and seen_during_build == [False]
    assert build_folder_atomic(target, lambda tree: pytest.fail("built again")) == target
    assert [p.name for p in target.parent.iterdir()] == ["v1"]  # no staging folder left


def test_a_folder_built_meanwhile_by_another_process_is_kept_and_a_failed_build_leaves_nothing(tmp_path):
    target = tmp_path / "v2"

    def build_while_another_finishes(tree: Path) -> None:
        tree.mkdir()
        (tree / "mine").write_text("")
        target.mkdir()  # the other builder's rename lands first
        (target / "theirs").write_text("")

    assert build_folder_atomic(target, build_while_another_finishes) == target
    assert [p.name for p in target.iterdir()] == ["theirs"]

    def broken(tree: Path) -> None:
        tree.mkdir()
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        build_folder_atomic(tmp_path / "v3", broken)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v2"]
