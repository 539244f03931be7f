"""The harness's fingerprint: a hash of the code that decides verdicts, so a stored verdict outlives no change to it."""

from __future__ import annotations

import hashlib
from pathlib import Path

from benchsmith import __version__
from benchsmith.core.errors import BenchsmithError

ROOT = Path(__file__).resolve().parents[2]  # holds the harness and sources packages

# Every file whose change can change a verdict: how a candidate is checked, inserted, compiled, run and counted.
VERDICT_SOURCES: tuple[str, ...] = (
    "harness/java/BenchsmithRunner.java",
    "harness/java/PlatformRunner.java",
    "harness/java/class_runner.py",
    "harness/java/maven_workspace.py",
    "harness/benchmarks/classbench_java.py",
    "sources/javaclass.py",
    "harness/java/method_runner.py",
    "harness/java/jvm.py",
    "harness/sandbox/outcomes.py",
    "benchsmith/core/verdict.py",
    "harness/benchmarks/nl2fix.py",
    "harness/benchmarks/classbench.py",
    "harness/java/toolchain.py",
    "harness/java/java8.py",
    "harness/python/class_runner.py",
    "harness/sandbox/jail.py",
    "harness/java/insertion.py",
    "harness/java/defects4j_workspace.py",
    "harness/python/pytest_run.py",
    "harness/python/directcov.py",
    "harness/python/public_view.py",
    "sources/defects4j.py",  # the tests Defects4J excludes, the jars its Maven resolved
    "sources/history.py",  # which commit a workspace is built from
    "sources/revision_map.py",
    "sources/svn_history.py",
    "sources/python_removal.py",
    "sources/python_env.py",
    "sources/python_repo.py",
    "sources/python_deps.py",
)


def harness_fingerprint(root: Path = ROOT) -> str:
    """sha256 of benchsmith's version and the bytes of every file in VERDICT_SOURCES (under *root*), each named."""
    digest = hashlib.sha256(f"benchsmith {__version__}\0".encode())
    for relative in VERDICT_SOURCES:
        try:
            data = (root / relative).read_bytes()
        except OSError as exc:
            raise BenchsmithError(f"{root / relative}: cannot read a file the harness fingerprint needs ({exc})") from None
        digest.update(f"{relative}\0{len(data)}\0".encode() + data)
    return digest.hexdigest()
