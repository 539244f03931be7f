import math

import pytest

from benchsmith.core.schema import Result
from benchsmith.scoring.metrics import candidate_statistics, mean_pass_at_k, pass_at_k, per_instance_counts


@pytest.mark.parametrize("n", [1, 2, 5, 10, 37, 100, 200])
def test_pass_at_k_matches_the_closed_form(n):
    for c in range(n + 1):
        for k in {1, 2, 5, 10, 50, 100, n}:
            if k > n:
                continue
            expected = 1 - math.comb(n - c, k) / math.comb(n, k)
            assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12), (n, c, k)


def test_pass_at_k_edges():
    assert pass_at_k(10, 0, 1) == 0.0
    assert pass_at_k(10, 10, 1) == 1.0
    assert pass_at_k(10, 1, 1) == pytest.approx(0.1)
    with pytest.raises(ValueError):
        pass_at_k(5, 6, 1)
    with pytest.raises(ValueError):
        pass_at_k(5, 1, 6)


def result(instance: str, status: str, duplicate_of: str = "", compiled: bool = True, regression=None) -> Result:
    return Result(
        instance, f"c{id(object())}", status, compiled, 0, 0, [], duplicate_of, 0.0, "", regression_passed=regression
    )


def test_hand_computed_example():
    # A: 4 samples, 2 plausible (one a duplicate); B: 2 samples, none plausible, one uncompilable.
    rows = [
        result("A-1", "plausible", regression=True),
        result("A-1", "plausible", "x", regression=True),
        result("A-1", "wrong", regression=False),
        result("A-1", "wrong", regression=True),
        result("B-1", "wrong", regression=False),
        result("B-1", "uncompilable", compiled=False),
    ]
    counts = per_instance_counts(rows)
    assert counts == {"A-1": (4, 2), "B-1": (2, 0)}
    # pass@1: A 2/4, B 0 -> mean 0.25; pass@2: A 1 - C(2,2)/C(4,2) = 5/6, B 0 -> 5/12
    assert mean_pass_at_k(counts, 1) == (pytest.approx(0.25), 2)
    assert mean_pass_at_k(counts, 2) == (pytest.approx(5 / 12), 2)
    assert mean_pass_at_k(counts, 3) == (pytest.approx(1 - 0 / 4), 1)  # only A has 3 samples: 1 - C(2,3)/C(4,3)
    stats = candidate_statistics(rows)
    assert stats["duplicate"] == pytest.approx((25 + 0) / 2)
    assert stats["compile"] == pytest.approx((100 + 50) / 2)
    assert stats["regression"] == pytest.approx((75 + 0) / 2)
    assert stats["plausible"] == pytest.approx((50 + 0) / 2)


def test_regression_is_not_reported_when_it_was_not_measured():
    rows = [result("A-1", "wrong", regression=None), result("A-1", "plausible", regression=True)]
    assert math.isnan(candidate_statistics(rows)["regression"])


def test_each_node_s_throughput_is_reported_from_the_runs_it_made():
    from dataclasses import replace

    from benchsmith.scoring.report import node_throughput, render_table, summarise

    rows = [
        replace(result("A-1", "plausible"), candidate_id="a", seconds=2.0, node="n1"),
        replace(result("A-1", "plausible", "a"), candidate_id="b", seconds=0.0, node="n1"),  # shares a's verdict
        replace(result("B-1", "wrong"), candidate_id="c", seconds=1.0, node="n2"),
        replace(result("B-1", "wrong"), candidate_id="d", seconds=3.0, node="n2"),
    ]
    assert node_throughput(rows) == {
        "n1": {"candidates": 1, "seconds": 2.0, "per minute": 30.0},
        "n2": {"candidates": 2, "seconds": 4.0, "per minute": 30.0},
    }
    table = render_table(summarise(rows, [1]), [1])
    assert "| n2 | 2 | 4.0 | 30.0 |" in table
    one_node = render_table(summarise([replace(r, node="n1") for r in rows], [1]), [1])
    assert "Judged per node" not in one_node


def test_plausible_verdicts_the_screen_flagged_are_counted_apart():
    from dataclasses import replace

    from benchsmith.scoring.report import render_table, summarise

    rows = [
        replace(result("A-1", "plausible"), candidate_id="a", suspicious="frames,gc"),
        replace(result("A-1", "plausible"), candidate_id="b"),
        replace(result("B-1", "wrong"), candidate_id="c", suspicious="gc"),  # not plausible: nothing to count apart
        replace(result("B-1", "plausible"), candidate_id="d", suspicious="gc"),
    ]
    (summary,) = summarise(rows, [1]).values()
    assert summary["suspicious plausible"] == {"candidates": 2, "instances": 2, "primitives": {"frames": 1, "gc": 2}}
    assert "Plausible but suspicious" in render_table(summarise(rows, [1]), [1])
    assert "Plausible but suspicious" not in render_table(
        summarise([replace(r, suspicious="") for r in rows], [1]), [1]
    )
