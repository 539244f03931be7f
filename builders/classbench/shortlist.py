"""Which classes make tasks (RepoClassBench paper, E.1.2, Python): checks that return their reason."""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

from builders.classbench.analysis import MAX_TOKENS, AnalysedClass

MIN_COVERED_REFERENCING_METHODS = 2


TOO_LONG = "too long"
TOO_FEW_METHODS = "fewer than 2 directly covered methods with external references"
NO_DIRECTIVE = "no referencing test fails without it"
GOLD_FAILS = "ground truth fails its directives"


@dataclass(frozen=True)
class ShortlistDecision:
    """Whether a class makes the shortlist, with the reason when it does not."""

    accepted: bool
    reason: str = ""  # TOO_LONG, TOO_FEW_METHODS or NO_DIRECTIVE when rejected
    detail: str = ""


def directly_covered_methods(info: AnalysedClass, coverage: dict[str, list[tuple[str, str]]], passed: set[str], root: Path) -> set[str]:
    """Methods of the class that passing tests call directly from their own body."""
    prefix = f"{info.name}."
    target = (root / info.file_path).as_posix()
    covered = set()
    for node, calls in coverage.items():
        if node not in passed:
            continue
        for filename, qualname in calls:
            if filename == target and qualname.startswith(prefix):
                covered.add(qualname[len(prefix):].split(".")[0])
    return covered


def is_shortlisted(info: AnalysedClass, covered: set[str]) -> ShortlistDecision:
    """At most MAX_TOKENS tokens without docstrings, and two directly covered methods that make external references."""
    if info.tokens > MAX_TOKENS:
        return ShortlistDecision(False, TOO_LONG, f"{info.tokens} tokens without docstrings (limit {MAX_TOKENS})")
    referencing = {m.name for m in info.methods if m.external_references}
    qualifying = covered & referencing
    if len(qualifying) < MIN_COVERED_REFERENCING_METHODS:
        return ShortlistDecision(
            False,
            TOO_FEW_METHODS,
            f"{len(covered)} method(s) directly covered by passing tests, {len(qualifying)} of them with external references",
        )
    return ShortlistDecision(True, detail=f"covered methods with external references: {', '.join(sorted(qualifying))}")


def referencing_tests(info: AnalysedClass, coverage: dict[str, list[tuple[str, str]]], passed: set[str], root: Path) -> list[str]:
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
    return any(isinstance(n, ast.Name) and n.id == name or isinstance(n, ast.Attribute) and n.attr == name for n in ast.walk(tree))


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
