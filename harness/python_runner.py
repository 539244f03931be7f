"""Run a RepoClassBench task's candidates: the class removed, the candidate where it was, the directives run.

The test pass rate (TR) is the fraction of the task's directives
(EXPECTED_TO_PASS) that pass; the task passes when all do. Outcomes come from
pytest's own report file, in a sandboxed pytest working in a copy of the
repository.
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
import re
import time
import tokenize
from pathlib import Path

from benchsmith.config import cache_dir
from benchsmith.schema import ClassBenchTask
from builders.classbench.removal import insert_class, remove_class
from builders.classbench.repo import resolve
from builders.classbench.testrun import run_pytest, swapped_module, work_copy
from harness import sandbox
from harness.java_runner import Verdict


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


class TaskRunner:
    """Runs candidates of one task in one sandbox slot, in a copy of the repository."""

    def __init__(self, task: ClassBenchTask, slot: int, limits: sandbox.Limits, logs: Path):
        self.task = task
        self.slot = slot
        self.limits = limits
        self.logs = logs
        self.repo = resolve(task.repo, task.commit or None)
        self.copy = work_copy(self.repo.tree, cache_dir("classbench", "eval", f"slot-{slot}") / self.repo.key, slot)
        sandbox.check_reachable(self.copy)
        self.module = self.copy / task.file_path
        self.original = self.module.read_bytes()
        self.removed = remove_class(self.original.decode("utf-8", errors="surrogateescape"), task.class_name, task.file_path).text

    def evaluate(self, code: str, name: str, fast: bool = True, tests=None) -> Verdict:
        started = time.monotonic()
        directives = list(self.task.test_directives)
        ok, reason = defines_class(code, self.task.class_name)
        if not ok:
            return Verdict("uncompilable", tests_failed=len(directives), failing_tests=directives, reason=reason,
                           seconds=time.monotonic() - started)  # fmt: skip
        with swapped_module(self.module, insert_class(self.removed, code)):
            run = run_pytest(self.repo, self.copy, directives, self.slot, self.limits, self.logs / f"{name}.log")
        if run.timed_out:
            return Verdict("timeout", compiled=True, tests_failed=len(directives), reason="the directives did not finish in time",
                           path="pytest", seconds=time.monotonic() - started)  # fmt: skip
        failing = [d for d in directives if run.outcomes.get(d) != "passed"]
        verdict = Verdict(
            "wrong" if failing else "plausible", compiled=True, tests_passed=len(directives) - len(failing),
            tests_failed=len(failing), failing_tests=failing, path="pytest", seconds=time.monotonic() - started,
        )  # fmt: skip
        if failing:
            verdict.reason = f"{len(failing)} of {len(directives)} directives fail, first {failing[0]} ({run.outcomes.get(failing[0], 'not run')})"
        return verdict

    def close(self) -> None:
        self.module.write_bytes(self.original)


def reference_solution(task: ClassBenchTask) -> str:
    """What a perfect answer looks like: the imports removed with the class, then the class."""
    return "\n".join(task.imports) + ("\n\n" if task.imports else "") + task.ground_truth_class
