"""``nl2fix mine`` on a git history written here (tests/helpers/mined_history.py), with the issue reports served by
the loopback tracker server; its output built by ``nl2fix build`` and proven by ``validate``, unchanged."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from benchsmith.builders.mine.scan import Trackers, issue_reference, project_name, trackers_of
from benchsmith.core.journal import Journal
from benchsmith.core.schema import NL2FixInstance, read_records
from tests.helpers.cli import run_cli
from tests.helpers.mined_history import write_history, write_unbuildable_history
from tests.helpers.trackers import TrackerServer, serve_github_531, serve_jira

CLI_TRACKERS = Trackers("https://issues.apache.org/jira/browse", "CLI", "apache/commons-cli")


def test_issue_references_of_messages():
    assert (
        issue_reference("[CLI-321] Fix it", CLI_TRACKERS).report_url == "https://issues.apache.org/jira/browse/CLI-321"
    )
    assert issue_reference("cli-7: lower case", CLI_TRACKERS).report_id == "CLI-7"
    github = issue_reference("Fix parsing (#88)", CLI_TRACKERS)
    assert (github.report_id, github.report_url) == ("88", "https://github.com/apache/commons-cli/issues/88")
    assert issue_reference("See GH-12", CLI_TRACKERS).report_id == "12"
    url = issue_reference("as https://github.com/o/r/pull/5 says", Trackers())
    assert (url.report_id, url.report_url) == ("5", "https://github.com/o/r/pull/5")
    jira_url = issue_reference("https://issues.apache.org/jira/browse/CODEC-99 fixed", Trackers())
    assert jira_url.report_id == "CODEC-99"
    for unrelated in (
        "Use UTF-8 everywhere",
        "Bump SHA-256 helper",
        "Merge branch 'x'",
        "Fix IO-1 in the docs",
        "Color &#35;3 and a/b#4",
    ):
        assert issue_reference(unrelated, CLI_TRACKERS) is None, unrelated
    assert (
        issue_reference("Fix #9", Trackers("https://issues.apache.org/jira/browse", "CLI")) is None
    )  # no GitHub project


def test_project_names():
    assert project_name("https://github.com/apache/commons-cli.git") == "CommonsCli"
    assert project_name("/work/.mirror/apache+commons-csv/repo") == "CommonsCsv"
    assert project_name("/tmp/calc/") == "Calc"


def test_trackers_from_the_pom(tmp_path):
    repo = write_history(tmp_path / "calc")
    git_dir = repo / ".git"
    assert trackers_of(git_dir, "HEAD") == Trackers("https://issues.apache.org/jira/browse", "CLI", "")
    assert trackers_of(git_dir, "HEAD", github="o/r").github == "o/r"
    assert trackers_of(git_dir, "HEAD", jira="https://jira.example.org/browse/ABC").jira_key == "ABC"


@pytest.fixture(scope="module")
def mined(tmp_path_factory):
    """The history mined once, the trackers at a loopback server; (output folder, card, environment)."""
    root = tmp_path_factory.mktemp("mine")
    repo = write_history(root / "calc")
    server = TrackerServer().start()
    serve_jira(server, "CLI-13", "jira/CLI-13.json")
    serve_github_531(server)
    env = {
        "BENCHSMITH_JIRA_URL": f"{server.base}/jira",
        "BENCHSMITH_GITHUB_API_URL": f"{server.base}/github-api",
        "BENCHSMITH_CACHE": str(root / "cache"),
        "BENCHSMITH_HTTP_RETRIES": "1",
        "BENCHSMITH_HTTP_BACKOFF": "0.01",
        "GITHUB_TOKEN": "",
    }
    out = root / "out"
    # five runs of each version: the flaky test (a coin toss) keeps one outcome through all ten with odds 1 in 512
    done = run_cli(
        "nl2fix",
        "mine",
        "--repo",
        str(repo),
        "--out",
        str(out),
        "--runs",
        "5",
        "--github",
        "FasterXML/jackson-core",
        env=env,
    )
    server.stop()
    assert done.returncode == 0, done.stderr[-3000:]
    return out, json.loads((out / "mine.json").read_text()), env


@pytest.mark.java
@pytest.mark.slow
def test_mine_selects_reproduces_and_counts(mined):
    out, card, _ = mined
    assert card["counts"] == {
        "scanned": 6,
        "referencing_issue": 5,
        "single_method_strict": 3,
        "single_method_lenient": 3,
        "reproduced": 3,
        "with_flaky_tests": 1,
        "flaky_tests": 1,
        "instances": 3,
    }
    assert card["rejections"] == {"no issue reference": 1, "multi-method": 1, "no test added or changed": 1}
    assert card["issue_text"] == {"fetched": 2, "missing: not found (HTTP 404)": 1}  # CLI-17: the tracker answers 404
    assert card["instance_dates"] == {"first": "2025-01-03T12:00:00+00:00", "last": "2025-01-07T12:00:00+00:00"}
    project = out / "framework" / "projects" / "Calc"
    rows = (project / "active-bugs.csv").read_text().splitlines()
    assert rows[0] == "bug.id,revision.id.buggy,revision.id.fixed,report.id,report.url"
    assert [r.split(",")[0::4] for r in rows[1:]] == [
        ["3", "https://issues.apache.org/jira/browse/CLI-13"],
        ["6", "https://github.com/FasterXML/jackson-core/issues/531"],
        ["7", "https://issues.apache.org/jira/browse/CLI-17"],
    ]
    assert sorted(p.name for p in (project / "patches").iterdir()) == ["3.src.patch", "6.src.patch", "7.src.patch"]
    patch = (project / "patches" / "3.src.patch").read_text()
    assert "-        return n / 2;\n+        return n >> 1;" in patch  # fixed → buggy, as Defects4J's
    assert (
        project / "trigger_tests" / "3"
    ).read_text() == "--- org.example.calc.CalcTest::halfOfNegativeRoundsTowardZero\n"
    assert (project / "trigger_tests" / "6").read_text() == "--- org.example.calc.SignTest::signOfZero\n"
    assert (
        project / "trigger_tests" / "7"
    ).read_text() == "--- org.example.calc.NegateTest::negatesPositive\n"  # JUnit 5
    assert (project / "relevant_tests" / "6").read_text().split() == [
        "org.example.calc.CalcTest",
        "org.example.calc.SignTest",
    ]
    assert (project / "dependent_tests").read_text() == "--- org.example.calc.SignTest::flakyOnEveryVersion\n"
    assert "2025-01-06T12:00:00+00:00" in (project / "commit-dates.csv").read_text()
    multi = next(s for s in card["steps"] if s["reason"] == "multi-method")
    assert "min(int, int)" in multi["detail"] and "max(int, int)" in multi["detail"]
    assert "| Calc-6 |" in (out / "MINE.md").read_text()


@pytest.mark.java
@pytest.mark.slow
def test_mined_project_builds_and_validates_unchanged(mined, tmp_path):
    out, _, env = mined  # the tracker server has stopped: issue text only from the scrapers' cache the miner filled
    dataset = tmp_path / "mined.parquet"
    built = run_cli(
        "nl2fix",
        "build",
        "--defects4j",
        str(out),
        "--repos",
        str(out / "repos"),
        "--projects",
        "Calc",
        "--out",
        str(dataset),
        env=env,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    instances = {i.instance_id: i for i in read_records(dataset, NL2FixInstance)}
    assert sorted(instances) == ["Calc-3", "Calc-6", "Calc-7"]
    assert instances["Calc-3"].issue_title and instances["Calc-6"].issue_title
    assert instances["Calc-7"].report_url.endswith("CLI-17") and not instances["Calc-7"].issue_title  # never made up
    assert instances["Calc-6"].trigger_tests == ["org.example.calc.SignTest::signOfZero"]
    report = tmp_path / "report.json"
    validated = run_cli(
        "validate",
        "--dataset",
        str(dataset),
        "--defects4j",
        str(out),
        "--repos",
        str(out / "repos"),
        "--out",
        str(report),
        env=env,
    )
    assert validated.returncode == 0, validated.stderr[-3000:]
    outcomes = json.loads(report.read_text())["instances"]
    assert {i: o["status"] for i, o in outcomes.items()} == dict.fromkeys(["Calc-3", "Calc-6", "Calc-7"], "reproduced")


@pytest.mark.java
@pytest.mark.slow
def test_an_interrupted_scan_resumes_without_redoing_steps(mined, tmp_path):
    out, card, env = mined
    again = tmp_path / "again"
    subprocess.run(["cp", "-a", str(out), str(again)], check=True)
    os.remove(again / "mine.json")
    journal = Journal(again / "mine")
    for step in card["steps"]:  # as an interrupted run leaves them, one marked to tell it was not decided again
        marked = {**step, "detail": "journalled"} if step["reason"] == "multi-method" else step
        journal.append({"format": 1, "selection": "lenient", "runs": 5, **marked})
    done = run_cli(
        "nl2fix",
        "mine",
        "--repo",
        str(out / "repos" / "Calc"),
        "--name",
        "Calc",
        "--out",
        str(again),
        "--runs",
        "5",
        "--github",
        "FasterXML/jackson-core",
        "--no-scrape",
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "6 of 6 steps done before; resuming" in done.stderr
    resumed = json.loads((again / "mine.json").read_text())
    assert next(s for s in resumed["steps"] if s["reason"] == "multi-method")["detail"] == "journalled"
    assert resumed["counts"] == card["counts"]
    assert not Journal(again / "mine").path.exists()
    assert Path(again / "framework" / "projects" / "Calc" / "trigger_tests" / "3").is_file()


@pytest.mark.java
@pytest.mark.slow
def test_finish_exports_what_an_interrupted_scan_journalled(mined, tmp_path):
    out, card, env = mined
    again = tmp_path / "again"
    subprocess.run(["cp", "-a", str(out), str(again)], check=True)
    os.remove(again / "mine.json")
    journal = Journal(again / "mine")
    for step in card["steps"][:2]:  # interrupted after the first instance
        journal.append({"format": 1, "selection": "lenient", "runs": 5, **step})
    done = run_cli(
        "nl2fix",
        "mine",
        "--repo",
        str(out / "repos" / "Calc"),
        "--name",
        "Calc",
        "--out",
        str(again),
        "--runs",
        "5",
        "--finish",
        "--no-scrape",
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    finished = json.loads((again / "mine.json").read_text())
    assert finished["counts"]["scanned"] == 2 and finished["counts"]["instances"] == 1
    assert finished["until"] == card["steps"][1]["date"]
    assert (again / "framework" / "projects" / "Calc" / "active-bugs.csv").read_text().count("\n") == 2


@pytest.mark.java
def test_a_step_that_cannot_be_built_says_why(tmp_path):
    repo = write_unbuildable_history(tmp_path / "calc")
    out = tmp_path / "out"
    done = run_cli(
        "nl2fix",
        "mine",
        "--repo",
        str(repo),
        "--out",
        str(out),
        "--no-scrape",
        env={"BENCHSMITH_CACHE": str(tmp_path / "cache")},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    card = json.loads((out / "mine.json").read_text())
    (step,) = [s for s in card["steps"] if s["lenient"]]
    assert step["reason"] == "build failed"
    assert "main sources do not compile" in step["detail"] and "org.example.absent" in step["detail"]
    assert step["build_notes"] == (
        "parent pom org.example.absent:absent-parent:9 not at hand; in neither Debian's Maven "
        "repository nor ~/.m2: org.example.absent:absent-library:1.0"
    )
    assert card["counts"]["instances"] == 0 and (out / "framework" / "projects" / "Calc" / "active-bugs.csv").is_file()
    assert "| build failed |" in (out / "MINE.md").read_text()


@pytest.mark.java
@pytest.mark.slow
def test_relevant_tests_are_the_classes_that_load_the_changed_class(tmp_path):
    """As Defects4J's: HalverTest reaches Calc only through Halver and is relevant; WordsTest names Calc only in a
    comment and a string and is not (reading the sources would have it the other way round)."""
    import shutil

    from tests.helpers.mined_history import write_indirect_history

    repo = write_indirect_history(tmp_path / "calc")
    out = tmp_path / "out"
    env = {"BENCHSMITH_CACHE": str(tmp_path / "cache")}
    done = run_cli("nl2fix", "mine", "--repo", str(repo), "--out", str(out), "--no-scrape", env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    card = json.loads((out / "mine.json").read_text())
    (step,) = [s for s in card["steps"] if s["bug_id"]]
    assert step["reason"] == "" and step["relevant_by"] == "class loading"
    assert step["relevant_tests"] == ["org.example.calc.CalcTest", "org.example.calc.HalverTest"]
    project = out / "framework" / "projects" / "Calc"
    assert (project / "relevant_tests" / "2").read_text().split() == step["relevant_tests"]
    assert card["relevant_tests_found_by"] == {"class loading": 1}
    assert "found by class loading: 1" in (out / "MINE.md").read_text()
    loading_log = (out / "mine-logs" / "Calc-2" / "relevant-loading.log").read_text()
    assert "org.example.calc.HalverTest: loads org.example.calc.Calc" in loading_log
    assert "org.example.calc.WordsTest: loads none" in loading_log

    # A journal written before the relevant tests were found by class loading: its reproduced step has its relevant
    # tests found again (its trigger tests stand), the other step is kept.
    os.remove(out / "mine.json")
    shutil.rmtree(out / "mine-logs")
    journal = Journal(out / "mine")
    for s in card["steps"]:
        old = {k: v for k, v in s.items() if k != "relevant_by"}
        journal.append(
            {
                "format": 1,
                "selection": "lenient",
                "runs": 3,
                **(old if old["reason"] else {**old, "relevant_tests": ["org.example.calc.WordsTest"]}),
            }
        )
    again = run_cli(
        "nl2fix",
        "mine",
        "--repo",
        str(out / "repos" / "Calc"),
        "--name",
        "Calc",
        "--out",
        str(out),
        "--no-scrape",
        env=env,
    )
    assert again.returncode == 0, again.stderr[-3000:]
    assert "1 of 2 steps done before; resuming" in again.stderr
    assert "1 reproduced steps to have their relevant tests found again" in again.stderr
    logs = out / "mine-logs" / "Calc-2"
    assert (logs / "relevant-loading.log").is_file() and not (logs / "buggy-1.log").exists()  # no run of buggy again
    (redone,) = [s for s in json.loads((out / "mine.json").read_text())["steps"] if s["bug_id"]]
    assert redone["relevant_tests"] == step["relevant_tests"] and redone["relevant_by"] == "class loading"


@pytest.mark.java
@pytest.mark.slow
def test_mined_instances_carry_their_fix_date_into_the_dataset(tmp_path):
    """commit-dates.csv → the NL2Fix dataset's fix_date column, and the range on its card."""
    import pyarrow.parquet as pq

    from tests.helpers.mined_history import write_indirect_history

    repo = write_indirect_history(tmp_path / "calc")
    out = tmp_path / "out"
    env = {"BENCHSMITH_CACHE": str(tmp_path / "cache")}
    assert run_cli("nl2fix", "mine", "--repo", str(repo), "--out", str(out), "--no-scrape", env=env).returncode == 0
    dataset = tmp_path / "mined.parquet"
    built = run_cli(
        "nl2fix",
        "build",
        "--defects4j",
        str(out),
        "--repos",
        str(out / "repos"),
        "--projects",
        "Calc",
        "--no-scrape",
        "--out",
        str(dataset),
        env=env,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    assert pq.read_table(dataset).column("fix_date").to_pylist() == ["2025-01-02T12:00:00+00:00"]
    (instance,) = read_records(dataset, NL2FixInstance)
    assert instance.fix_date == "2025-01-02T12:00:00+00:00"
    assert (
        "between 2025-01-02T12:00:00+00:00 and 2025-01-02T12:00:00+00:00."
        in dataset.with_suffix(".card.md").read_text()
    )


def test_a_resumed_scan_decides_again_what_no_verdict_was_given_on():
    """A step the harness itself could not judge (its warm compiler did not start) and a step rejected once its
    relevant tests were known, before they were found by class loading, are decided again; every other journalled step
    stands (a reproduced one without relevant_by has only its relevant tests found again: the resume test above)."""
    from benchsmith.builders.mine.run import MineOptions, _journalled

    parse = _journalled(MineOptions(repo="calc", out=Path("out")))
    step = {"sha": "a" * 40, "parent": "b" * 40, "date": "2025-01-02T12:00:00+00:00", "lenient": True, "bug_id": 2}

    def journalled(**fields):
        return parse({"format": 1, "selection": "lenient", "runs": 3, **step, **fields})

    assert (
        journalled(
            reason="fixed version cannot be judged",
            detail="fixed version is error: harness: the warm compiler did not start",
        )
        is None
    )
    assert (
        journalled(reason="fixed version cannot be judged", detail="buggy version is timeout: killed after 120s")
        is None
    )
    assert journalled(reason="fixed version cannot be judged", detail="fixed version is uncompilable: x") is not None
    assert journalled(reason="no trigger test", detail="the fix's tests (T) fail on neither version or on both")
    assert journalled(reason="").relevant_by == ""
    assert journalled(reason="", relevant_by="class loading").relevant_by == "class loading"
    assert (
        journalled(
            reason="only flaky trigger tests",
            detail="trigger tests fail on the fixed version beside the relevant tests: T::t",
        )
        is None
    )
