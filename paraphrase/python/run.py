"""One paraphrase run: choose the classes, flip their identifiers across a repository, write the report.

``benchsmith paraphrase --repo DIR --out DIR [--seed N] [--classes path.py::Class,...]`` is a thin
wrapper around :func:`paraphrase_classes` (in benchsmith/cli/paraphrase.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.errors import BenchsmithError
from benchsmith.paraphrase.python.collect import collect_identifiers
from benchsmith.paraphrase.python.index import build_index
from benchsmith.paraphrase.python.records import RepoIndex
from benchsmith.paraphrase.python.repository import paraphrase_repository
from benchsmith.paraphrase.python.source import load_repository
from benchsmith.paraphrase.report import ParaphraseReport, report_path


def parse_class_specs(specs: Iterable[str]) -> list[tuple[str, str]]:
    """``["a/b.py::Encoder", "c.py::Outer.Inner,d.py::X"]`` -> ``[(file, class), ...]``."""
    parsed: list[tuple[str, str]] = []
    for spec in (s.strip() for item in specs for s in item.split(",")):
        if not spec:
            continue
        path, sep, name = spec.partition("::")
        if not sep or not path.endswith((".py", ".pyi")) or not all(p.isidentifier() for p in name.split(".")):
            raise BenchsmithError(f"--classes {spec!r}: expected path/to/file.py::ClassName")
        parsed.append((path, name))
    return parsed


def default_classes(index: RepoIndex) -> list[tuple[str, str]]:
    """Every module-level class of the repository's non-test ``.py`` files."""
    return [
        (ci.sf.rel, ci.name)
        for ci in index.classes
        if not ci.sf.is_test and ci.sf.rel.endswith(".py") and ci.sf.parent(ci.node) is ci.sf.tree
    ]


def paraphrase_classes(
    repo: Path, out: Path, seed: int = 0, classes: list[str] | None = None, strict: bool = False
) -> ParaphraseReport:
    """Flip the identifiers of *classes* (default: all non-test classes) across *repo* into *out*.

    Prints one summary line and writes the report to ``<out>.paraphrase.json``. Bad input raises
    BenchsmithError with a one-line message; nothing is written then.
    """
    repo, out = Path(repo), Path(out)
    if not repo.is_dir():
        raise BenchsmithError(f"{repo}: repository directory does not exist")
    index = build_index(load_repository(repo))
    targets = parse_class_specs(classes) if classes else default_classes(index)
    if not targets:
        raise BenchsmithError(f"{repo}: no classes to paraphrase")
    names = collect_identifiers(index, targets)
    report = paraphrase_repository(repo, out, names, seed, strict=strict, index=index)
    report.classes = [f"{path}::{name}" for path, name in targets]
    destination = report_path(out)
    write_text_atomic(destination, report.to_json())
    print(
        f"{out}: flipped {len(report.mapping)} names in {len(report.files_changed)} files "
        f"({len(report.excluded)} of {report.requested} identifiers kept; report {destination})"
    )
    return report
