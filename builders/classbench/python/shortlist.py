"""Which classes make tasks (RepoClassBench paper, E.1.2, Python): checks that return their reason."""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

from benchsmith.builders.classbench.python.analysis import MAX_TOKENS, AnalysedClass

MIN_COVERED_METHODS = 2


TOO_LONG = "too long"
NO_EXTERNAL_REFERENCE = "no external reference"
TOO_FEW_METHODS = "fewer than 2 directly covered methods"
NO_DIRECTIVE = "no referencing test fails without it"
GOLD_FAILS = "ground truth fails its directives"
GOLD_REFUSED = "ground truth needs what a candidate is refused"


@dataclass(frozen=True)
class ShortlistDecision:
    """Whether a class makes the shortlist, with the reason when it does not."""

    accepted: bool
    reason: str = ""  # TOO_LONG, NO_EXTERNAL_REFERENCE, TOO_FEW_METHODS or NO_DIRECTIVE when rejected
    detail: str = ""


def directly_covered_methods(
    info: AnalysedClass, coverage: dict[str, list[tuple[str, str]]], passed: set[str], root: Path
) -> set[str]:
    """Methods of the class that passing tests call directly from their own body."""
    prefix = f"{info.name}."
    target = (root / info.file_path).as_posix()
    covered = set()
    for node, calls in coverage.items():
        if node not in passed:
            continue
        for filename, qualname in calls:
            if filename == target and qualname.startswith(prefix):
                covered.add(qualname[len(prefix) :].split(".")[0])
    return covered


def is_shortlisted(info: AnalysedClass, covered: set[str]) -> ShortlistDecision:
    """At most MAX_TOKENS tokens without docstrings, an external reference in its body, and two methods directly
    covered by passing tests.

    The RepoClassBench paper says it twice. Section 3 keeps the classes that "reference other parts of the repository
    within their body" and "have methods covered by test cases"; E.1.2 asks, for Python, for "at least two methods
    that are (a) directly covered by some test case and (b) make an external reference". The tasks it published
    follow the first: 13 of its 97 Python classes write fewer than two methods (ten of litestar's TypeScript
    dataclasses write only ``write``, whose body names nothing of the repository), so the references are the
    class's, and the two covered methods may include the constructor: DirectCoverage holds the classes a test's
    body invokes as well as its functions, so a class built there has its ``__init__`` covered, written, inherited
    or generated from its fields."""
    if info.tokens > MAX_TOKENS:
        return ShortlistDecision(False, TOO_LONG, f"{info.tokens} tokens without docstrings (limit {MAX_TOKENS})")
    if not info.external_references:
        return ShortlistDecision(
            False,
            NO_EXTERNAL_REFERENCE,
            "its methods, signatures and fields name nothing of the repository outside the class",
        )
    if len(covered) < MIN_COVERED_METHODS:
        return ShortlistDecision(
            False,
            TOO_FEW_METHODS,
            f"{len(covered)} method(s) directly covered by passing tests"
            + (f": {', '.join(sorted(covered))}" if covered else ""),
        )
    return ShortlistDecision(
        True,
        detail=f"directly covered: {', '.join(sorted(covered))}; external references: "
        f"{', '.join(info.external_references[:8])}",
    )


def referencing_tests(
    info: AnalysedClass, coverage: dict[str, list[tuple[str, str]]], passed: set[str], root: Path
) -> list[str]:
    """Passing tests that call the class directly or name it in their own body."""
    prefix = f"{info.name}."
    target = (root / info.file_path).as_posix()
    found = {node for node in passed if any(f == target and q.startswith(prefix) for f, q in coverage.get(node, []))}
    bodies = _test_bodies(root, passed)
    found |= {node for node in passed if node in bodies and _mentions(bodies[node], info.name)}
    return sorted(found)


def _mentions(source: str, name: str) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return name in source
    return any(
        isinstance(n, ast.Name) and n.id == name or isinstance(n, ast.Attribute) and n.attr == name
        for n in ast.walk(tree)
    )


def _test_bodies(root: Path, nodes: set[str]) -> dict[str, str]:
    """Node id → the source of its test function (parameters stripped from the id)."""
    by_file: dict[str, dict[str, str]] = {}
    bodies = {}
    for node in nodes:
        parts = node.split("[", 1)[0].split("::")
        if len(parts) < 2:
            continue
        if parts[0] not in by_file:
            by_file[parts[0]] = _functions(root / parts[0])
        source = by_file[parts[0]].get(".".join(parts[1:]))
        if source is not None:
            bodies[node] = source
    return bodies


@functools.lru_cache(maxsize=512)
def _functions(path: Path) -> dict[str, str]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        tree = ast.parse(text)
    except (OSError, SyntaxError):
        return {}
    found = {}

    def walk(body, prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[prefix + node.name] = ast.get_source_segment(text, node) or ""
            elif isinstance(node, ast.ClassDef):
                walk(node.body, f"{prefix}{node.name}.")

    walk(tree.body, "")
    return found
