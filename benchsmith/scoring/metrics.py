"""pass@k (unbiased, numerically stable), ranked pass@k (r.pass@k, the Defects4J-NL2Fix paper's Table 6) and the per-bug
candidate statistics of Table 2."""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence

from benchsmith.core.schema import RankedCandidate, Result


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
    """Table 2: the mean over bugs of each bug's percentage of duplicate, compiling, regression-passing and plausible
    candidates."""
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
        "regression": mean_share(lambda r: bool(r.regression_passed))
        if len(measured) == len(results)
        else float("nan"),
        "plausible": mean_share(lambda r: r.status == "plausible"),
    }


def ranked_pass_at_k(ranked: Sequence[str], plausible: Collection[str], k: int) -> float:
    """r.pass@k of one instance: 1.0 when one of the first *k* suggestions is plausible, else 0.0.

    *ranked* is the instance's suggestions, best first, with pruned candidates
    left out (:func:`ranked_suggestions`). An instance with no candidate above
    the similarity threshold has nothing to suggest and scores 0.
    """
    if k < 1:
        raise ValueError(f"r.pass@k needs k >= 1, got {k}")
    return 1.0 if any(candidate in plausible for candidate in ranked[:k]) else 0.0


def ranked_suggestions(ranking: Iterable[RankedCandidate], dropped: Collection[str] = ()) -> list[str]:
    """One instance's suggestions, best first: a candidate id per rank, without pruned candidates or *dropped* ones.

    Candidates with identical code share a rank and are shown once (they also
    share their verdict, since eval judges them as one).
    """
    kept = sorted(
        (r for r in ranking if not r.pruned and r.candidate_id not in dropped),
        key=lambda r: (r.rank, r.similarity, r.candidate_id),
    )
    suggestions: dict[int, str] = {}
    for record in kept:
        suggestions.setdefault(record.rank, record.candidate_id)
    return list(suggestions.values())


def mean_ranked_pass_at_k(
    results: list[Result], ranking: Mapping[tuple[str, str], RankedCandidate], k: int, compiling_only: bool = False
) -> tuple[float, int]:
    """Mean r.pass@k over every instance of *results*, and how many those are.

    *ranking* maps ``(instance_id, candidate_id)`` to its row and must cover
    every result. ``compiling_only`` is Table 6's "Pruned": candidates that did
    not compile are dropped before the top *k* are taken. The similarity
    threshold has pruned in both cases.
    """
    by_instance: dict[str, list[Result]] = {}
    for result in results:
        by_instance.setdefault(result.instance_id, []).append(result)
    if not by_instance:
        return float("nan"), 0
    total = 0.0
    for instance_id, rows in by_instance.items():
        missing = [r.candidate_id for r in rows if (instance_id, r.candidate_id) not in ranking]
        if missing:
            raise ValueError(f"no ranking for {instance_id} candidate {missing[0]!r}")
        dropped = {r.candidate_id for r in rows if not r.compiled} if compiling_only else set()
        ranked = ranked_suggestions((ranking[(instance_id, r.candidate_id)] for r in rows), dropped)
        total += ranked_pass_at_k(ranked, {r.candidate_id for r in rows if r.status == "plausible"}, k)
    return total / len(by_instance), len(by_instance)


def mean_pass_at_k_compiling(results: list[Result], k: int) -> tuple[float, int]:
    """pass@k over the candidates that compiled (Table 6's "Pruned" P@k), averaged over every instance.

    An instance with fewer than *k* compiling candidates shows all of them
    (pass@n), and one with none scores 0, so no instance drops out of the mean.
    """
    counts: dict[str, list[int]] = {}
    for result in results:
        entry = counts.setdefault(result.instance_id, [0, 0])
        entry[0] += result.compiled
        entry[1] += result.compiled and result.status == "plausible"
    if not counts:
        return float("nan"), 0
    values = [pass_at_k(n, c, min(k, n)) if n else 0.0 for n, c in counts.values()]
    return sum(values) / len(values), len(values)
