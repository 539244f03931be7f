"""The build's run of a repository's whole test suite, made to survive the suite.

The same mechanism runs the build's other trusted runs (the tests that reference a class, with the class removed;
the directives with the ground truth and with an empty class): :func:`run_tests` with the node ids selected.

A real suite can kill the process that runs it: pytest's ``INTERNALERROR``
on a ``MemoryError``, a segfaulting extension, threads or descriptors that
run out, a test that calls ``os._exit`` or hangs. The plugin first reports
the node ids the session collected, then each test's outcome, so a run that
ends early tells exactly which tests never reported. Those are run again in
fresh processes, in smaller units: the test that was running when the unit
died (the first unreported one, in collection order) alone, the rest per
file; a unit that dies again is split again. Every collected test ends with
an outcome, or with ``crashed`` / ``timed out`` and the unit and reason that
took it; every unit that died is listed with its reason.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import signal
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from benchsmith.core.errors import BenchsmithError
from benchsmith.runners.python.pytest_run import TRUSTED_LOG_BYTES, default_targets, run_reporting, trusted_command
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.sources.python.repo import Repository

log = logging.getLogger(__name__)

CRASHED, TIMED_OUT = "crashed", "timed out"
NOT_RUNNABLE = "not runnable"  # a test that needs a module the environment lacks: no verdict on the code
NO_OUTCOME = (CRASHED, TIMED_OUT)
NOT_COLLECTED_AGAIN = "not collected again"
# Below this share of the collected tests with an outcome the build stops: a shortlist drawn from a sliver of the
# suite's coverage would be a different benchmark, and a card counting the sliver would misstate it. Half leaves
# room for suites where a few files always die (an extension missing here) while refusing a suite that died early.
MIN_RUN_SHARE = 0.5
# Address space, not memory: every thread reserves its stack (8 MiB) and, under glibc, may reserve a 64 MiB malloc
# arena, so a suite that leaks a few hundred threads exhausts 4 GiB with little memory in use (litestar's suite did,
# ending in pytest's INTERNALERROR ... MemoryError). Trusted runs get 16 GiB of it and at most 4 arenas.
SUITE_ADDRESS_SPACE = 16 << 30
# Threads of all the run's processes (RLIMIT_NPROC is per sandbox uid): two builds side by side stay below the
# kernel's 32768 pids.
SUITE_THREADS = 4096
# A long run can also wear a resource out without dying: its later tests then fail on the exhaustion, not on their
# code. Tests whose failure ends in one of these get one more run, per file, in fresh processes.
EXHAUSTION = (
    "can't start new thread",
    "MemoryError",
    "Too many open files",
    "Cannot allocate memory",
    "Resource temporarily unavailable",
)


def suite_limits(seconds: float) -> sandbox.Limits:
    """The limits of one trusted run of the build (the suite, a unit of it, the class removed): sized for real
    suites, which the defaults (sized for one candidate's few tests) are not."""
    return sandbox.Limits(
        wall_seconds=seconds, cpu_seconds=int(seconds * 2), memory_bytes=SUITE_ADDRESS_SPACE, processes=SUITE_THREADS
    )


@dataclass(frozen=True)
class SuitePolicy:
    unit_seconds: float = 1800.0  # one run (the whole suite first) at most
    stall_seconds: float = 300.0  # no test reported for this long: the run hangs, and is stopped
    budget_seconds: float = 3600.0  # all runs together; units not started by then are recorded as not run
    min_run_share: float = MIN_RUN_SHARE
    # A module whose code the run refuses what a candidate's is refused (directcov's guard), so that a check of the
    # ground truth runs as eval judges it; "" for the suite and the repository's own code
    guarded_module: str = ""


@dataclass(frozen=True)
class CrashedUnit:
    unit: str  # "the whole suite", a file, or one node id
    tests: int  # how many of its tests had not reported when it ended (0: it died before collecting)
    reason: str  # one line: "killed by SIGSEGV (Fatal Python error: Segmentation fault)"
    log: str  # its log, relative to the runs folder


@dataclass
class SuiteRun:
    collected: list[str]  # in collection order, over every run
    outcomes: dict[str, str]  # node id -> an outcome of the plugin's, or crashed / timed out
    coverage: dict[str, list[tuple[str, str]]]
    crashed_units: list[CrashedUnit] = field(default_factory=list)
    runs: int = 0
    # Tests that failed on an exhausted resource, and what a fresh run said of them
    retried: dict[str, dict] = field(default_factory=dict)  # node id -> {"first": outcome, "message": ..., "then": ...}
    messages: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    def counts(self) -> dict[str, int]:
        """collected, then each outcome's count (collection errors, keyed by file, included)."""
        counts = {"collected": len(self.collected)}
        for outcome in self.outcomes.values():
            counts[outcome] = counts.get(outcome, 0) + 1
        # A test collected by one run and not by the run that took it up again (an id made of an object's address)
        unreported = sum(node not in self.outcomes for node in self.collected)
        if unreported:
            counts[NOT_COLLECTED_AGAIN] = unreported
        return counts

    def ran(self) -> int:
        return sum(self.outcomes.get(node) not in (None, *NO_OUTCOME) for node in self.collected)


@dataclass(frozen=True)
class _Unit:
    label: str
    node_ids: list[str] | None  # None: whatever pytest collects from *targets*
    targets: list[str] | None = None
    single: bool = False


def run_suite(repo: Repository, copy: Path, slot: int, logs: Path, policy: SuitePolicy = SuitePolicy()) -> SuiteRun:
    """Every collected test of *copy*'s suite with an outcome or a recorded reason, coverage recorded."""
    result = run_tests(repo, copy, slot, logs / "suite.log", None, policy, coverage=True)
    _refuse_a_sliver(repo, result, policy, logs)
    return result


def run_tests(
    repo: Repository,
    copy: Path,
    slot: int,
    log_path: Path,
    node_ids: list[str] | None,
    policy: SuitePolicy = SuitePolicy(),
    coverage: bool = False,
) -> SuiteRun:
    """Every test of *node_ids* (None: every test the suite collects) with an outcome or a recorded reason: the units
    that die are run again smaller, as the module says. The first run logs to *log_path*, the others beside it in
    ``<its stem>-units/``; each unit that died names its log relative to *log_path*'s folder."""
    started = time.monotonic()
    result = SuiteRun([], {}, {})
    first = (
        _Unit("the whole suite", None)
        if node_ids is None
        else _Unit(f"the {len(node_ids)} selected tests", list(node_ids))
    )
    runs = _Runs(log_path, coverage)
    _run_units(repo, copy, slot, runs, policy, result, deque([first]), started)
    _retry_exhausted(repo, copy, slot, runs, policy, result, started)
    result.seconds = time.monotonic() - started
    return result


@dataclass(frozen=True)
class _Runs:
    """Where one call's runs log, and what they record."""

    first_log: Path
    coverage: bool

    def log(self, number: int) -> Path:
        if number == 1:
            return self.first_log
        return self.first_log.parent / f"{self.first_log.stem}-units" / f"{number}.log"


def _retry_exhausted(repo, copy, slot, runs: _Runs, policy: SuitePolicy, result: SuiteRun, started: float) -> None:
    worn = {
        n: next(p for p in EXHAUSTION if p in result.messages.get(n, ""))
        for n in result.collected
        if result.outcomes.get(n) in ("failed", "error") and any(p in result.messages.get(n, "") for p in EXHAUSTION)
    }
    if not worn:
        return
    log.warning(
        "%s: %d tests failed on an exhausted resource (%s); running them again per file",
        repo.key,
        len(worn),
        ", ".join(sorted(set(worn.values()))),
    )
    first = {n: result.outcomes.pop(n) for n in worn}
    by_file: dict[str, list[str]] = {}
    for node in worn:
        by_file.setdefault(node.split("::", 1)[0], []).append(node)
    _run_units(
        repo,
        copy,
        slot,
        runs,
        policy,
        result,
        deque(_Unit(f"{file} ({len(nodes)} tests, again)", nodes) for file, nodes in by_file.items()),
        started,
    )
    for node, pattern in worn.items():
        result.outcomes.setdefault(node, first[node])  # a unit not run (the budget spent) keeps the first outcome
        result.retried[node] = {"first": first[node], "exhausted": pattern, "then": result.outcomes[node]}


def _run_units(
    repo, copy, slot, runs: _Runs, policy: SuitePolicy, result: SuiteRun, queue: deque, started: float
) -> None:
    while queue:
        unit = queue.popleft()
        if time.monotonic() - started > policy.budget_seconds:
            _give_up(result, unit, f"not run: the suite's budget of {policy.budget_seconds:.0f} s was spent")
            continue
        result.runs += 1
        log_path = runs.log(result.runs)
        log_path.unlink(missing_ok=True)
        report, outcome, reason = _run_unit(repo, copy, slot, unit, log_path, policy, runs.coverage)
        relative = str(log_path.relative_to(runs.first_log.parent))
        if report.collected is not None:
            known = set(result.collected)
            result.collected += [n for n in report.collected if n not in known]
        reported = dict(report.tests)
        result.outcomes.update(reported)
        result.coverage.update(report.calls)
        result.messages.update(report.messages)
        expected = report.collected
        if unit.node_ids is not None and (report.collected is not None or reason is not None):
            # those of its ids that pytest collected; all of them when it died collecting (ending by itself before
            # collecting, it refused to start: a conftest that no longer imports, which the caller reads as failures)
            # in the order they ran, so that the first one not reported is the one that was running
            selected = set(unit.node_ids)
            expected = [n for n in report.collected if n in selected] if report.collected is not None else unit.node_ids
        if expected is None:  # it died before pytest finished collecting
            if reason is None:  # pytest refused to start (a conftest that does not import): the caller says why
                log.warning(
                    "%s: pytest ended with status %s without collecting; see %s",
                    unit.label,
                    outcome.returncode,
                    log_path,
                )
                continue
            if unit.targets is None:  # the whole suite: each test file on its own finds the one that kills it
                files = _test_files(copy)
                log.warning(
                    "%s: the suite died while collecting (%s); collecting each of its %d test files alone",
                    repo.key,
                    reason,
                    len(files),
                )
                result.crashed_units.append(CrashedUnit(unit.label, 0, f"while collecting: {reason}", relative))
                queue.extend(_Unit(f, None, [f]) for f in files)
            else:
                result.crashed_units.append(CrashedUnit(unit.label, 0, f"while collecting: {reason}", relative))
                result.outcomes.setdefault(unit.label, TIMED_OUT if outcome.timed_out else CRASHED)
            continue
        pending = [n for n in expected if n not in reported]
        if not pending:
            if reason is not None:
                log.warning("%s: %s ended badly after every test reported: %s", repo.key, unit.label, reason)
            continue
        reason = reason or f"pytest ended (status {outcome.returncode}) before {len(pending)} of its tests reported"
        result.crashed_units.append(CrashedUnit(unit.label, len(pending), reason, relative))
        log.warning("%s: %s: %d tests did not report (%s)", repo.key, unit.label, len(pending), reason)
        if unit.single:
            result.outcomes[pending[0]] = TIMED_OUT if outcome.timed_out else CRASHED
            continue
        # The first test that did not report was running when the unit died: alone, it shows whether it is the
        # cause; the others, per file in fresh processes, no longer share its fate (or the leaks of the tests before).
        queue.appendleft(_Unit(pending[0], [pending[0]], single=True))
        by_file: dict[str, list[str]] = {}
        for node in pending[1:]:
            by_file.setdefault(node.split("::", 1)[0], []).append(node)
        queue.extend(_Unit(f"{file} ({len(nodes)} tests)", nodes) for file, nodes in by_file.items())


def _run_unit(repo, copy, slot, unit: _Unit, log_path: Path, policy: SuitePolicy, coverage: bool):
    argv, env = trusted_command(repo, copy, unit.node_ids, coverage=coverage, targets=unit.targets)
    env["BENCHSMITH_REPORT_COLLECTED"] = "1"
    if policy.guarded_module:
        env["BENCHSMITH_CANDIDATE"] = policy.guarded_module
    seconds = min(policy.unit_seconds, policy.stall_seconds) if unit.single else policy.unit_seconds
    outcome, report = run_reporting(
        argv,
        copy,
        slot,
        suite_limits(seconds),
        log_path,
        env,
        stall_seconds=policy.stall_seconds,
        complete_lines_only=True,
        log_limit=TRUSTED_LOG_BYTES,
        started_services=repo.services,
    )
    if report.malformed:
        raise BenchsmithError(f"{log_path}: the report of a trusted run is unreadable: {report.malformed}")
    return report, outcome, _reason(outcome, seconds, policy.stall_seconds, log_path)


def _reason(outcome: sandbox.ProcessExit, limit: float, stall: float, log_path: Path) -> str | None:
    """Why the run ended abnormally, in one line; None when pytest ended by itself with a status of its own
    other than an internal error (0 to 5)."""
    tail = _log_tail(log_path)
    if outcome.timed_out:
        if outcome.seconds < limit - 1:
            return f"hung: no test reported for {stall:.0f} s"
        return f"timed out after {limit:.0f} s"
    status = outcome.returncode
    fatal = next((line for line in reversed(tail) if line.startswith("Fatal Python error")), "")
    if status is not None and status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"killed by {name}" + (f" ({fatal})" if fatal else "")
    internal = [line.removeprefix("INTERNALERROR>").strip() for line in tail if line.startswith("INTERNALERROR>")]
    internal = [line for line in internal if line]
    if internal:
        return f"pytest INTERNALERROR: {internal[-1][:200]}"
    if status in range(6):
        return None
    return f"the test process exited with status {status}" + (f" ({fatal})" if fatal else "")


def _log_tail(log_path: Path, size: int = 1 << 16) -> list[str]:
    try:
        with log_path.open("rb") as handle:
            handle.seek(max(0, log_path.stat().st_size - size))
            return handle.read().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return []


def _give_up(result: SuiteRun, unit: _Unit, reason: str) -> None:
    nodes = unit.node_ids if unit.node_ids is not None else [unit.label]
    for node in nodes:
        result.outcomes.setdefault(node, TIMED_OUT)
    result.crashed_units.append(CrashedUnit(unit.label, len(nodes), reason, ""))


def _test_files(copy: Path) -> list[str]:
    """The files pytest's default patterns take as test modules, under the folder the suite runs from."""
    roots = [copy / target for target in default_targets(copy)] or [copy]
    found = {p for root in roots for pattern in ("test_*.py", "*_test.py") for p in root.rglob(pattern)}
    return sorted(str(p.relative_to(copy)) for p in found if "__pycache__" not in p.parts)


def _refuse_a_sliver(repo: Repository, result: SuiteRun, policy: SuitePolicy, logs: Path) -> None:
    collected = len(result.collected)
    if not collected:
        # Every test file died while collecting (an interpreter that cannot start in the sandbox: a shared libpython
        # it cannot load): no test was lost by the suite, none was ever run either. Without a death, the caller
        # names what did not import.
        if result.crashed_units:
            causes = [unit.reason for unit in result.crashed_units]
            raise BenchsmithError(
                f"{repo.spec}: no test could be collected: every run died while collecting, mostly "
                f"{max(set(causes), key=causes.count)}; see {logs / 'suite.log'}"
            )
        return
    ran = result.ran()
    if ran >= policy.min_run_share * collected:
        return
    reasons: dict[str, int] = {}
    for unit in result.crashed_units:
        reasons[unit.reason] = reasons.get(unit.reason, 0) + unit.tests
    cause = max(reasons, key=reasons.get) if reasons else "unknown"
    raise BenchsmithError(
        f"{repo.spec}: only {ran} of {collected} collected tests ran (below {policy.min_run_share:.0%}); "
        f"{collected - ran} crashed or timed out, mostly: {cause}; see {logs / 'suite.log'}"
    )


# why a test of the package's compiled module by name is not runnable in a build of its pure-Python fallback
FALLBACK_TESTED = "a compiled module of the package, not imported: this build tests the pure-Python fallback"

_MISSING_MODULE = re.compile(
    r"No module named '([^']+)'|could not import '([^']+)'|(lib[\w.+-]+\.so[\w.]*): cannot open shared object file"
)


def not_runnable(result: SuiteRun) -> dict[str, str]:
    """The tests (and modules skipped whole) that did not pass because a module is missing from the environment
    (a dependency that did not build, an optional one left out) or a shared library from the machine: node id ->
    the module (or ``libX.so.N``), as their failure or skip says. They tell nothing of the code, and the card counts
    them apart."""
    found = {}
    for node, outcome in result.outcomes.items():
        if outcome in ("failed", "error", "skipped") and (
            match := _MISSING_MODULE.search(result.messages.get(node, ""))
        ):
            found[node] = match[1] or match[2] or match[3]
    return found


def not_runnable_summary(nodes: dict[str, str], resolution: dict, not_imported: set[str] = frozenset()) -> dict:
    """The card's count of the tests that need a module the environment lacks (node id -> module, from the suite's
    run), by module, each with the distribution that would have provided it where the environment left one out
    (one that did not build, with its error; one that did not import), or, for the compiled modules of the package
    that a build of its pure-Python fallback does not import (*not_imported*), that choice."""
    by_module: dict[str, dict] = {}
    for node, module in sorted(nodes.items()):
        entry = by_module.setdefault(module, {"tests": 0, "modules_not_collected": [], "left_out": ""})
        if "::" in node:
            entry["tests"] += 1
        else:  # a test module that did not collect, or was skipped whole: its tests were never listed
            entry["modules_not_collected"].append(node)
    for module, entry in by_module.items():
        top = module.split(".")[0]
        if module in not_imported:
            entry["left_out"] = FALLBACK_TESTED
            continue
        built = next((e for e in resolution.get("not_built", []) if top in e.get("modules", [])), None)
        if built is not None:
            entry["left_out"] = f"{built['requirement']}: does not build here ({built['error']})"
            if built.get("debian_package"):
                entry["left_out"] += f"; the Debian package {built['debian_package']} provides {built['missing']}"
        else:
            unimportable = resolution.get("unimportable", {})
            name = next((n for n in unimportable if n.lower().replace("-", "_") == top), None)
            if name is not None:
                entry["left_out"] = f"{name}: does not import here ({unimportable[name]})"
    return {
        **_counted(by_module.values()),
        "compiled_not_imported": _counted(e for m, e in by_module.items() if m in not_imported),
        "by_module": by_module,
    }


def _counted(entries: Iterable[dict]) -> dict:
    tests = modules = 0
    for entry in entries:
        tests, modules = tests + entry["tests"], modules + len(entry["modules_not_collected"])
    return {"tests": tests, "modules_not_collected": modules}


def record(result: SuiteRun) -> dict:
    """The run as the build caches it and its card shows it."""
    return {
        "collected": result.collected,
        "outcomes": result.outcomes,
        "runs": result.runs,
        "crashed_units": [dataclasses.asdict(u) for u in result.crashed_units],
        "retried": result.retried,
        "not_runnable": not_runnable(result),
    }
