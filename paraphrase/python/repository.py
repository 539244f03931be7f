"""Paraphrase a whole repository: analyse, choose the flips, copy and rewrite.

The output folder appears complete or not at all: the copy is built beside it
under a temporary name and renamed into place.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from benchsmith.paraphrase.flip import BUILTIN_NAMES, KEYWORDS, build_mapping
from benchsmith.paraphrase.python.exclusions import RULES, find_exclusions
from benchsmith.paraphrase.python.index import build_index
from benchsmith.paraphrase.python.inference import Inference
from benchsmith.paraphrase.python.overrule import OVERRULABLE, place_occurrences
from benchsmith.paraphrase.python.records import RepoIndex
from benchsmith.paraphrase.python.rewrite import rewrite
from benchsmith.paraphrase.python.source import load_repository, skipped
from benchsmith.paraphrase.report import Exclusion, ParaphraseReport, check_paths


def paraphrase_repository(
    src_dir: Path,
    out_dir: Path,
    names: Iterable[str],
    seed: int = 0,
    *,
    strict: bool = False,
    index: RepoIndex | None = None,
    chosen: dict[str, str] | None = None,
    overrule: Iterable[str] = (),
) -> ParaphraseReport:
    """Copy *src_dir* to *out_dir* with every safe name of *names* case-flipped in every Python file.

    *index* may be passed when the caller already indexed *src_dir* (it is then not parsed again).
    With *strict*, names read as attributes of objects whose type cannot be shown to be the
    repository's are excluded too. *chosen* gives the variants to use (another paraphrase's, read off its output)
    instead of drawing them from *seed*; a variant that is already an identifier of the repository is refused.
    *overrule*: names to rename although a rule about other packages or lookups by spelling keeps them (another
    paraphrase flipped them): every occurrence changes but another package's
    (:mod:`benchsmith.paraphrase.python.overrule`).
    """
    src, out = Path(src_dir), Path(out_dir)
    check_paths(src, out)
    index = index if index is not None else build_index(load_repository(src))
    requested = set(names)
    inference = Inference(index, strict=strict)
    analysis = find_exclusions(index, inference, requested)
    excluded = dict(analysis.excluded)
    overruled = {
        n: excluded.pop(n).rule for n in sorted(set(overrule) & excluded.keys()) if excluded[n].rule in OVERRULABLE
    }
    taken = index.identifiers | BUILTIN_NAMES | KEYWORDS
    if chosen is None:
        mapping, failed = build_mapping(requested - excluded.keys(), seed, taken)
    else:
        mapping = {n: chosen[n] for n in sorted(requested - excluded.keys()) if chosen[n] not in taken}
        failed = [n for n in sorted(requested - excluded.keys()) if n not in mapping]
    for name in failed:
        excluded[name] = Exclusion(
            name,
            "collision",
            "every case variant is taken"
            if chosen is None
            else f"{chosen[name]} is already an identifier of the repository",
        )

    occurrences = place_occurrences(index, {n: mapping[n] for n in overruled if n in mapping})
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    try:
        root = src.resolve()
        shutil.copytree(
            src,
            staging,
            symlinks=True,
            dirs_exist_ok=True,
            ignore=lambda folder, names: [
                n for n in names if n.endswith(".pyc") or skipped(Path(folder).resolve(), root, n)
            ],
        )
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
        repo=str(src),
        out=str(out),
        seed=seed,
        strict=strict,
        requested=len(requested),
        mapping=dict(sorted(mapping.items())),
        excluded=excluded,
        files_scanned=len(index.repo.files),
        files_changed=sorted(changed),
        renamed_occurrences=renamed,
        overruled={n: rule for n, rule in overruled.items() if n in mapping},
        rules=RULES,
    )
