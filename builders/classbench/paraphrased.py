"""``classbench build --paraphrase``: the tasks again, in a repository whose identifiers are case-flipped.

Every identifier that appears in a shortlisted class is case-flipped across
the repository (RepoClassBench paper, E.1.3, through the ``paraphrase`` package); the
flipped repository is checked by running its test suite (the share of
previously passing tests that still pass), and the tasks are built from it,
in the same environment.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from collections.abc import Callable

from sources.python_repo import Repository, private_cache_dir
from paraphrase.collect import collect_identifiers
from paraphrase.index import build_index
from paraphrase.repository import paraphrase_repository
from paraphrase.source import load_repository

SEED = 0


def paraphrased_tasks(repo: Repository, options, outcome, build_tasks: Callable):
    targets = [(t.file_path, t.class_name) for t in outcome.tasks]
    index = build_index(load_repository(repo.tree))
    names = collect_identifiers(index, targets)
    out = private_cache_dir("paraphrased") / f"{repo.key}-s{SEED}"  # a whole tree with the ground truth: root's only
    shutil.rmtree(out, ignore_errors=True)
    report = paraphrase_repository(repo.tree, out, names, SEED, index=index)
    flip = report.mapping
    variant = dataclasses.replace(repo, spec=str(out), key=f"{repo.key}-paraphrased-s{SEED}", tree=out)
    only = {f"{path}::{_flipped(name, flip)}" for path, name in targets}
    paraphrased = build_tasks(variant, options, only)
    paraphrased.tasks = [dataclasses.replace(t, paraphrased=True) for t in paraphrased.tasks]
    kept, before, lost = _still_passing(outcome.suite["outcomes"], paraphrased.suite["outcomes"], flip)
    return paraphrased, {
        "run": True,
        "seed": SEED,
        "names_flipped": len(flip),
        "names_excluded": len(report.excluded),
        "mapping": flip,
        "tests_passing_before": before,
        "still_passing_after": kept,
        "still_passing_share": round(kept / before, 4) if before else None,
        "no_longer_passing": lost,
    }


_LOST_LISTED = 50  # tests that no longer pass, named in the card (the count covers them all)


def _flipped(name: str, mapping: dict[str, str]) -> str:
    return mapping.get(name, name)


def _still_passing(before: dict[str, str], after: dict[str, str], mapping: dict[str, str]) -> tuple[int, int, dict[str, str]]:
    """How many tests that passed before still pass, node ids mapped back through the flips; and the first
    ``_LOST_LISTED`` others, each with its outcome in the flipped copy ("missing" when it did not run there)."""
    back = {flipped: original for original, flipped in mapping.items()}
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(back, key=len, reverse=True))) + r")\b") if back else None
    restored = {(pattern.sub(lambda m: back[m[1]], node) if pattern else node): outcome for node, outcome in after.items()}
    passed_before = [node for node, outcome in before.items() if outcome == "passed"]
    lost = {node: restored.get(node, "missing") for node in passed_before if restored.get(node) != "passed"}
    return len(passed_before) - len(lost), len(passed_before), dict(list(lost.items())[:_LOST_LISTED])
