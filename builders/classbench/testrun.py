"""Running a repository's pytest suite, sandboxed, on a copy of its tree.

Outcomes come from pytest's own report file (``--report-log``, JSON lines
written by pytest-dev's pytest-reportlog) and, when asked, direct coverage
from the ``benchsmith_directcov`` plugin.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchsmith.config import cache_dir
from builders.classbench.repo import Repository
from harness import sandbox

PER_TEST_TIMEOUT = 60


@dataclass(frozen=True)
class TestRun:
    outcomes: dict[str, str]  # node id -> passed | failed | skipped | error
    coverage: dict[str, list[tuple[str, str]]]  # node id -> [(file, qualname)] called directly from the test
    timed_out: bool
    log_path: Path


def plugin_dir() -> Path:
    folder = cache_dir("classbench", "plugin")
    target = folder / "benchsmith_directcov.py"
    source = Path(__file__).with_name("directcov.py")
    if not target.exists() or target.read_bytes() != source.read_bytes():
        shutil.copyfile(source, target)
        target.chmod(0o644)
    return folder


def work_copy(tree: Path, folder: Path, slot: int) -> Path:
    """A fresh copy of *tree* at *folder*, writable by the sandbox of *slot*."""
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(tree, folder, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    folder.chmod(0o755)
    sandbox.give_to_sandbox(folder, slot)
    return folder


@contextmanager
def swapped_module(module: Path, text: str) -> Iterator[None]:
    """*module* holds *text* inside the block and its original bytes again afterwards."""
    original = module.read_bytes()
    module.write_text(text, encoding="utf-8", errors="surrogateescape")
    try:
        yield
    finally:
        module.write_bytes(original)


def run_pytest(repo: Repository, copy: Path, node_ids: list[str] | None, slot: int, limits: sandbox.Limits,
               log_path: Path, coverage: bool = False) -> TestRun:  # fmt: skip
    """Run the tests (all of them, or *node_ids*) in *copy*; outcomes per node id."""
    report = copy / ".benchsmith-report.jsonl"
    traced = copy / ".benchsmith-directcov.json"
    for stale in (report, traced):
        stale.unlink(missing_ok=True)
    argv = [str(repo.python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
            f"--report-log={report}", "-W", "ignore::DeprecationWarning",
            f"--rootdir={copy}", *_own_config(copy, slot)]  # fmt: skip
    if "pytest-timeout" in repo.installed:
        argv.append(f"--timeout={PER_TEST_TIMEOUT}")
    argv += ["-p", "benchsmith_directcov"]
    env = {
        "PYTHONPATH": os.pathsep.join([str(plugin_dir()), str(copy / repo.import_root)]),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if coverage:
        env["BENCHSMITH_DIRECTCOV_OUT"] = str(traced)
    if node_ids is None:
        argv += _default_targets(copy)
    else:  # their files on the command line, the exact ids selected by the plugin
        selection = copy / ".benchsmith-select"
        selection.write_text("\n".join(node_ids) + "\n", encoding="utf-8")
        sandbox.give_to_sandbox(selection, slot)
        env["BENCHSMITH_SELECT"] = str(selection)
        argv += sorted({node.split("::", 1)[0] for node in node_ids})
    outcome = sandbox.run(argv, copy, slot, limits, log_path, env=env)
    outcomes = _read_report(report)
    calls = {}
    if coverage and traced.exists():
        calls = {node: [tuple(c) for c in record.get("calls", [])] for node, record in json.loads(traced.read_text()).items()}
    return TestRun(outcomes, calls, outcome.timed_out, log_path)


def _own_config(copy: Path, slot: int) -> list[str]:
    """Keep pytest inside the copy: without a config of its own it would adopt one from a folder above."""
    if any(_has_pytest_section(copy / name) for name in ("pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")):
        return []
    empty = copy / ".benchsmith-pytest.ini"
    empty.write_text("[pytest]\n")
    sandbox.give_to_sandbox(empty, slot)
    return ["-c", str(empty)]


def _has_pytest_section(path: Path) -> bool:
    if not path.is_file():
        return False
    text = path.read_text(encoding="utf-8", errors="replace")
    return path.name == "pytest.ini" or any(s in text for s in ("[tool.pytest.ini_options]", "[pytest]", "[tool:pytest]"))


def _default_targets(copy: Path) -> list[str]:
    for name in ("tests", "test", "testing"):
        if (copy / name).is_dir():
            return [name]
    return []


def _read_report(report: Path) -> dict[str, str]:
    """Node id → outcome from pytest's report log: a failed setup or teardown fails the test."""
    outcomes: dict[str, str] = {}
    if not report.exists():
        return outcomes
    for line in report.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("$report_type") == "CollectReport" and entry.get("outcome") == "failed":
            outcomes[entry["nodeid"]] = "error"
        if entry.get("$report_type") != "TestReport":
            continue
        node, when, result = entry["nodeid"], entry["when"], entry["outcome"]
        if when == "call" or (when == "setup" and result != "passed"):
            outcomes[node] = result
        elif when == "teardown" and result == "failed":
            outcomes[node] = "failed"
    return outcomes
