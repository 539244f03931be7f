"""pass@k (unbiased, numerically stable) and the per-bug candidate statistics of seed 001's Table 2."""

from __future__ import annotations

import math
from collections.abc import Iterable

from benchsmith.schema import Result


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k, 1 - C(n-c, k) / C(n, k), in the product form that does not overflow.

    *n* is the number of samples drawn for the instance (duplicates included),
    *c* how many of them are plausible.
    """
    if not 0 <= c <= n or k < 1:
        raise ValueError(f"pass@k needs 0 <= c <= n and k >= 1 (n={n}, c={c}, k={k})")
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def per_instance_counts(results: Iterable[Result]) -> dict[str, tuple[int, int]]:
    counts: dict[str, list[int]] = {}
    for result in results:
        entry = counts.setdefault(result.instance_id, [0, 0])
        entry[0] += 1
        entry[1] += result.status == "plausible"
    return {iid: (n, c) for iid, (n, c) in counts.items()}


def mean_pass_at_k(counts: dict[str, tuple[int, int]], k: int) -> tuple[float, int]:
    """Mean pass@k over the instances with at least k samples, and how many those are."""
    eligible = [(n, c) for n, c in counts.values() if n >= k]
    if not eligible:
        return float("nan"), 0
    return sum(pass_at_k(n, c, k) for n, c in eligible) / len(eligible), len(eligible)


def candidate_statistics(results: list[Result]) -> dict[str, float]:
    """Table 2: the mean over bugs of each bug's percentage of duplicate, compiling, regression-passing and plausible candidates."""
    by_instance: dict[str, list[Result]] = {}
    for result in results:
        by_instance.setdefault(result.instance_id, []).append(result)

    def mean_share(predicate) -> float:
        shares = [sum(map(predicate, rs)) / len(rs) for rs in by_instance.values() if rs]
        return 100.0 * sum(shares) / len(shares) if shares else float("nan")

    measured = [r for r in results if r.regression_passed is not None or not r.compiled]
    return {
        "duplicate": mean_share(lambda r: bool(r.duplicate_of)),
        "compile": mean_share(lambda r: r.compiled),
        "regression": mean_share(lambda r: bool(r.regression_passed)) if len(measured) == len(results) else float("nan"),
        "plausible": mean_share(lambda r: r.status == "plausible"),
    }
