"""What both languages' ``classbench build --paraphrase`` report of a flip: the names flipped and kept, and how many
of the tests that passed on the repository still pass on its flipped copy (the RepoClassBench paper, E.1.3)."""

from __future__ import annotations

import re

SEED = 0  # one flip per repository, the same on every rebuild
_LOST_LISTED = 50  # tests that no longer pass, named in the card (the count covers them all)


def still_passing(
    before: dict[str, str], after: dict[str, str], mapping: dict[str, str]
) -> tuple[int, int, dict[str, str]]:
    """How many tests that passed before still pass, node ids mapped back through the flips; and the first
    ``_LOST_LISTED`` others, each with its outcome in the flipped copy ("missing" when it did not run there)."""
    back = {flipped: original for original, flipped in mapping.items()}
    pattern = (
        re.compile(r"\b(" + "|".join(map(re.escape, sorted(back, key=len, reverse=True))) + r")\b") if back else None
    )
    restored = {
        (pattern.sub(lambda m: back[m[1]], node) if pattern else node): outcome for node, outcome in after.items()
    }
    passed_before = [node for node, outcome in before.items() if outcome == "passed"]
    lost = {node: restored.get(node, "missing") for node in passed_before if restored.get(node) != "passed"}
    return len(passed_before) - len(lost), len(passed_before), dict(list(lost.items())[:_LOST_LISTED])


def flip_report(mapping: dict[str, str], excluded: int, before: dict[str, str], after: dict[str, str]) -> dict:
    """The card's ``paraphrase`` section both languages share: *before* and *after* are the suite's outcomes on the
    repository and on its flipped copy, by test."""
    kept, passing, lost = still_passing(before, after, mapping)
    return {
        "run": True,
        "seed": SEED,
        "names_flipped": len(mapping),
        "names_excluded": excluded,
        "mapping": mapping,
        "tests_passing_before": passing,
        "still_passing_after": kept,
        "still_passing_share": round(kept / passing, 4) if passing else None,
        "no_longer_passing": lost,
    }
