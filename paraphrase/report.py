"""What a paraphrase run reports in both languages: each name flipped, each kept with the rule that kept it, and where
the report is written beside the flipped copy."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from benchsmith.core.errors import BenchsmithError


@dataclass(frozen=True)
class Exclusion:
    name: str
    rule: str
    detail: str


@dataclass
class ParaphraseReport:
    repo: str
    out: str
    seed: int
    strict: bool
    requested: int  # identifiers asked for
    mapping: dict[str, str]  # original -> flipped, sorted by original
    excluded: dict[str, Exclusion]
    files_scanned: int
    files_changed: list[str]
    renamed_occurrences: int
    classes: list[str] = field(default_factory=list)  # the "file::Class" specs the names came from
    language: str = "python"
    rules: dict[str, str] = field(default_factory=dict)  # the language's exclusion rules, in order
    files_renamed: dict[str, str] = field(default_factory=dict)  # Java: a flipped top-level class moves its file
    overruled: dict[str, str] = field(default_factory=dict)  # renamed though a rule keeps it (the rule): overrule=

    @property
    def exclusion_counts(self) -> dict[str, int]:
        counts = Counter(e.rule for e in self.excluded.values())
        return {rule: counts[rule] for rule in self.rules if counts[rule]}

    def to_dict(self) -> dict:
        return {
            "language": self.language,
            "repo": self.repo,
            "out": self.out,
            "seed": self.seed,
            "strict": self.strict,
            "classes": self.classes,
            "requested": self.requested,
            "flipped": len(self.mapping),
            "excluded_total": len(self.excluded),
            "exclusion_counts": self.exclusion_counts,
            "files_scanned": self.files_scanned,
            "files_changed": self.files_changed,
            "files_renamed": self.files_renamed,
            "overruled": self.overruled,
            "renamed_occurrences": self.renamed_occurrences,
            "mapping": self.mapping,
            "excluded": {n: {"rule": e.rule, "detail": e.detail} for n, e in sorted(self.excluded.items())},
            "rules": {rule: self.rules[rule] for rule in self.exclusion_counts},
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"


def check_paths(src: Path, out: Path) -> None:
    if not src.is_dir():
        raise BenchsmithError(f"{src}: repository directory does not exist")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise BenchsmithError(f"{out}: output already exists (choose a new or empty directory)")
    if out.resolve().is_relative_to(src.resolve()):
        raise BenchsmithError(f"{out}: output must lie outside the repository {src}")


def report_path(out: Path) -> Path:
    out = Path(out)
    return out.with_name(out.name + ".paraphrase.json")
