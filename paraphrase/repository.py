"""Paraphrase a whole repository: analyse, choose the flips, copy and rewrite.

The output folder appears complete or not at all: the copy is built beside it
under a temporary name and renamed into place.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from benchsmith.core.errors import BenchsmithError
from paraphrase.exclusions import RULES, Exclusion, find_exclusions
from paraphrase.flip import build_mapping
from paraphrase.index import build_index
from paraphrase.inference import Inference
from paraphrase.overrule import OVERRULABLE, place_occurrences
from paraphrase.protocols import BUILTIN_NAMES, KEYWORDS
from paraphrase.records import RepoIndex
from paraphrase.rewrite import rewrite
from paraphrase.source import load_repository, skipped


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
    rules: dict[str, str] = field(default_factory=lambda: RULES)  # the language's exclusion rules, in order
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


def _check_paths(src: Path, out: Path) -> None:
    if not src.is_dir():
        raise BenchsmithError(f"{src}: repository directory does not exist")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise BenchsmithError(f"{out}: output already exists (choose a new or empty directory)")
    if out.resolve().is_relative_to(src.resolve()):
        raise BenchsmithError(f"{out}: output must lie outside the repository {src}")


def paraphrase_repository(src_dir: Path, out_dir: Path, names: Iterable[str], seed: int = 0, *,
                          strict: bool = False, index: RepoIndex | None = None,
                          chosen: dict[str, str] | None = None, overrule: Iterable[str] = ()) -> ParaphraseReport:  # fmt: skip
    """Copy *src_dir* to *out_dir* with every safe name of *names* case-flipped in every Python file.

    *index* may be passed when the caller already indexed *src_dir* (it is then not parsed again).
    With *strict*, names read as attributes of objects whose type cannot be shown to be the
    repository's are excluded too. *chosen* gives the variants to use (another paraphrase's, read off its output)
    instead of drawing them from *seed*; a variant that is already an identifier of the repository is refused.
    *overrule*: names to rename although a rule about other packages or lookups by spelling keeps them (another
    paraphrase flipped them): every occurrence changes but another package's (:mod:`paraphrase.overrule`).
    """
    src, out = Path(src_dir), Path(out_dir)
    _check_paths(src, out)
    index = index if index is not None else build_index(load_repository(src))
    requested = set(names)
    inference = Inference(index, strict=strict)
    analysis = find_exclusions(index, inference, requested)
    excluded = dict(analysis.excluded)
    overruled = {n: excluded.pop(n).rule for n in sorted(set(overrule) & excluded.keys())
                 if excluded[n].rule in OVERRULABLE}  # fmt: skip
    taken = index.identifiers | BUILTIN_NAMES | KEYWORDS
    if chosen is None:
        mapping, failed = build_mapping(requested - excluded.keys(), seed, taken)
    else:
        mapping = {n: chosen[n] for n in sorted(requested - excluded.keys()) if chosen[n] not in taken}
        failed = [n for n in sorted(requested - excluded.keys()) if n not in mapping]
    for name in failed:
        excluded[name] = Exclusion(name, "collision", "every case variant is taken" if chosen is None
                                   else f"{chosen[name]} is already an identifier of the repository")

    occurrences = place_occurrences(index, {n: mapping[n] for n in overruled if n in mapping})
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    try:
        root = src.resolve()
        shutil.copytree(src, staging, symlinks=True, dirs_exist_ok=True,
                        ignore=lambda folder, names: [n for n in names if n.endswith(".pyc")
                                                      or skipped(Path(folder).resolve(), root, n)])  # fmt: skip
        changed: list[str] = []
        renamed = 0
        for sf in index.repo.files:
            tree, count = rewrite(index.repo, sf, mapping, analysis.keep_keywords, occurrences)
            if count:
                (staging / sf.rel).write_bytes(tree.bytes)
                changed.append(sf.rel)
                renamed += count
        if out.exists():
            out.rmdir()
        os.replace(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return ParaphraseReport(
        repo=str(src), out=str(out), seed=seed, strict=strict, requested=len(requested),
        mapping=dict(sorted(mapping.items())), excluded=excluded, files_scanned=len(index.repo.files),
        files_changed=sorted(changed), renamed_occurrences=renamed,
        overruled={n: rule for n, rule in overruled.items() if n in mapping},
    )  # fmt: skip
