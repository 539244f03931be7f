"""``benchsmith.core.atomic.exclusive``: one builder at a time, across threads and processes."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from benchsmith.core.atomic import exclusive

BUILD = """
import sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from benchsmith.core.atomic import exclusive
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
    from harness.python.pytest_run import plugin_dir

    monkeypatch.setenv("BENCHSMITH_CACHE", str(tmp_path / "cache"))
    _, errors = at_once(plugin_dir, 8)
    assert errors == []
    assert (tmp_path / "cache" / "classbench" / "plugin" / "benchsmith_directcov.py").is_file()


def test_workers_export_one_commit_at_once(tmp_path, monkeypatch):
    """Two eval workers judging one repository's tasks open its source at the same commit into an empty cache."""
    from sources.python_repo import source_tree

    monkeypatch.setenv("BENCHSMITH_CACHE", str(tmp_path / "cache"))
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("VALUE = 1\n")
    for argv in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "one"]):
        subprocess.run(["git", "-C", str(repo), *argv], check=True)
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    trees, errors = at_once(lambda: source_tree(str(repo), commit)[1], 6)
    assert errors == []
    assert len(set(trees)) == 1 and (trees[0] / "pkg" / "__init__.py").read_text() == "VALUE = 1\n"
