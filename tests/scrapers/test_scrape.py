"""``benchsmith scrape``: the whole stage, a warm rebuild that sends nothing, a killed run that resumes."""

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from benchsmith.core.schema import IssueText, arrow_schema, read_records
from benchsmith.scrapers.scrape import read_urls, scrape
from tests.helpers.trackers import ALL_URLS, Reply, jira_issue_path, serve_all, serve_jira

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]
GONE = "https://github.com/FasterXML/jackson-databind/issues/9999"


def benchsmith(*args: str, wait: bool = True):
    command = [sys.executable, "-m", "benchsmith.cli", *args]
    if not wait:
        return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=60)


def url_list(tmp_path: Path, urls: list[str]) -> Path:
    path = tmp_path / "urls.txt"
    path.write_text("# issue reports\n\n" + "\n".join(urls) + "\n")
    return path


def test_scrape_writes_every_issue_and_a_warm_rerun_sends_no_request(trackers, tmp_path):
    serve_all(trackers)
    urls = url_list(tmp_path, [*ALL_URLS, GONE, ALL_URLS[0]])
    out = tmp_path / "issues.parquet"
    completed = benchsmith("scrape", "--urls", str(urls), "--out", str(out))
    assert completed.returncode == 0, completed.stderr
    assert "5 of 6 issues filled; missing: not found (HTTP 404): 1" in completed.stdout
    issues = read_records(out, IssueText)
    assert [i.url for i in issues] == [*ALL_URLS, GONE]
    assert [i.tracker for i in issues] == ["jira", "jira", "github", "sourceforge", "googlecode", "github"]
    assert [len(i.comments) for i in issues] == [2, 4, 3, 2, 2, 0]
    assert all(i.title and i.description and i.fetched_at for i in issues[:5])
    assert issues[5].missing_reason == "not found (HTTP 404)" and issues[5].title == ""
    card = json.loads(out.with_suffix(".card.json").read_text())
    assert (card["filled"], card["missing"]) == (5, {"not found (HTTP 404)": 1})
    assert card["missing_issues"] == [{"url": GONE, "reason": "not found (HTTP 404)"}]

    sent = trackers.hits()
    assert sent == 10  # 2 Jira + 1 Jira comment page + 3 GitHub + 2 SourceForge + 1 Google Code + 1 404
    again = tmp_path / "again.parquet"
    completed = benchsmith("scrape", "--urls", str(urls), "--out", str(again))
    assert completed.returncode == 0, completed.stderr
    assert trackers.hits() == sent, trackers.paths()[sent:]
    assert "(0 requests, 10 answered from the cache)" in completed.stdout
    assert read_records(again, IssueText) == issues  # fetched_at included: it is the time the tracker answered


def test_a_killed_scrape_resumes_from_what_it_had_fetched(trackers, tmp_path):
    serve_all(trackers)
    held = threading.Event()
    trackers.add(jira_issue_path("MATH-100"), Reply(200, b"{}", hold=held))  # hangs until the process is killed
    order = [ALL_URLS[0], ALL_URLS[2], ALL_URLS[3], ALL_URLS[1], ALL_URLS[4]]
    out = tmp_path / "issues.parquet"
    process = benchsmith(
        "scrape", "--urls", str(url_list(tmp_path, order)), "--out", str(out), "--workers", "1", wait=False
    )
    try:
        deadline = time.monotonic() + 30
        while trackers.hits(jira_issue_path("MATH-100")) == 0 and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    finally:
        held.set()
        if process.poll() is None:
            process.kill()
    assert not out.exists()
    first_run = trackers.paths()
    assert len(first_run) == 7  # CLI-13, GitHub issue and two comment pages, SourceForge two pages, MATH-100 (killed)

    serve_jira(trackers, "MATH-100", "jira/MATH-100.json")
    completed = benchsmith("scrape", "--urls", str(url_list(tmp_path, order)), "--out", str(out), "--workers", "1")
    assert completed.returncode == 0, completed.stderr
    second_run = trackers.paths()[len(first_run) :]
    assert [urlsplit_path(p) for p in second_run] == [
        jira_issue_path("MATH-100"),
        jira_issue_path("MATH-100") + "/comment",
        "/gcode/v2/code.google.com/mockito/issues/issue-5.json",
    ]
    assert [len(i.comments) for i in read_records(out, IssueText)] == [2, 3, 2, 4, 2]


def urlsplit_path(path: str) -> str:
    return path.split("?")[0]


def test_an_unreachable_tracker_is_recorded_and_tried_again_next_run(trackers, tmp_path):
    serve_all(trackers)
    trackers.add("/gcode/v2/code.google.com/mockito/issues/issue-5.json", Reply(503, b"backend error"))
    issues = scrape(ALL_URLS, workers=2)
    assert issues[4].missing_reason == "unavailable: HTTP 503; gave up after 4 attempts"
    assert all(not i.missing_reason for i in issues[:4])
    serve_all(trackers)
    assert scrape(ALL_URLS, workers=2)[4].title == "verify() with a spy reports the wrong invocation"


def test_parallel_scraping_keeps_to_the_per_host_limit(trackers, monkeypatch):
    monkeypatch.setenv("BENCHSMITH_HTTP_PER_HOST", "2")
    for n in range(1, 7):
        serve_jira(trackers, f"CLI-{n}", {"key": f"CLI-{n}", "fields": {"summary": f"issue {n}"}})
        trackers.routes[jira_issue_path(f"CLI-{n}")][0].delay = 0.2
    issues = scrape([f"https://issues.apache.org/jira/browse/CLI-{n}" for n in range(1, 7)], workers=6)
    assert [i.title for i in issues] == [f"issue {n}" for n in range(1, 7)]
    assert trackers.max_in_flight == 2


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "https://issues.apache.org/jira/browse/CLI-1\nhttps://bugs.example.org/show_bug.cgi?id=7\n",
            "urls.txt:2: https://bugs.example.org/show_bug.cgi?id=7: no issue tracker registered for this URL",
        ),
        ("# only a comment\n", "urls.txt: no URLs in the list"),
        ("CLI-13\n", "urls.txt:1: not an http(s) URL: 'CLI-13'"),
    ],
)
def test_a_bad_url_list_is_a_one_line_error_and_writes_nothing(trackers, tmp_path, content, message):
    (tmp_path / "urls.txt").write_text(content)
    out = tmp_path / "issues.parquet"
    completed = benchsmith("scrape", "--urls", str(tmp_path / "urls.txt"), "--out", str(out))
    assert completed.returncode == 2
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"benchsmith: error: {tmp_path}/{message}"), lines
    assert not out.exists() and trackers.hits() == 0


def test_a_missing_url_list_is_named(tmp_path):
    from benchsmith.core.errors import BenchsmithError

    with pytest.raises(BenchsmithError, match="nowhere.txt: no such URL list"):
        read_urls(tmp_path / "nowhere.txt")


def test_the_issue_schema_matches_the_record():
    assert arrow_schema(IssueText).names == list(IssueText.__dataclass_fields__)
