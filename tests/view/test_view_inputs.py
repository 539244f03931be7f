"""`benchsmith view` on input that does not fit: one line naming the file and what is wrong, no site left behind."""

from __future__ import annotations

import pytest

from benchsmith.view.shape import compiler_errors, failing_messages
from benchsmith.view.site import markdown_html
from tests.helpers.cli import run_cli
from tests.helpers.view_run import view_args

pytestmark = pytest.mark.java  # the run they read is judged by the Java harness (tests/view/conftest.py)


def _fails(completed, *words: str) -> str:
    assert completed.returncode == 2, completed.stdout
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("benchsmith: error: "), completed.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def test_a_dataset_that_does_not_match_the_results(view_run, tmp_path):
    completed = run_cli(
        "view",
        "--results",
        str(view_run / "nl2fix-results.parquet"),
        "--dataset",
        str(view_run.parent / "datasets" / "classbench.parquet"),
        "--out",
        str(tmp_path / "site"),
    )
    _fails(completed, "classbench.parquet", "does not match", "nl2fix-results.parquet", "Ledger-")
    assert not (tmp_path / "site").exists()


def test_a_ranking_of_other_candidates(view_run, tmp_path):
    completed = run_cli(
        "view",
        "--results",
        str(view_run / "classbench-results.parquet"),
        "--ranking",
        str(view_run / "nl2fix-ranking.parquet"),
        "--out",
        str(tmp_path / "site"),
    )
    _fails(completed, "--ranking", "nl2fix-ranking.parquet", "does not match")


def test_a_missing_results_file(tmp_path):
    completed = run_cli("view", "--results", str(tmp_path / "nope.parquet"), "--out", str(tmp_path / "site"))
    _fails(completed, "nope.parquet", "no such file")


def test_a_transcript_broken_before_its_last_line(view_run, tmp_path):
    line = (view_run / "rrr-candidates.transcripts.jsonl").read_text(encoding="utf-8").splitlines()[0]
    broken = tmp_path / "t.jsonl"
    broken.write_text(line[:100] + "\n" + line + "\n", encoding="utf-8")
    args = view_args(view_run)
    args[args.index("--transcripts") + 1] = str(broken)
    _fails(run_cli("view", *args, "--out", str(tmp_path / "site")), f"{broken}:1", "not JSON")


def test_a_transcript_of_another_run(view_run, tmp_path):
    completed = run_cli(
        "view",
        "--results",
        str(view_run / "nl2fix-results.parquet"),
        "--transcripts",
        str(view_run / "rrr-candidates.transcripts.jsonl"),
        "--out",
        str(tmp_path / "site"),
    )
    _fails(completed, "--transcripts", "does not match")


def test_an_out_folder_that_is_not_a_site_is_left_alone(view_run, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep", encoding="utf-8")
    completed = run_cli("view", "--results", str(view_run / "nl2fix-results.parquet"), "--out", str(tmp_path / "mine"))
    _fails(completed, "--out", "not a site")
    assert (tmp_path / "mine" / "notes.txt").read_text(encoding="utf-8") == "keep"


def test_a_site_is_replaced_whole(view_run, tmp_path):
    out = tmp_path / "site"
    assert run_cli("view", *view_args(view_run), "--out", str(out)).returncode == 0
    (out / "data" / "stale.js").write_text("", encoding="utf-8")
    completed = run_cli("view", "--results", str(view_run / "nl2fix-results.parquet"), "--out", str(out))
    assert completed.returncode == 0, completed.stderr
    assert not (out / "data" / "stale.js").exists()
    assert "1 results files" in completed.stdout
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging folder left


def test_failing_messages_from_both_runners_logs():
    java = (
        "[fast path]\nfailed     p.ATest::t org.junit.ComparisonFailure: expected:<1> but was:<2>\n"
        "passed     p.ATest::u\n"
    )
    pytest_log = "FAILED tests/test_a.py::test_b - AssertionError: assert 1 == 2\n1 failed in 0.1s\n"
    assert failing_messages(["p.ATest::t"], java) == [
        ["p.ATest::t", "org.junit.ComparisonFailure: expected:<1> but was:<2>"]
    ]
    assert failing_messages(["tests/test_a.py::test_b", "x::y"], pytest_log) == [
        ["tests/test_a.py::test_b", "AssertionError: assert 1 == 2"],
        ["x::y", ""],
    ]
    assert compiler_errors("[fast path]\nline 57: bad operand types\n  first type: String\n") == [
        "line 57: bad operand types",
        "  first type: String",
    ]


def test_the_reports_markdown_becomes_tables_with_text_escaped():
    page = markdown_html("## a <b> run\n\n| project | pass@1 |\n| --- | ---: |\n| **all** | 50.00% |\n\nStatuses: x")
    assert "<h3>a &lt;b&gt; run</h3>" in page
    assert "<td><b>all</b></td><td>50.00%</td>" in page
    assert "<p>Statuses: x</p>" in page


def test_ground_truths_only_when_asked(view_run, tmp_path):
    """A classbench candidate is diffed against its task's ground truth only with --ground-truth; without it, no
    detail file carries the ground truth as a reference, and the page says why there is no diff."""
    for asked in (False, True):
        out = tmp_path / f"site-{asked}"
        completed = run_cli("view", *view_args(view_run, ground_truth=asked), "--out", str(out))
        assert completed.returncode == 0, completed.stderr
        details = "".join(p.read_text(encoding="utf-8") for p in (out / "data" / "detail").glob("*.js"))
        assert ('"referenceLabel":"the ground truth class"' in details) is asked
        assert ("the ground truth class is hidden" in completed.stderr) is not asked
        assert '"referenceLabel":"the buggy method"' in details  # NL2Fix's diff needs no opting in
