"""Run a RepoClassBench task's candidates: the class removed, the candidate where it was, the directives run.

The test pass rate (TR) is the fraction of the task's directives
(EXPECTED_TO_PASS) that pass; the task passes when all do.

Each candidate runs in a jail of its own (``harness.sandbox``): a
copy-on-write layer over the task's public view (the pristine tree without the
class, ``builders.classbench.view``), the candidate's module and a test file
carrying two sentinel tests laid over it read-only, and, read-only, the
repository's environment, its base interpreter and our pytest plugin; nothing
else of the machine's files but the system. Whatever a run writes vanishes
with it, so no candidate can rig another's verdict, and nothing is read back
from the tree: outcomes arrive through a pipe (``builders.classbench.testrun``)
and are held against what was asked, sentinels included
(``harness.outcomes``), since the candidate runs in the process that reports
them. Where no mount namespace exists the view is really copied per candidate
and removed after it, and the cache folders holding the ground truth are
closed to sandbox uids by their modes.
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
import os
import random
import re
import secrets
import shutil
import tempfile
import time
import tokenize
from dataclasses import dataclass
from pathlib import Path

from benchsmith.config import cache_dir
from benchsmith.schema import ClassBenchTask
from builders.classbench.removal import insert_class
from builders.classbench.repo import resolve, runtime
from builders.classbench.testrun import OWN_CONFIG, plugin_dir, pytest_argv, run_reporting
from builders.classbench.view import public_view
from harness import sandbox
from harness.java_runner import Verdict
from harness.outcomes import Expected, Sentinel, check_report, plausible_names, shuffled


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
    if any(_CODING.match(line) for line in text.strip("\n").split("\n")[:2]):
        return exact
    structural = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
    try:
        ast.parse(text)
        tokens = [
            [tokenize.tok_name[t.type], "" if t.type in structural else t.string]
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING)
        ]
    except (tokenize.TokenError, SyntaxError, ValueError):  # SyntaxError covers IndentationError and TabError
        return exact
    if any(kind == "ERRORTOKEN" for kind, _ in tokens):
        return exact
    return hashlib.sha256(b"python-tokens\0" + json.dumps(tokens).encode("ascii")).hexdigest()


def defines_class(code: str, class_name: str) -> tuple[bool, str]:
    """Whether *code* parses and defines the module-level class *class_name*, with the reason when not."""
    try:
        module = ast.parse(code)
    except SyntaxError as exc:
        return False, f"does not parse: {exc.msg} (line {exc.lineno})"
    if not any(isinstance(n, ast.ClassDef) and n.name == class_name for n in module.body):
        return False, f"does not define the class {class_name}"
    return True, ""


@dataclass(frozen=True)
class _SentinelHost:
    """A directive test file that can carry the sentinels: its path, and how its test functions are named."""

    path: str
    prefix: str  # "test_" or "test" (then camel case), as its own module-level tests are named
    names: tuple[str, ...]  # every module-level name it defines


class TaskRunner:
    """Runs candidates of one task in one sandbox slot, each in a jail of its own over the task's public view."""

    def __init__(self, task: ClassBenchTask, slot: int, limits: sandbox.Limits, logs: Path, lane: int = 0):
        self.task = task
        self.slot = slot
        self.lane = lane
        self.limits = limits
        self.logs = logs
        self.repo = resolve(task.repo, task.commit or None)
        self.view = public_view(self.repo, task.file_path, task.class_name)
        self.removed = (self.view / task.file_path).read_text(encoding="utf-8", errors="surrogateescape")
        self.runtime = runtime(self.repo.python)
        self.plugin = plugin_dir()
        # The slot is leased: nothing else uses its folder, and what an interrupted run (or an older version's shared
        # work copy, which held the ground truth) left there goes.
        self.scratch = cache_dir("classbench", "eval", f"slot-{slot}")
        shutil.rmtree(self.scratch, ignore_errors=True)
        self.scratch.mkdir(mode=0o755, parents=True)
        if not sandbox.isolation()["mount_namespace"]:  # the copies are made there, for the sandbox uid to reach
            sandbox.check_reachable(self.scratch)
        self.rng = random.Random(secrets.randbits(64))  # which file carries the sentinels, their names: unpredictable
        self.hosts = _sentinel_hosts(self.view, list(task.test_directives), task.file_path)

    def evaluate(self, code: str, name: str, fast: bool = True, tests=None) -> Verdict:
        started = time.monotonic()
        directives = list(self.task.test_directives)
        ok, reason = defines_class(code, self.task.class_name)
        if not ok:
            return Verdict("uncompilable", tests_failed=len(directives), failing_tests=directives, reason=reason,
                           seconds=time.monotonic() - started)  # fmt: skip
        folder = Path(tempfile.mkdtemp(prefix="candidate-", dir=self.scratch))
        try:
            outcome, report, sentinels = self._run(code, name, folder, directives)
        finally:
            shutil.rmtree(folder, ignore_errors=True)  # fd-based: never follows a link the sandbox planted
        seconds = time.monotonic() - started
        if outcome.timed_out:
            return Verdict("timeout", compiled=True, tests_failed=len(directives), failing_tests=directives,
                           reason="the directives did not finish in time", path="pytest", seconds=seconds)  # fmt: skip
        ran = {node.split("::", 1)[0] for node, _ in report.tests if "::" in node}
        if sentinels and sentinels[0].name.split("::", 1)[0] not in ran:
            # No test of the file carrying them ran (it failed to collect, or the process died first): a crash, not a
            # forgery. Its directives are missing, hence failed, so silencing the file gains a forger nothing.
            sentinels = []
        # One request, one group: every directive and sentinel is due, whatever the others give.
        expected = Expected([[(*directives, *(s.name for s in sentinels))]], sentinels, run_all=True)
        checked = check_report(report.tests, expected)
        forged = f"forged: the report is not our plugin's ({report.malformed})" if report.malformed else checked.forged
        if forged:
            return Verdict("wrong", compiled=True, tests_failed=len(directives), failing_tests=directives,
                           reason=forged, path="pytest", seconds=seconds)  # fmt: skip
        failing = checked.failing
        verdict = Verdict(
            "wrong" if failing else "plausible", compiled=True, tests_passed=len(directives) - len(failing),
            tests_failed=len(failing), failing_tests=failing, path="pytest", seconds=seconds,
        )  # fmt: skip
        if failing:
            first = failing[0]
            verdict.reason = f"{len(failing)} of {len(directives)} directives fail, first {first} " \
                             f"({checked.outcomes[first]})"
        return verdict

    def _run(self, code: str, name: str, folder: Path, directives: list[str]):
        """One jailed pytest run of *code*; *folder* (root's, fresh) holds what the harness lays into the jail."""
        folder.chmod(0o755)  # without a mount namespace the sandbox uid walks through it to its copy
        inputs = folder / "in"  # written by the harness, read-only to the sandbox, never read back
        inputs.mkdir(mode=0o755)
        tree = folder / "tree"  # where the jail's tree appears (really copied there only without a mount namespace)
        module = inputs / "module.py"
        module.write_text(insert_class(self.removed, code), encoding="utf-8", errors="surrogateescape")
        placed = [(module, tree / self.task.file_path)]
        sentinels: list[Sentinel] = []
        if self.hosts:
            host = self.rng.choice(self.hosts)
            carrier = inputs / "sentinels.py"
            sentinels = self._write_sentinels(host, carrier)
            placed.append((carrier, tree / host.path))
        selection = inputs / "select"
        asked = [*directives, *(s.name for s in sentinels)]
        selection.write_text("\n".join(shuffled(asked, self.rng)) + "\n", encoding="utf-8")
        for path in inputs.iterdir():
            path.chmod(0o644)
        jail = sandbox.Jail(
            read_only=(self.runtime.env, *self.runtime.prefixes, self.plugin, inputs), trees=((self.view, tree),),
            placed=tuple(placed), hidden=self.runtime.hidden,
        )  # fmt: skip
        env = {
            "PYTHONPATH": os.pathsep.join([str(self.plugin), str(tree / self.repo.import_root)]),
            "PYTHONDONTWRITEBYTECODE": "1",
            "BENCHSMITH_SELECT": str(selection),
        }
        config = tree / OWN_CONFIG if (self.view / OWN_CONFIG).is_file() else None
        argv = pytest_argv(self.repo, tree, config) + sorted({node.split("::", 1)[0] for node in asked})
        outcome, report = run_reporting(argv, tree, self.slot, self.limits, self.logs / f"{name}.log", env, jail=jail,
                                        lane=self.lane)  # fmt: skip
        return outcome, report, sentinels

    def _write_sentinels(self, host: _SentinelHost, carrier: Path) -> list[Sentinel]:
        """*host*'s text with two tests appended, alike in shape: one must pass, one must fail. Their names are made of
        the file's own words, so that nothing but their bodies tells them from the file's tests."""
        stems = [n.removeprefix(host.prefix) for n in host.names]
        while True:
            made = plausible_names(stems, 2, self.rng, "snake" if host.prefix.endswith("_") else "camel")
            names = [host.prefix + n for n in made]
            if not set(names) & set(host.names):
                break
        words = [w for w in stems if w.isidentifier() and 3 <= len(w) <= 24] or ["value", "order", "result"]
        functions, sentinels = [], []
        for number, test in enumerate(names):
            word = self.rng.choice(words)
            passes = number == 0
            size = len(word) if passes else len(word) + self.rng.choice([-2, -1, 1, 2, 3])
            functions.append(f"def {test}():\n    assert len({word!r}) == {size}\n")
            sentinels.append(Sentinel(f"{host.path}::{test}", passes))
        order = shuffled(["0", "1"], self.rng)
        text = (self.view / host.path).read_bytes()
        tail = "\n\n" + "\n\n".join(functions[int(i)] for i in order)
        carrier.write_bytes(text + (b"" if text.endswith(b"\n") or not text else b"\n") + tail.encode("ascii"))
        return sentinels

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)


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
        hosts.append((bool(names), _SentinelHost(path, prefixes.pop() if prefixes else "test_", defined)))
    with_functions = [h for has, h in hosts if has]
    return with_functions or [h for _, h in hosts]


def reference_solution(task: ClassBenchTask) -> str:
    """What a perfect answer looks like: the imports removed with the class, then the class."""
    return "\n".join(task.imports) + ("\n\n" if task.imports else "") + task.ground_truth_class
