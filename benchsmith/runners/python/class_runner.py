"""Run a RepoClassBench task's candidates: the class removed, the candidate where it was, the directives run.

The test pass rate (TR) is the fraction of the task's directives
(EXPECTED_TO_PASS) that pass; the task passes when all do.

Each candidate runs in a jail of its own (``benchsmith.runners.sandbox.jail``): a
copy-on-write layer over the task's public view (the pristine tree without the
class, ``benchsmith.runners.python.public_view``), the candidate's module and a test file
carrying two sentinel tests laid over it read-only, and, read-only, the
repository's environment, its base interpreter and our pytest plugin; nothing
else of the machine's files but the system. Whatever a run writes vanishes
with it, so no candidate can rig another's verdict, and nothing is read back
from the tree: outcomes arrive through a pipe (``benchsmith.runners.python.pytest_run``)
and are held against what was asked, sentinels included
(``benchsmith.runners.sandbox.outcomes``), since the candidate runs in the process that reports
them. Where no mount namespace exists the view is really copied per candidate
and removed after it, and the cache folders holding the ground truth are
closed to sandbox uids by their modes.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import hashlib
import io
import json
import logging
import os
import random
import re
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import tokenize
from dataclasses import dataclass
from pathlib import Path

from benchsmith.core.bounds import PARSER_LIMITS, unreadable
from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import ClassBenchTask
from benchsmith.core.verdict import Verdict
from benchsmith.runners.python.public_view import python_public_view
from benchsmith.runners.python.pytest_run import (
    OWN_CONFIG,
    PluginReport,
    describe_missing,
    installed_as_in_tox,
    is_runner_module,
    missing_imports,
    plugin_dir,
    pytest_argv,
    pytest_environ,
    refused_calls,
    run_reporting,
    runs_its_own_pytest,
)
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.runners.sandbox import services, streams
from benchsmith.runners.sandbox.outcomes import Expected, Sentinel, check_report, plausible_names, shuffled
from benchsmith.sources.python.environment import runtime
from benchsmith.sources.python.removal import insert_class
from benchsmith.sources.python.repo import resolve

_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.ASCII)  # PEP 263


def python_dedup_key(code: str) -> str:
    """What makes two candidates the same program: their tokens as Python reads them, hashed.

    Every token counts by its kind and text, except that NEWLINE, INDENT and
    DEDENT count by kind alone: they are the block structure, and the width of
    an indent does not change it. Comments, blank lines (NL) and the encoding
    marker do not count. The sequence is encoded as a JSON list, so no two
    sequences share an encoding. Line ends are read as the compiler reads them
    (``\\r\\n`` and a lone ``\\r`` end a line, and a comment; ``tokenize`` alone
    takes a lone ``\\r`` for an error token). Code that does not compile
    (``tokenize`` alone lets a TabError through), or whose first lines hold a
    coding declaration (a comment that changes meaning where the class opens
    its module), is keyed by its exact bytes: only an identical candidate
    shares its verdict.
    """
    exact = hashlib.sha256(b"python-bytes\0" + code.encode("utf-8", errors="surrogatepass")).hexdigest()
    text = code.replace("\r\n", "\n").replace("\r", "\n")  # the compiler's universal newlines
    if unreadable(code) or any(_CODING.match(line) for line in text.strip("\n").split("\n")[:2]):
        return exact
    structural = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
    try:
        ast.parse(text)
        tokens = [
            [tokenize.tok_name[t.type], "" if t.type in structural else t.string]
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING)
        ]
    # SyntaxError covers IndentationError and TabError; PARSER_LIMITS a degenerate shape the scan does not measure
    except (tokenize.TokenError, SyntaxError, ValueError, *PARSER_LIMITS):
        return exact
    if any(kind == "ERRORTOKEN" for kind, _ in tokens):
        return exact
    return hashlib.sha256(b"python-tokens\0" + json.dumps(tokens).encode("ascii")).hexdigest()


def defines_class(code: str, class_name: str) -> tuple[bool, str]:
    """Whether *code* parses and defines the module-level class *class_name*, with the reason when not."""
    if too_much := unreadable(code):
        return False, f"does not parse: {too_much}"
    try:
        module = ast.parse(code)
    except SyntaxError as exc:
        return False, f"does not parse: {exc.msg} (line {exc.lineno})"
    except PARSER_LIMITS as exc:
        return False, f"does not parse: the harness's parser gave up ({type(exc).__name__})"
    if not any(isinstance(n, ast.ClassDef) and n.name == class_name for n in module.body):
        return False, f"does not define the class {class_name}"
    return True, ""


log = logging.getLogger(__name__)

BYTECODE_FORMAT = 1
TWINS = 8  # inverted twins per run, of directives drawn at random from the files carrying the sentinels
HOSTS = 2  # directive files carrying sentinels in one run: a forger cannot spare the one file that has them
CALIBRATION_SECONDS = 1800.0  # the ground truth's calibration run at most (trusted code, a suite's worth of tests)
RUN_ALLOWANCE = 2.0  # a candidate's run may take this many times the ground truth's, where that exceeds --timeout
# Python threads' stack for a task whose ground truth's run exhausts threads or memory with glibc's 8 MiB default:
# litestar's TestClient leaves 939 threads alive, 7.5 GiB of stacks against a run's 4 GiB. Only such tasks get it: a
# thread recursing past a raised recursion limit needs more (Python 3.8 crashed at 5,000 frames in 2 MiB).
SMALL_THREAD_STACK = 2 << 20
_EXHAUSTED = ("can't start new thread", "MemoryError")
TAMPERED = "benchsmith::tampered"  # directcov's report that the candidate swapped a collected test for its own code
# Run as root by the environment's interpreter on the view (its files are read and compiled, never run): every module
# compiled into a pycache prefix under the name it has where the jail lays the view, as a pyc checked against its
# source's hash (the candidate's module, laid over the view's, never passes for it, whatever its size and time), and
# as pytest's assertion-rewritten pyc (which pytest checks by time and size: of test files, which runs never change).
_COMPILE_VIEW = """
import ast, importlib.util, marshal, os, py_compile, sys
view, at, prefix = sys.argv[1:4]
sys.pycache_prefix = prefix
try:
    from _pytest.assertion.rewrite import PYC_TAIL, rewrite_asserts
except Exception:
    PYC_TAIL = None
for folder, dirs, files in os.walk(view):
    for name in files:
        if not name.endswith('.py'):
            continue
        source = os.path.join(folder, name)
        target = os.path.join(at, os.path.relpath(source, view))
        try:
            py_compile.compile(source, cfile=importlib.util.cache_from_source(target), dfile=target, doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
            if PYC_TAIL is None:
                continue
            with open(source, 'rb') as handle:
                text = handle.read()
            tree = ast.parse(text, filename=target)
            rewrite_asserts(tree, text, target, None)
            code = compile(tree, target, 'exec', dont_inherit=True)
        except Exception:
            continue
        info = os.stat(source)
        header = importlib.util.MAGIC_NUMBER + bytes(4) + (int(info.st_mtime) & 0xFFFFFFFF).to_bytes(4, 'little')
        header += (info.st_size & 0xFFFFFFFF).to_bytes(4, 'little')
        pyc = os.path.join(prefix, os.path.dirname(target).lstrip(os.sep), name[:-3] + PYC_TAIL)
        os.makedirs(os.path.dirname(pyc), exist_ok=True)
        with open(pyc + '.tmp', 'wb') as handle:
            handle.write(header + marshal.dumps(code))
        os.replace(pyc + '.tmp', pyc)
"""


def candidate_report_limit(tests: int) -> int:
    """The report a candidate's run may send: one line per asked test, each with a message of at most
    ``MESSAGE_LIMIT`` characters (JSON escapes take up to six bytes each), and room to spare; never more than 32 MiB,
    which the harness holds in memory."""
    return min(max(1 << 20, tests * 16 << 10), 32 << 20)


@dataclass(frozen=True)
class _SentinelHost:
    """A directive test file that can carry the sentinels: its path, and how its test functions are named."""

    path: str
    prefix: str  # "test_" or "test" (then camel case), as its own module-level tests are named
    names: tuple[str, ...]  # every module-level name it defines
    # its directives that an inverted twin can call as they are: module-level functions with no argument and no
    # decorator, and test methods of a class the file binds (``Class::method``; red team round 7: methods had none,
    # so a report that turned class tests' failures into passes met no twin), kept only where calibration agrees
    twins: tuple[str, ...] = ()


class TaskRunner:
    """Runs candidates of one task in one sandbox slot, each in a jail of its own over the task's public view."""

    def __init__(
        self,
        task: ClassBenchTask,
        slot: int,
        limits: sandbox.Limits,
        logs: Path,
        lane: int = 0,
        second_opinion: bool = False,
    ):
        self.task = task
        # On request, every plausible verdict is judged again in a run arranged otherwise (other sentinels and twins,
        # another order of the tests and of their files). One run already carries sentinels in up to HOSTS files.
        self.second_opinion = second_opinion
        self.slot = slot
        self.lane = lane
        self.limits = limits
        self.thread_stack = 0  # 0: the interpreter's default; see SMALL_THREAD_STACK
        self.logs = logs
        # The environment the dataset was built in: its recorded lock, installed as it is (a dataset built before
        # benchsmith recorded one resolves as of the repository's own date).
        self.repo = resolve(task.repo, task.commit or None, locked=task.environment)
        self.view = python_public_view(self.repo, task.file_path, task.class_name)
        self.removed = (self.view / task.file_path).read_text(encoding="utf-8", errors="surrogateescape")
        self.runtime = runtime(self.repo.python)
        unavailable = services.prepare(self.repo.services)
        if unavailable:  # every directive would fail for want of it, whatever the candidate
            raise BenchsmithError(
                f"{task.task_id}: its tests need {'; '.join(f'{k}: {why}' for k, why in unavailable.items())}"
            )
        self.plugin = plugin_dir()
        # The slot is leased: nothing else uses its folder, and what an interrupted run (or an older version's shared
        # work copy, which held the ground truth) left there goes.
        self.scratch = cache_dir("classbench", "eval", f"slot-{slot}")
        shutil.rmtree(self.scratch, ignore_errors=True)
        self.scratch.mkdir(mode=0o755, parents=True)
        if not sandbox.isolation()["mount_namespace"]:  # the copies are made there, for the sandbox uid to reach
            sandbox.check_reachable(self.scratch)
        # Where the jail lays the view: in a mount namespace of its own each run has the same path (so compiled
        # modules can be shared); without one, the slot's own folder, where the copy is really made.
        jailed = sandbox.isolation()["mount_namespace"]
        self.tree = cache_dir("classbench", "eval") / "tree" if jailed else self.scratch / "tree"
        self.rng = random.Random(secrets.randbits(64))  # which file carries the sentinels, their names: unpredictable
        self.hosts = _sentinel_hosts(self.view, list(task.test_directives), task.file_path)
        self.files = sorted({d.split("::", 1)[0] for d in task.test_directives})
        self.pycache = self._bytecode()
        self.facts = self._test_facts()
        self.hosts = self._calibrated(self.hosts)

    def _calibrated(self, hosts: list[_SentinelHost]) -> list[_SentinelHost]:
        """*hosts* with only the twins that disagree with their directive when the ground truth runs (trusted code):
        a test that depends on running once (a file it creates, a counter) makes no twin. Every host carries all its
        twins in one run with all the directives, as a judged run's hosts carry theirs: one run per host took
        litestar's TestClient (859 directives in 158 files) hours. A task without twins has the run all the same, for
        the time and threads its directives need (pydicom's Sequence: no twin, 190 s against --timeout 120)."""
        carriers = {host: list(host.twins) for host in hosts if host.twins}
        # The ground truth is trusted, so its run may take a suite's time; what it takes sets the candidates' limits.
        limits = dataclasses.replace(
            self.limits,
            wall_seconds=max(self.limits.wall_seconds, CALIBRATION_SECONDS),
            cpu_seconds=max(self.limits.cpu_seconds, int(2 * CALIBRATION_SECONDS)),
        )
        name = "calibration"
        outcome, report, sentinels = self._run_in_fresh_folder(
            reference_solution(self.task), name, list(self.task.test_directives), carriers=carriers, limits=limits
        )
        if any(marker in streams.read_tail(self.logs / f"{name}.log") for marker in _EXHAUSTED):
            log.info(
                "%s: the ground truth's run ran out of threads or memory: its runs get %d MiB thread stacks",
                self.task.task_id,
                SMALL_THREAD_STACK >> 20,
            )
            self.thread_stack = SMALL_THREAD_STACK
            name = "calibration-small-stacks"
            outcome, report, sentinels = self._run_in_fresh_folder(
                reference_solution(self.task), name, list(self.task.test_directives), carriers=carriers, limits=limits
            )
        refused = sorted(set(refused_calls(report.messages).values()))
        if refused:
            # A published task (a build drops such directives): whatever does what the ground truth does fails them
            log.warning(
                "%s: the candidate guard refused the ground truth %s; the directives that need it fail every "
                "candidate that does the same",
                self.task.task_id,
                ", ".join(refused),
            )
        if not outcome.timed_out and RUN_ALLOWANCE * outcome.seconds > self.limits.wall_seconds:
            # Its directives, twins included, took that long with the right class: a candidate gets as long again, and
            # once more (litestar's TestClient: 859 directives whose clients leak threads, 100 s with the ground truth).
            log.info(
                "%s: the ground truth's run took %.0f s: each candidate's run may take %.0f s (--timeout %.0f)",
                self.task.task_id,
                outcome.seconds,
                RUN_ALLOWANCE * outcome.seconds,
                self.limits.wall_seconds,
            )
            self.limits = dataclasses.replace(
                self.limits,
                wall_seconds=RUN_ALLOWANCE * outcome.seconds,
                cpu_seconds=max(self.limits.cpu_seconds, int(2 * RUN_ALLOWANCE * outcome.seconds)),
            )
        outcomes = dict(report.tests)
        kept = {
            (s.name.split("::", 1)[0], s.inverts.split("::", 1)[1])
            for s in sentinels
            if s.inverts and outcomes.get(s.inverts) == "passed" and outcomes.get(s.name) == "failed"
        }
        calibrated = []
        for host in hosts:
            twins = tuple(t for t in host.twins if (host.path, t) in kept)
            if len(twins) < len(host.twins):
                log.info(
                    "%s: %d of %d directives make no inverted twin (they do not pass twice under the ground truth)",
                    host.path,
                    len(host.twins) - len(twins),
                    len(host.twins),
                )
            calibrated.append(dataclasses.replace(host, twins=twins))
        return calibrated

    def evaluate(self, code: str, name: str) -> Verdict:
        started = time.monotonic()
        directives = list(self.task.test_directives)
        ok, reason = defines_class(code, self.task.class_name)
        if not ok:
            return Verdict(
                "uncompilable",
                tests_failed=len(directives),
                failing_tests=directives,
                reason=reason,
                seconds=time.monotonic() - started,
            )
        verdict = self._judge(code, name, directives, started, second=False)
        if verdict.status == "plausible" and self.second_opinion:
            again = self._judge(code, f"{name}.second", directives, started, second=True)
            if again.status != "plausible":
                again.reason = f"second opinion (other sentinels, another order): {again.reason}"
            verdict = again
        return verdict

    def _judge(self, code: str, name: str, directives: list[str], started: float, second: bool) -> Verdict:
        outcome, report, sentinels = self._run_in_fresh_folder(code, name, directives, second)
        if not outcome.timed_out and outcome.returncode != 0 and not report.tests and _empty(self.logs / f"{name}.log"):
            # The process ended before pytest wrote a line: the jail did not come up, or it was killed from outside
            # (a busy machine). Judged again, in a fresh process with fresh sentinels; a candidate that kills its
            # process as it is imported ends the same way twice, and is judged on that.
            log.warning(
                "%s: %s: the test process ended (exit %s) before pytest wrote anything; running it again",
                self.task.task_id,
                name,
                outcome.returncode,
            )
            with contextlib.suppress(OSError):
                (self.logs / f"{name}.log").rename(self.logs / f"{name}.first.log")
            outcome, report, sentinels = self._run_in_fresh_folder(code, name, directives, second)
        verdict = self._verdict(outcome, report, sentinels, directives, name, time.monotonic() - started)
        if outcome.reached and verdict.status != "plausible":  # the bound it reached is why, before what it did
            verdict.reason = f"{outcome.reached}; {verdict.reason}" if verdict.reason else outcome.reached
        return verdict

    def _verdict(
        self,
        outcome: sandbox.ProcessExit,
        report: PluginReport,
        sentinels: list[Sentinel],
        directives: list[str],
        name: str,
        seconds: float,
    ) -> Verdict:
        """The verdict of one run of *directives*: its report checked against what was asked and planted."""
        if outcome.timed_out:
            return Verdict(
                "timeout",
                compiled=True,
                tests_failed=len(directives),
                failing_tests=directives,
                reason="the directives did not finish in time",
                path="pytest",
                seconds=seconds,
            )
        ran = {node.split("::", 1)[0] for node, _ in report.tests if "::" in node}
        # Where no test of a file carrying them ran (it failed to collect, or the process died first), its sentinels
        # are a crash, not a forgery. Its directives are missing, hence failed, so silencing a file gains a forger
        # nothing.
        sentinels = [s for s in sentinels if s.name.split("::", 1)[0] in ran]
        # One request, one group: every directive and sentinel is due, whatever the others give.
        expected = Expected([[(*directives, *(s.name for s in sentinels))]], sentinels, run_all=True)
        # the plugin's refusals name no test; it sends one for each test it refuses, counted once here
        checked = check_report([(node, outcome) for node, outcome in report.tests if node != TAMPERED], expected)
        forged = f"forged: the report is not our plugin's ({report.malformed})" if report.malformed else checked.forged
        tampered = [message for node, message in report.messages.items() if node == TAMPERED]
        if tampered and not forged:
            forged = f"forged: {tampered[0]}"
        if forged:
            return Verdict(
                "wrong",
                compiled=True,
                tests_failed=len(directives),
                failing_tests=directives,
                reason=forged,
                path="pytest",
                seconds=seconds,
            )
        failing = checked.failing
        verdict = Verdict(
            "wrong" if failing else "plausible",
            compiled=True,
            tests_passed=len(directives) - len(failing),
            tests_failed=len(failing),
            failing_tests=failing,
            path="pytest",
            seconds=seconds,
        )
        if failing:
            verdict.messages = _failure_messages(failing, report.messages)
            first = failing[0]
            verdict.reason = (
                f"{len(failing)} of {len(directives)} directives fail, first {first} ({checked.outcomes[first]})"
            )
            if checked.outcomes[first] == "missing":  # not collected: say why when an import is what failed
                missing = missing_imports(streams.read_tail(self.logs / f"{name}.log"), self.tree)
                if missing:
                    verdict.reason += f"; {describe_missing(missing[:1])}"
        return verdict

    def _run_in_fresh_folder(
        self,
        code: str,
        name: str,
        directives: list[str],
        second: bool = False,
        carriers: dict[_SentinelHost, list[str]] | None = None,
        limits: sandbox.Limits | None = None,
    ):
        """:meth:`_run` in a folder of its own, removed after the run."""
        folder = Path(tempfile.mkdtemp(prefix="run-", dir=self.scratch))
        try:
            return self._run(code, name, folder, directives, second, carriers, limits)
        finally:
            shutil.rmtree(folder, ignore_errors=True)  # fd-based: never follows a link the sandbox planted

    def _run(
        self,
        code: str,
        name: str,
        folder: Path,
        directives: list[str],
        second: bool = False,
        carriers: dict[_SentinelHost, list[str]] | None = None,
        limits: sandbox.Limits | None = None,
    ):
        """One jailed pytest run of *code*; *folder* (root's, fresh) holds what the harness lays into the jail. The
        sentinels go into *carriers* (calibration: each host with its twins), else into hosts drawn at random."""
        folder.chmod(0o755)  # without a mount namespace the sandbox uid walks through it to its copy
        inputs = folder / "in"  # written by the harness, read-only to the sandbox, never read back
        inputs.mkdir(mode=0o755)
        tree = self.tree
        module = inputs / "module.py"
        module.write_text(insert_class(self.removed, code), encoding="utf-8", errors="surrogateescape")
        placed = [(module, tree / self.task.file_path)]
        sentinels: list[Sentinel] = []
        if carriers is None:
            carriers = draw_carriers(self.hosts, self.rng)
        heads = {}  # each carrier's path: the length of its test file's text, whose facts its run reads (directcov)
        for number, (carrying, twins) in enumerate(carriers.items()):
            carrier = inputs / f"sentinels-{number}.py"
            sentinels += self._write_sentinels(carrying, carrier, twins)
            placed.append((carrier, tree / carrying.path))
            heads[carrying.path] = (self.view / carrying.path).stat().st_size
        selection = inputs / "select"
        asked = [*directives, *(s.name for s in sentinels)]
        selection.write_text("\n".join(shuffled(asked, self.rng)) + "\n", encoding="utf-8")
        for path in inputs.iterdir():
            path.chmod(0o644)
        jail = self._jail(read_only=(self.pycache, self.facts, inputs), placed=tuple(placed))
        env = {
            **self._env(self.pycache),
            "PYTHONDONTWRITEBYTECODE": "1",
            "BENCHSMITH_SELECT": str(selection),
            "BENCHSMITH_TEST_FACTS": str(self.facts),
            "BENCHSMITH_CARRIERS": json.dumps(heads),
        }
        if not is_runner_module(self.repo, self.task.file_path):  # its code is refused the runner (directcov)
            env["BENCHSMITH_CANDIDATE"] = str(tree / self.task.file_path)
        argv = self._argv() + sorted({node.split("::", 1)[0] for node in asked}, reverse=second)
        outcome, report = run_reporting(
            argv,
            tree,
            self.slot,
            limits or self.limits,
            self.logs / f"{name}.log",
            env,
            jail=jail,
            lane=self.lane,
            report_limit=candidate_report_limit(len(asked)),
            started_services=self.repo.services,
        )
        return outcome, report, sentinels

    def _jail(
        self,
        read_only: tuple[Path, ...] = (),
        writable: tuple[Path, ...] = (),
        placed: tuple[tuple[Path, Path], ...] = (),
    ) -> sandbox.Jail:
        """The view at the tree's place; the environment, its interpreter and our plugin read-only; nothing else."""
        return sandbox.Jail(
            read_only=(self.runtime.env, *self.runtime.prefixes, self.plugin, *read_only),
            writable=writable,
            trees=((self.view, self.tree),),
            placed=placed,
            hidden=self.runtime.hidden,
        )

    def _env(self, pycache: Path) -> dict[str, str]:
        env = {
            "PYTHONPATH": os.pathsep.join([str(self.plugin), str(self.tree / self.repo.import_root)]),
            **pytest_environ(self.repo, self.tree),
            **installed_as_in_tox(self.repo, self.tree),
        }
        # pytest's own suite tests where pytest writes the bytecode of the modules it rewrites (sys.pycache_prefix,
        # else beside them): a read-only prefix would answer for it. Its runs compile for themselves.
        if not runs_its_own_pytest(self.repo):
            env["PYTHONPYCACHEPREFIX"] = str(pycache)
        if self.thread_stack:
            env["BENCHSMITH_THREAD_STACK"] = str(self.thread_stack)
        return env

    def _argv(self) -> list[str]:
        config = self.tree / OWN_CONFIG if (self.view / OWN_CONFIG).is_file() else None
        return pytest_argv(self.repo, self.tree, config)

    def _write_sentinels(self, host: _SentinelHost, carrier: Path, twins: list[str]) -> list[Sentinel]:
        """*host*'s text with tests appended: two alike in shape (one must pass, one must fail), and inverted twins of
        its directives *twins* (each calls one and passes if and only if it fails). Their names are made of the file's
        own words, so that nothing but their bodies tells them from the file's tests."""
        stems = [n.removeprefix(host.prefix) for n in host.names]
        while True:
            made = plausible_names(stems, 2 + len(twins), self.rng, "snake" if host.prefix.endswith("_") else "camel")
            names = [host.prefix + n for n in made]
            if not set(names) & set(host.names):
                break
        words = [w for w in stems if w.isidentifier() and 3 <= len(w) <= 24] or ["value", "order", "result"]
        methods = sum("::" in twin for twin in twins)
        while True:  # a twin of a method is a method of a subclass of its class, named like the file's classes
            made = plausible_names([*host.names, *(t.split("::")[0] for t in twins)], methods, self.rng, "camel")
            subclasses = ["Test" + n for n in made]
            if not set(subclasses) & set(host.names):
                break
        classes = iter(subclasses)
        functions, sentinels = [], []
        for number, test in enumerate(names):
            word = self.rng.choice(words)
            passes = number == 0
            if number >= 2 and "::" in twins[number - 2]:  # a method, through a subclass of its class
                real = twins[number - 2]
                owner, method = real.split("::", 1)
                subclass = next(classes)
                functions.append(
                    f"class {subclass}({owner}):\n    def {test}(self, _directive={owner}.{method}):\n"
                    f"        try:\n            _directive(self)\n        except BaseException:\n            return\n"
                    f"        raise AssertionError({real + ' passed'!r})\n"
                )
                sentinels.append(Sentinel(f"{host.path}::{subclass}::{test}", False, inverts=f"{host.path}::{real}"))
                continue
            if number >= 2:  # calls a directive as it runs, and passes if and only if it does not
                real = twins[number - 2]
                # bound to its directive as it is defined: a name rebound later (a planted __getattr__) changes nothing
                functions.append(
                    f"def {test}(_directive={real}):\n    try:\n        _directive()\n    except BaseException:\n"
                    f"        return\n    raise AssertionError({real + ' passed'!r})\n"
                )
                sentinels.append(Sentinel(f"{host.path}::{test}", False, inverts=f"{host.path}::{real}"))
                continue
            size = len(word) if passes else len(word) + self.rng.choice([-2, -1, 1, 2, 3])
            functions.append(f"def {test}():\n    assert len({word!r}) == {size}\n")
            sentinels.append(Sentinel(f"{host.path}::{test}", passes))
        order = shuffled([str(n) for n in range(len(functions))], self.rng)
        text = (self.view / host.path).read_bytes()
        tail = "\n\n" + "\n\n".join(functions[int(i)] for i in order)
        carrier.write_bytes(text + (b"" if text.endswith(b"\n") or not text else b"\n") + tail.encode("ascii"))
        return sentinels

    def _bytecode(self) -> Path:
        """A pycache prefix for this view at this tree's place, made once and read-only to every run: compiling the
        project, its tests (rewritten by pytest) and what they import took half of each run.

        One collection run of the directive files in the jail, as the sandbox uid, writes the compiled environment
        and standard library (what pytest needs to start); it executes the repository's own code on the view, never
        a candidate's, never the ground truth. Then, the prefix root's and read-only, root compiles every module of
        the view into it (``_COMPILE_VIEW``), over whatever the run wrote under those names.
        """
        # the plugin's folder is named by its content (plugin_dir): its bytecode is compiled into the prefix too
        identity = (
            f"{BYTECODE_FORMAT}\0{self.view.name}\0{self.tree}\0{os.path.realpath(self.repo.python)}\0{self.plugin}"
        )
        root = cache_dir("classbench", "pycache")
        target = root / hashlib.sha256(identity.encode()).hexdigest()[:24]
        if target.is_dir():
            return target
        staging = Path(tempfile.mkdtemp(prefix=".building-", dir=root))
        try:
            staging.chmod(0o755)
            sandbox.give_to_sandbox(staging, self.slot, self.lane)
            run_reporting(
                [*self._argv(), "--collect-only", *self.files],
                self.tree,
                self.slot,
                self.limits,
                self.logs / "bytecode-warm-up.log",
                self._env(staging),
                jail=self._jail(writable=(staging,)),
                lane=self.lane,
                started_services=self.repo.services,
            )
            _lock_down(staging)
            compiled = subprocess.run(
                [str(self.repo.python), "-I", "-c", _COMPILE_VIEW, str(self.view), str(self.tree), str(staging)],
                capture_output=True,
                text=True,
                timeout=600,
            )
            if compiled.returncode != 0:
                log.warning(
                    "%s: compiling the view failed; its runs compile it themselves: %s",
                    self.view,
                    compiled.stderr.strip()[-300:],
                )
            _drop_unhashed(staging, self.tree / self.task.file_path)
            _lock_down(staging)
            try:
                staging.rename(target)
            except OSError:  # another process made the same meanwhile
                if not target.is_dir():
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return target

    def _test_facts(self) -> Path:
        """The folder of what our plugin reads off each test file (``benchsmith_directcov._read_test_file``), for
        this plugin and this interpreter, root's and read-only to every run: the test files of the directives' folders
        are read once here, by the environment's interpreter, rather than parsed in every candidate's run.

        A file's facts are named by a hash of the plugin's bytes and the file's: a run finds those of the very bytes it
        reads, or none, and then parses the file itself (a sentinel carrier, whose text is new in every run)."""
        plugin = self.plugin / "benchsmith_directcov.py"
        digest = hashlib.sha256(plugin.read_bytes()).digest()
        python = str(self.repo.python)  # the environment's (its real path is the base interpreter's: no pytest there)
        folder = cache_dir("classbench", "facts") / hashlib.sha256(digest + python.encode()).hexdigest()[:24]
        folders = {(self.view / file).parent for file in self.files}
        paths = sorted({path for each in folders for path in each.glob("*.py") if path.is_file()})
        if paths:  # the plugin skips those whose facts are there: only it names them (_facts_name)
            folder.mkdir(parents=True, exist_ok=True)
            folder.chmod(0o755)
            done = subprocess.run(
                [python, "-I", str(plugin), str(folder), *map(str, paths)],
                cwd=self.view,
                env={"PATH": os.environ.get("PATH", "")},
                capture_output=True,
                text=True,
                timeout=600,
            )
            if done.returncode != 0:
                log.warning(
                    "%s: reading the test files' facts failed; its runs parse them: %s",
                    self.view,
                    done.stderr.strip()[-300:],
                )
        return folder

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)


def _lock_down(prefix: Path) -> None:
    """Make *prefix*, which a sandbox uid wrote, root's and read-only, with only folders and regular files in it."""
    for folder, dirs, files in os.walk(prefix):  # never follows links: they are removed, not entered
        for name in [*dirs, *files]:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            if stat.S_ISDIR(info.st_mode):
                os.chmod(path, 0o755)
            elif stat.S_ISREG(info.st_mode):
                os.chmod(path, 0o644)
            else:
                os.unlink(path)
                continue
            if os.geteuid() == 0:
                os.lchown(path, 0, 0)
    prefix.chmod(0o755)
    if os.geteuid() == 0:
        os.lchown(prefix, 0, 0)


def _drop_unhashed(prefix: Path, module: Path) -> None:
    """No pyc of *module* (the one candidates replace) may be checked by time and size rather than by its source's
    hash: a candidate's module of the same size, written in the same second, would pass for the view's."""
    pyc = prefix / str(module.parent).lstrip(os.sep) / f"{module.stem}.{sys.implementation.cache_tag}.pyc"
    if pyc.is_file():
        with pyc.open("rb") as handle:
            flags = int.from_bytes(handle.read(8)[4:8], "little")
        if not flags & 0b1:  # PEP 552: bit 0 set means hash-based
            pyc.unlink()


def _failure_messages(failing: list[str], messages: dict[str, str]) -> dict[str, str]:
    """Each failing directive's message: its own, else its file's (a module that failed to collect)."""
    found = {}
    for directive in failing:
        message = messages.get(directive) or messages.get(directive.split("::", 1)[0], "")
        if message:
            found[directive] = message
    return found


def draw_carriers(hosts: list[_SentinelHost], rng: random.Random) -> dict[_SentinelHost, list[str]]:
    """The files that carry one run's sentinels, each with the directives that get an inverted twin there: up to
    ``HOSTS`` files and ``TWINS`` twins among them, drawn afresh for every run."""
    chosen = rng.sample(hosts, k=min(len(hosts), HOSTS))
    pool = [(host, twin) for host in chosen for twin in host.twins]
    drawn = rng.sample(pool, k=min(len(pool), TWINS))
    return {host: [twin for owner, twin in drawn if owner == host] for host in chosen}


def _sentinel_hosts(view: Path, directives: list[str], module_path: str) -> list[_SentinelHost]:
    """Directive test files whose own module-level tests are named in one style, so that pytest collects appended
    functions named alike; every such file when none of them has module-level directives."""
    functions: dict[str, set[str]] = {}
    for directive in directives:
        parts = directive.split("::")
        if parts[0].endswith(".py") and parts[0] != module_path:
            functions.setdefault(parts[0], set())
            if len(parts) == 2:
                functions[parts[0]].add(parts[1].split("[", 1)[0])
    hosts = []
    for path, names in sorted(functions.items()):
        try:
            tree = ast.parse((view / path).read_bytes())
        except (OSError, SyntaxError, ValueError):
            continue
        assigned = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        if "pytestmark" in assigned:
            continue  # module-wide marks (parametrize, xfail) would reach the sentinels too
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        defined = tuple(sorted({n.name for n in tree.body if isinstance(n, kinds)} | assigned))
        prefixes = {"test_" if n.startswith("test_") else "test" if n.startswith("test") else "" for n in names}
        if prefixes - {"test_", "test"} or len(prefixes) > 1:
            continue  # tests named another way (a python_functions of its own): appended ones might not be collected
        callable_as_is = tuple(
            sorted(
                n.name
                for n in tree.body
                if isinstance(n, ast.FunctionDef)
                and n.name in names
                and not n.decorator_list
                and not (n.args.args or n.args.posonlyargs or n.args.kwonlyargs or n.args.vararg or n.args.kwarg)
                and f"{path}::{n.name}" in directives
            )
        )
        bound = {n.name for n in tree.body if isinstance(n, ast.ClassDef)} | {
            (alias.asname or alias.name).split(".")[0]
            for n in tree.body
            if isinstance(n, (ast.Import, ast.ImportFrom))
            for alias in n.names
        }
        methods = tuple(
            sorted(
                directive.split("::", 1)[1]
                for directive in directives
                if directive.startswith(f"{path}::")
                and len(parts := directive.split("::")) == 3
                and parts[1] in bound
                and parts[1].isidentifier()
                and parts[2].isidentifier()
            )
        )
        prefix = prefixes.pop() if prefixes else "test_"
        hosts.append((bool(names), _SentinelHost(path, prefix, defined, callable_as_is + methods)))
    with_functions = [h for has, h in hosts if has]
    return with_functions or [h for _, h in hosts]


def reference_solution(task: ClassBenchTask) -> str:
    """What a perfect answer looks like: the imports removed with the class, then the class."""
    return "\n".join(task.imports) + ("\n\n" if task.imports else "") + task.ground_truth_class


def _empty(path: Path) -> bool:
    try:
        return path.stat().st_size == 0
    except OSError:
        return True
