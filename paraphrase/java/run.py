"""One Java paraphrase run from the command line: flip, write the report beside the copy, print a summary.

``benchsmith paraphrase --language java --repo DIR --out DIR --classes a.b.C,a.b.D
[--classpath JARS] [--release N]`` is a thin wrapper around :func:`paraphrase_java_classes`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.errors import BenchsmithError
from benchsmith.paraphrase.java.repository import paraphrase_java_repository
from benchsmith.paraphrase.report import ParaphraseReport, report_path

_QUALIFIED = r"[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*"


def parse_class_names(specs: Sequence[str]) -> list[str]:
    """``["a.b.Options,a.b.Option"]`` -> fully qualified names, checked for shape."""

    names = [s.strip() for item in specs for s in item.split(",") if s.strip()]
    for name in names:
        if not re.fullmatch(_QUALIFIED, name):
            raise BenchsmithError(f"--classes {name!r}: expected a fully qualified class name such as org.pkg.Options")
    return names


def paraphrase_java_classes(
    repo: Path,
    out: Path,
    classes: Sequence[str] | None,
    seed: int = 0,
    classpath: Sequence[Path] = (),
    release: str | None = None,
) -> ParaphraseReport:
    """Flip the identifiers declared in *classes* across *repo* into *out*; the report goes to
    ``<out>.paraphrase.json``."""
    names = parse_class_names(classes or [])
    if not names:
        raise BenchsmithError(f"{repo}: --classes is required for Java (fully qualified top-level classes)")
    missing = [str(p) for p in classpath if not Path(p).exists()]
    if missing:
        raise BenchsmithError(f"--classpath: {', '.join(missing)} does not exist")
    report = paraphrase_java_repository(repo, names, out, seed, classpath=classpath, release=release)
    destination = report_path(out)
    write_text_atomic(destination, report.to_json())
    print(
        f"{out}: flipped {len(report.mapping)} names in {len(report.files_changed)} files, "
        f"{len(report.files_renamed)} renamed ({len(report.excluded)} of {report.requested} identifiers kept; "
        f"report {destination})"
    )
    return report
