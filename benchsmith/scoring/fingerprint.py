"""The harness's fingerprint: a hash of the code that decides verdicts, so a stored verdict outlives no change to it."""

from __future__ import annotations

import hashlib
from pathlib import Path

from benchsmith import __version__
from benchsmith.core.errors import BenchsmithError

ROOT = Path(__file__).resolve().parents[2]  # holds the benchsmith package, in a checkout and installed alike

# Every file whose change can change a verdict: how a candidate is checked, inserted, compiled, run and counted.
VERDICT_SOURCES: tuple[str, ...] = (
    "benchsmith/runners/java/BenchsmithRunner.java",
    "benchsmith/runners/java/PlatformRunner.java",
    "benchsmith/runners/java/Confinement.java",  # what a candidate's classes may do in the test JVM
    "benchsmith/runners/java/EachTestNotifier.java",  # what JUnit 4 counts as a test's failures
    "benchsmith/runners/java/class_runner.py",
    "benchsmith/runners/java/maven_workspace.py",
    "benchsmith/benchmarks/classbench/java.py",
    "benchsmith/sources/java/class_file.py",
    "benchsmith/runners/java/method_runner.py",
    "benchsmith/runners/java/jvm.py",
    "benchsmith/runners/sandbox/outcomes.py",
    "benchsmith/core/verdict.py",
    "benchsmith/benchmarks/nl2fix.py",
    "benchsmith/benchmarks/classbench/python.py",
    "benchsmith/runners/java/toolchain.py",
    "benchsmith/runners/java/java8.py",
    "benchsmith/runners/python/class_runner.py",
    "benchsmith/runners/sandbox/jail.py",
    "benchsmith/runners/sandbox/services.py",  # the servers a run's tests get
    "benchsmith/runners/sandbox/service_launcher.py",
    "benchsmith/runners/java/insertion.py",
    "benchsmith/runners/java/defects4j_workspace.py",
    "benchsmith/runners/python/pytest_run.py",
    "benchsmith/runners/python/directcov.py",
    "benchsmith/runners/python/public_view.py",
    "benchsmith/sources/defects4j.py",  # the tests Defects4J excludes, the jars its Maven resolved
    "benchsmith/sources/history.py",  # which commit a workspace is built from
    "benchsmith/sources/revision_map.py",
    "benchsmith/sources/svn_history.py",
    "benchsmith/sources/python/removal.py",
    "benchsmith/sources/python/environment.py",
    "benchsmith/sources/python/repo.py",
    "benchsmith/sources/python/extensions.py",  # compiled modules in the tree, or the fallback's switches
    "benchsmith/sources/checkout.py",  # the tree a task is judged in
    "benchsmith/sources/python/deps.py",
)


def harness_fingerprint(root: Path = ROOT) -> str:
    """sha256 of benchsmith's version and the bytes of every file in VERDICT_SOURCES (under *root*), each named."""
    digest = hashlib.sha256(f"benchsmith {__version__}\0".encode())
    for relative in VERDICT_SOURCES:
        try:
            data = (root / relative).read_bytes()
        except OSError as exc:
            raise BenchsmithError(
                f"{root / relative}: cannot read a file the harness fingerprint needs ({exc})"
            ) from None
        digest.update(f"{relative}\0{len(data)}\0".encode() + data)
    return digest.hexdigest()
