"""r.pass@k and pass@k on a small hand-made example, against hand computation (Defects4J-NL2Fix paper, Table 6)."""

import json

import pytest

from benchsmith.core.schema import Candidate, Result
from benchsmith.scoring.metrics import (
    mean_pass_at_k,
    mean_pass_at_k_compiling,
    mean_ranked_pass_at_k,
    per_instance_counts,
    ranked_pass_at_k,
    ranked_suggestions,
)
from benchsmith.scoring.ranking import order_group
from benchsmith.scoring.report import render_table, summarise

# (instance, candidate, similarity to the buggy method, status, code); the threshold is the paper's 0.95.
EXAMPLE = [
    # A: six candidates. Kept, lowest similarity first: a4 .955 (1), a1 .96 (2), a2 .97 (3), a6 .975 (4), a5 1.0 (5);
    # a3 (.90) is pruned although it is plausible.
    ("A-1", "a1", 0.96, "plausible", "int a() { return 1; }"),
    ("A-1", "a2", 0.97, "wrong", "int a() { return 2; }"),
    ("A-1", "a3", 0.90, "plausible", "int a() { return 0 + 1; }"),
    ("A-1", "a4", 0.955, "uncompilable", "int a() { return 1 }"),
    ("A-1", "a5", 1.00, "wrong", "int a() { return 0; }"),
    ("A-1", "a6", 0.975, "wrong", "int a() { return 3; }"),
    # B: five candidates. b1 and b2 are the same code up to white space: one suggestion, rank 1 (b1 first by id);
    # b3 .99 is rank 2; b4 (.94) and b5 (.80) are pruned.
    ("B-1", "b1", 0.951, "wrong", "int b() { return -1; }"),
    ("B-1", "b2", 0.951, "wrong", "int b() {\n    return  -1;\n}"),
    ("B-1", "b3", 0.99, "plausible", "int b() { return 1; }"),
    ("B-1", "b4", 0.94, "plausible", "int b() { return +1; }"),
    ("B-1", "b5", 0.80, "uncompilable", "int b() {"),
    # C: five candidates, none reaching the threshold: nothing to suggest, r.pass@k = 0 despite c1.
    ("C-1", "c1", 0.90, "plausible", "int c() { return 1; }"),
    ("C-1", "c2", 0.93, "wrong", "int c() { return 2; }"),
    ("C-1", "c3", 0.94, "uncompilable", "int c() { return }"),
    ("C-1", "c4", 0.85, "wrong", "int c() { return 4; }"),
    ("C-1", "c5", 0.92, "wrong", "int c() { return 5; }"),
]


def example():
    results, ranking = [], {}
    for instance in ("A-1", "B-1", "C-1"):
        rows = [row for row in EXAMPLE if row[0] == instance]
        group = [Candidate(i, c, code, model="m", strategy="s") for i, c, _, _, code in rows]
        for record in order_group(group, {c: s for _, c, s, _, _ in rows}, 0.95, "hand"):
            ranking[(record.instance_id, record.candidate_id)] = record
        for i, c, _, status, _ in rows:
            results.append(
                Result(
                    i,
                    c,
                    status,
                    status != "uncompilable",
                    0,
                    0,
                    [],
                    "",
                    0.0,
                    "",
                    model="m",
                    strategy="s",
                    project=i.split("-")[0],
                )
            )
    return results, ranking


def test_ranks_follow_the_hand_ordering():
    _, ranking = example()
    assert {c: r.rank for (_, c), r in ranking.items()} == {
        "a1": 2,
        "a2": 3,
        "a3": -1,
        "a4": 1,
        "a5": 5,
        "a6": 4,
        "b1": 1,
        "b2": 1,
        "b3": 2,
        "b4": -1,
        "b5": -1,
        "c1": -1,
        "c2": -1,
        "c3": -1,
        "c4": -1,
        "c5": -1,
    }
    assert [c for (_, c), r in ranking.items() if r.pruned] == ["a3", "b4", "b5", "c1", "c2", "c3", "c4", "c5"]
    by_instance = lambda i: [r for (j, _), r in ranking.items() if j == i]  # noqa: E731
    assert ranked_suggestions(by_instance("A-1")) == ["a4", "a1", "a2", "a6", "a5"]
    assert ranked_suggestions(by_instance("A-1"), dropped={"a4"}) == ["a1", "a2", "a6", "a5"]
    assert ranked_suggestions(by_instance("B-1")) == ["b1", "b3"]  # b2 is b1 again, shown once
    assert ranked_suggestions(by_instance("C-1")) == []


def test_pass_at_k_and_ranked_pass_at_k_match_hand_computation():
    results, ranking = example()
    counts = per_instance_counts(results)
    # pass@k, all candidates: A n=6 c=2, B n=5 c=2, C n=5 c=1.
    #   pass@1: A 2/6, B 2/5, C 1/5                                  -> mean (1/3 + 0.4 + 0.2) / 3
    #   pass@2: A 1-C(4,2)/C(6,2) = 1-6/15 = 0.6, B 1-C(3,2)/C(5,2) = 0.7, C 1-C(4,2)/C(5,2) = 0.4 -> 1.7 / 3
    #   pass@5: n-c < 5 everywhere                                   -> 1
    assert mean_pass_at_k(counts, 1) == (pytest.approx((1 / 3 + 0.4 + 0.2) / 3), 3)
    assert mean_pass_at_k(counts, 2) == (pytest.approx(1.7 / 3), 3)
    assert mean_pass_at_k(counts, 5) == (pytest.approx(1.0), 3)
    # pass@k of the compiling candidates: A n=5 c=2, B n=4 c=2, C n=4 c=1 (fewer than k: pass@n).
    #   pass@1: 0.4, 0.5, 0.25                                       -> 1.15 / 3
    #   pass@2: A 1-C(3,2)/C(5,2) = 0.7, B 1-C(2,2)/C(4,2) = 5/6, C 1-C(3,2)/C(4,2) = 0.5
    #   pass@5: pass@5 (A), pass@4 (B, C): all 1
    assert mean_pass_at_k_compiling(results, 1) == (pytest.approx(1.15 / 3), 3)
    assert mean_pass_at_k_compiling(results, 2) == (pytest.approx((0.7 + 5 / 6 + 0.5) / 3), 3)
    assert mean_pass_at_k_compiling(results, 5) == (pytest.approx(1.0), 3)
    # r.pass@k, all candidates: A's list a4 a1 a2 a6 a5 (a4 uncompilable, a1 plausible); B's b1 b3; C's empty.
    #   k=1: A 0 (a4), B 0 (b1), C 0  -> 0;   k=2: A 1 (a1), B 1 (b3, since b2 is not shown again), C 0 -> 2/3
    #   k=5: A 1, B 1, C 0             -> 2/3
    # r.pass@k, compiling only: a4 is dropped, so A's list is a1 a2 a6 a5 and A scores 1 from k=1 on.
    #   k=1: 1/3;  k=2: 2/3;  k=5: 2/3
    expected = {1: (0.0, 1 / 3), 2: (2 / 3, 2 / 3), 5: (2 / 3, 2 / 3)}
    for k, (everything, compiling) in expected.items():
        assert mean_ranked_pass_at_k(results, ranking, k) == (pytest.approx(everything), 3), k
        assert mean_ranked_pass_at_k(results, ranking, k, compiling_only=True) == (pytest.approx(compiling), 3), k


def test_the_report_shows_both_beside_pass_at_k():
    results, ranking = example()
    ks = [1, 2, 5]
    plain = summarise(results, ks)
    summary = summarise(results, ks, list(ranking.values()))
    run = summary["m / s"]
    # Without the ranking's additions the summary is the plain one (json: TR is NaN, which is unequal to itself).
    stripped = {key: value for key, value in run.items() if key != "ranking"}
    stripped["projects"] = {
        p: {k: v for k, v in s.items() if not k.startswith("r.pass")} for p, s in run["projects"].items()
    }
    assert json.dumps(stripped, sort_keys=True) == json.dumps(plain["m / s"], sort_keys=True)
    assert run["ranking"]["r.pass@k"]["r.pass@1"] == {"all": 0.0, "compiling": pytest.approx(1 / 3), "instances": 3}
    assert run["ranking"]["r.pass@k"]["r.pass@2"]["all"] == pytest.approx(2 / 3)
    assert run["ranking"]["pass@k compiling"]["pass@2"]["value"] == pytest.approx((0.7 + 5 / 6 + 0.5) / 3)
    assert run["ranking"]["embedder"] == ["hand"]
    # Per project: A alone scores r.pass@1 0 over all candidates and 1 over the compiling ones.
    assert run["projects"]["A"]["r.pass@1"] == 0.0 and run["projects"]["A"]["r.pass@1 compiling"] == 1.0
    assert run["projects"]["C"]["r.pass@5"] == 0.0 and run["projects"]["C"]["pass@5"] == 1.0

    table = render_table(summary, ks)
    assert "| project | instances | solved | pass@1 | r.pass@1 | r.pass@1 compiling | pass@2 |" in table
    assert (
        "| **all** | 3 | 3 | 31.11% | 0.00% | 33.33% | 56.67% | 66.67% | 66.67% | 100.00% | 66.67% | 66.67% |" in table
    )
    assert "| all | 0.00% (31.11%) | 66.67% (56.67%) | 66.67% (100.00%) |" in table
    assert "| compiling only | 33.33% (38.33%) | 66.67% (67.78%) | 66.67% (100.00%) |" in table
    assert "r.pass" not in render_table(plain, ks)


def test_missing_ranking_rows_are_an_error():
    from benchsmith.core.errors import BenchsmithError

    results, ranking = example()
    del ranking[("B-1", "b3")]
    with pytest.raises(BenchsmithError, match=r"--ranking: no ranking for B-1 candidate 'b3'"):
        summarise(results, [1], list(ranking.values()))


def test_ranked_pass_at_k_of_one_instance():
    assert ranked_pass_at_k(["x", "y", "z"], {"z"}, 2) == 0.0
    assert ranked_pass_at_k(["x", "y", "z"], {"z"}, 3) == 1.0
    assert ranked_pass_at_k(["x"], {"x"}, 5) == 1.0  # fewer suggestions than k: all are shown
    assert ranked_pass_at_k([], {"x"}, 1) == 0.0  # nothing above the threshold
    with pytest.raises(ValueError):
        ranked_pass_at_k(["x"], {"x"}, 0)
