"""Each tracker's real client (jira, PyGithub, requests + BeautifulSoup) against responses in its real format."""

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchsmith import scrapers
from benchsmith.scrapers import TrackerUnavailable, UnknownTracker, fetch_issue, tracker_name
from tests.helpers.trackers import (
    Reply,
    github_issue_path,
    html,
    jira_issue_path,
    json_reply,
    serve_github_531,
    serve_jira,
)

pytestmark = pytest.mark.timeout(60)

CLI_13 = "https://issues.apache.org/jira/browse/CLI-13"
MATH_100 = "https://issues.apache.org/jira/browse/MATH-100"
JACKSON_531 = "https://github.com/FasterXML/jackson-core/issues/531"
CHART_983 = "https://sourceforge.net/p/jfreechart/bugs/983"
MOCKITO_5 = "https://code.google.com/archive/p/mockito/issues/5"
SF_PAGE = "/sf/p/jfreechart/bugs/983/"
GC_EXPORT = "/gcode/v2/code.google.com/mockito/issues/issue-5.json"
JSON = {"Content-Type": "application/json"}


# ---------------------------------------------------------------- Jira


def test_a_jira_issue_through_the_jira_client(trackers):
    serve_jira(trackers, "CLI-13", "jira/CLI-13.json")
    issue = fetch_issue(CLI_13)
    assert issue.title == "Option with optional argument swallows the next option"
    assert issue.description.startswith(
        "Problem\nWhen an option takes an optional argument, the parser treats the next option as its value. "
        "See `Parser.processArgs` and the docs (http://commons.apache.org/cli/usage.html).\n\n```java\n"
    )
    assert (
        'assertNull(line.getOptionValue("a")); // *fails*: value is "-b"\n```\n\n'
        "1. parse `-a -b`\n2. ask for the value of a\n\n```\njava.lang.AssertionError"
    ) in issue.description
    assert issue.description.endswith("\tat org.apache.commons.cli.ParserTest.testOptionalArg(ParserTest.java:88)\n```")
    assert issue.comments == [
        "Confirmed. The trace without markup:\njava.lang.IllegalStateException: no value\n"
        "\tat org.apache.commons.cli.CommandLine.getOptionValue(CommandLine.java:142)\n"
        "\tat org.apache.commons.cli.Parser.<init>(Parser.java:12)",
        "Fixed in r412345, thanks committer!",
    ]
    assert (issue.tracker, issue.status, issue.author, issue.missing_reason) == ("jira", "Closed", "Jane Reporter", "")
    assert (issue.created, issue.updated) == ("2006-05-22T04:05:29Z", "2008-07-20T21:14:12Z")
    assert issue.comment_authors == ["Carl Committer", "Jane Reporter"]
    assert issue.comment_created == ["2006-05-23T10:00:00Z", "2006-05-24T13:30:00Z"]
    assert issue.fetched_at.endswith("Z")
    assert trackers.paths() == [
        "/jira/rest/api/2/issue/CLI-13?fields=summary%2Cdescription%2Ccomment%2Creporter%2Ccreated%2Cupdated%2Cstatus"
    ]


def test_jira_comments_past_the_issue_s_first_page_are_fetched(trackers):
    serve_jira(trackers, "MATH-100", "jira/MATH-100.json")
    trackers.add(
        "/jira/rest/api/2/issue/MATH-100/comment?startAt=2&maxResults=100",
        Reply(200, trackers.load("jira/MATH-100-comments-2.json").encode(), JSON),
    )
    issue = fetch_issue(MATH_100)
    assert issue.comments == ["comment one", "comment two", "comment three", "comment four"]
    assert issue.comment_authors == ["First", "Second", "Third", "Fourth"]
    assert issue.description == "The solver returns `1.0000001` for a root bracketed by [0, 1]."


def test_a_missing_jira_issue_is_recorded_not_raised(trackers):
    trackers.add(
        jira_issue_path("CLI-999"),
        Reply(404, trackers.load("jira/not-found.json").encode(), {"Content-Type": "application/json"}),
    )
    trackers.add(jira_issue_path("CLI-998"), Reply(401, b'{"errorMessages":["You do not have the permission"]}'))
    assert fetch_issue("https://issues.apache.org/jira/browse/CLI-999").missing_reason == "not found (HTTP 404)"
    assert fetch_issue("https://issues.apache.org/jira/browse/CLI-998").missing_reason == "private (HTTP 401)"
    assert trackers.hits() == 2  # neither is retried


def test_a_jira_500_then_success_gives_the_issue(trackers):
    serve_jira(trackers, "CLI-13", "jira/CLI-13.json", Reply(500, b"<html>Internal error</html>"))
    assert fetch_issue(CLI_13).title == "Option with optional argument swallows the next option"
    assert trackers.hits() == 2


def test_a_jira_429_waits_for_retry_after_in_the_shared_layer(trackers):
    serve_jira(trackers, "CLI-13", "jira/CLI-13.json", Reply(429, b"", {"Retry-After": "1"}))
    started = time.monotonic()
    assert fetch_issue(CLI_13).comments[1] == "Fixed in r412345, thanks committer!"
    assert time.monotonic() - started >= 1.0
    assert trackers.hits() == 2


def test_a_jira_that_keeps_failing_raises_an_error_naming_the_url(trackers):
    trackers.add(jira_issue_path("CLI-13"), Reply(503, b"maintenance"))
    with pytest.raises(TrackerUnavailable, match=rf"^{CLI_13}: HTTP 503; gave up after 4 attempts$"):
        fetch_issue(CLI_13)


def test_a_very_long_jira_description_arrives_whole(trackers):
    data = json.loads(trackers.load("jira/CLI-13.json"))
    line = "Rendering the *chart* fails for a series of {{1e6}} points.\n"
    code = "".join(f"double v{n} = series.getY({n});\n" for n in range(20000))
    data["fields"]["description"] = line * 10000 + "{code:java}\n" + code + "{code}"  # about 1.3 MB
    serve_jira(trackers, "CLI-13", data)
    issue = fetch_issue(CLI_13)
    assert issue.description.count("Rendering the chart fails for a series of `1e6` points.") == 10000
    assert issue.description.endswith("```java\n" + code + "```")


def test_an_unparseable_jira_answer_is_recorded(trackers):
    trackers.add(jira_issue_path("CLI-13"), html("<html><body>Log in</body></html>"))
    assert fetch_issue(CLI_13).missing_reason == "unparseable response"


# ---------------------------------------------------------------- GitHub


def test_a_github_issue_and_its_paginated_comments_through_pygithub(trackers):
    serve_github_531(trackers)
    issue = fetch_issue(JACKSON_531)
    assert issue.title == "Non-blocking parser reports incorrect location for fields"
    assert issue.description == (
        "Problem\nWhen feeding input byte by byte, `getTokenLocation()` points past the field name. "
        "See the javadoc (https://fasterxml.github.io/jackson-core/javadoc/2.9/).\n\n"
        "```java\nJsonParser p = f.createNonBlockingByteArrayParser();\n"
        "assertEquals(1, p.getTokenLocation().getColumnNr()); // **fails**\n```\n\n"
        "Stack trace:\n\n    java.lang.AssertionError: expected:<1> but was:<7>\n"
        "        at org.junit.Assert.fail(Assert.java:88)"
    )
    assert issue.comments == [
        "Thanks! Could you try with `2.9.9`?",
        "Same with 2.9.9:\n\n```\ncolumn 7\n```",
        "Fixed for 2.10.0.",
    ]
    assert issue.comment_authors == ["maintainer", "octo-reporter", "maintainer"]
    assert (issue.status, issue.author, issue.created, issue.tracker) == (
        "closed",
        "octo-reporter",
        "2019-04-02T18:20:44Z",
        "github",
    )
    path = github_issue_path("FasterXML", "jackson-core", 531)
    assert trackers.paths() == [path, f"{path}/comments?per_page=100", f"{path}/comments?page=2&per_page=100"]


def test_the_github_token_is_sent_when_set_and_never_cached(trackers, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret123")
    serve_github_531(trackers)
    fetch_issue(JACKSON_531)
    assert all("ghp_secret123" in seen.headers.get("Authorization", "") for seen in trackers.seen)
    cache = Path(os.environ["BENCHSMITH_CACHE"])
    assert not any(b"ghp_secret123" in path.read_bytes() for path in cache.rglob("*") if path.is_file())


def test_missing_and_deleted_github_issues_are_recorded(trackers):
    trackers.add(github_issue_path("mockito", "mockito", 2), json_reply({"message": "Not Found"}, 404))
    trackers.add(github_issue_path("mockito", "mockito", 3), json_reply({"message": "This issue was deleted"}, 410))
    assert fetch_issue("https://github.com/mockito/mockito/issues/2").missing_reason == "not found (HTTP 404)"
    assert fetch_issue("https://github.com/mockito/mockito/pull/3").missing_reason == "deleted (HTTP 410)"


def test_a_github_429_is_retried_after_its_wait(trackers):
    serve_github_531(trackers)
    path = github_issue_path("FasterXML", "jackson-core", 531)
    issue_json = Reply(
        200, trackers.load("github/jackson-core-531.json").encode(), {"Content-Type": "application/json"}
    )
    trackers.add(path, json_reply({"message": "secondary rate limit"}, 429, **{"Retry-After": "1"}), issue_json)
    assert len(fetch_issue(JACKSON_531).comments) == 3
    assert trackers.hits(path) == 2


def test_a_github_rate_limit_reset_beyond_max_wait_is_an_error_not_a_hang(trackers):
    reset = str(int(time.time()) + 3600)
    trackers.add(
        github_issue_path("FasterXML", "jackson-core", 531),
        json_reply(
            {"message": "API rate limit exceeded"}, 403, **{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}
        ),
    )
    started = time.monotonic()
    with pytest.raises(
        TrackerUnavailable, match=rf"^{JACKSON_531}: rate limit exhausted .*more than BENCHSMITH_HTTP_MAX_WAIT"
    ):
        fetch_issue(JACKSON_531)
    assert time.monotonic() - started < 5


# ---------------------------------------------------------------- SourceForge


def test_a_sourceforge_ticket_and_its_second_comment_page(trackers):
    trackers.add(SF_PAGE, html(trackers.load("sourceforge/jfreechart-bugs-983.html")))
    trackers.add(f"{SF_PAGE}?limit=25&page=1", html(trackers.load("sourceforge/jfreechart-bugs-983-page1.html")))
    issue = fetch_issue(CHART_983)
    assert issue.title == "Potential NPE in AbstractCategoryItemRenderer.getLegendItems()"
    assert issue.description == (
        "In `AbstractCategoryItemRenderer.getLegendItems()` the dataset is used before the null check:\n"
        "see the forum thread (https://www.jfree.org/forum/viewtopic.php?t=29000).\n\n"
        "```\nCategoryDataset dataset = plot.getDataset(index);\n"
        "int seriesCount = dataset.getRowCount();  // NPE <here>\nif (dataset != null) {\n```\n\n"
        "Reproduced with 1.0.13 & 1.0.14."
    )
    assert issue.comments == ["Thanks for the report. Committed a fix, see [r2345].", "Works for me now, thank you."]
    assert issue.comment_authors == ["David Gilbert", "Anonymous Reporter"]
    assert issue.comment_created == ["2009-11-17T10:12:00Z", "2009-11-21T13:00:00Z"]
    assert (issue.status, issue.author, issue.created, issue.updated) == (
        "closed-fixed",
        "Anonymous Reporter",
        "2009-11-16T09:05:00Z",
        "2009-11-20T15:34:00Z",
    )
    assert trackers.paths() == [SF_PAGE, f"{SF_PAGE}?limit=25&page=1"]


def test_malformed_sourceforge_html_still_gives_the_text(trackers):
    trackers.add("/sf/p/jfreechart/bugs/991/", html(trackers.load("sourceforge/malformed.html")))
    issue = fetch_issue("https://sourceforge.net/p/jfreechart/bugs/991/")
    assert issue.title == "Pie chart label overlap"
    assert issue.description.startswith(
        "Labels overlap when many sections are small\n\nSecond paragraph without closing tags"
    )
    assert "```\nPiePlot plot = (PiePlot) chart.getPlot();\nplot.setLabelGap(0.02);\n```" in issue.description
    assert issue.status == "open" and issue.comments == ["Me too"] and issue.missing_reason == ""


def test_a_page_that_is_not_a_ticket_is_recorded_unparseable(trackers):
    trackers.add(SF_PAGE, html(trackers.load("sourceforge/login-page.html")))
    assert fetch_issue(CHART_983).missing_reason == "unparseable response"


@pytest.mark.parametrize("declared", ["meta", "header", "nothing"])
def test_a_latin1_sourceforge_page_decodes_right(trackers, declared):
    page = trackers.load("sourceforge/jfreechart-bugs-983.html").replace("dataset is used", "jeu de données utilisé")
    page = page.replace('<meta charset="utf-8">', '<meta charset="iso-8859-1">' if declared == "meta" else "")
    content_type = "text/html; charset=ISO-8859-1" if declared == "header" else "text/html"
    trackers.add(SF_PAGE, html(page.encode("latin-1"), content_type=content_type))
    trackers.add(f"{SF_PAGE}?limit=25&page=1", html(trackers.load("sourceforge/jfreechart-bugs-983-page1.html")))
    assert "the jeu de données utilisé before the null check" in fetch_issue(CHART_983).description


def test_a_missing_sourceforge_ticket_is_recorded(trackers):
    assert fetch_issue(CHART_983).missing_reason == "not found (HTTP 404)"


# ---------------------------------------------------------------- Google Code archive


@pytest.mark.parametrize(
    "url",
    [
        MOCKITO_5,
        "https://code.google.com/p/mockito/issues/detail?id=5",
        "https://storage.googleapis.com/google-code-archive/v2/code.google.com/mockito/issues/issue-5.json",
    ],
)
def test_a_google_code_issue_from_the_archive_s_json(trackers, url):
    trackers.add(
        GC_EXPORT,
        Reply(200, trackers.load("googlecode/mockito-issue-5.json").encode(), {"Content-Type": "application/json"}),
    )
    issue = fetch_issue(url)
    assert issue.title == "verify() with a spy reports the wrong invocation"
    assert issue.description == (
        'What steps will reproduce the problem?\n1. spy on a LinkedList\n2. call verify(spy).add("one")\n\n'
        "What is the expected output? What do you see instead?\nExpected success, got:\n"
        "org.mockito.exceptions.verification.WantedButNotInvoked: \n\tat org.mockito.Mockito.verify(Mockito.java:120)\n"
        "\tat Foo.<init>(Foo.java:3)"
    )
    assert issue.comments == ["Reproduced & fixed in r310.", "Thanks, verified with the nightly build."]
    assert issue.comment_authors == ["7020823745312876437", "-4312967418839312341"]
    assert (issue.status, issue.created, issue.updated) == ("Fixed", "2008-06-12T09:20:00Z", "2008-06-14T10:00:00Z")


def test_google_code_json_with_bytes_that_are_not_utf8(trackers):
    data = json.loads(trackers.load("googlecode/mockito-issue-5.json"))
    data["summary"] = "Mockito échoue avec un « spy »"
    trackers.add(
        GC_EXPORT,
        Reply(200, json.dumps(data, ensure_ascii=False).encode("cp1252"), {"Content-Type": "application/json"}),
    )
    assert fetch_issue(MOCKITO_5).title == "Mockito échoue avec un « spy »"


def test_google_code_issues_the_archive_lacks_or_garbles_are_recorded(trackers):
    trackers.add(
        "/gcode/v2/code.google.com/mockito/issues/issue-6.json", Reply(403, b"<Error><Code>AccessDenied</Code></Error>")
    )
    trackers.add("/gcode/v2/code.google.com/mockito/issues/issue-7.json", Reply(200, b'{"summary": "cut sho'))
    assert (
        fetch_issue("https://code.google.com/archive/p/mockito/issues/6").missing_reason
        == "not in the archive (HTTP 403)"
    )
    assert fetch_issue("https://code.google.com/archive/p/mockito/issues/7").missing_reason == "unparseable response"


# ---------------------------------------------------------------- the registry


def test_the_registry_picks_the_tracker_from_the_url():
    urls = (CLI_13, JACKSON_531, "https://github.com/mockito/mockito/pull/188", CHART_983, MOCKITO_5)
    assert [tracker_name(u) for u in urls] == ["jira", "github", "github", "sourceforge", "googlecode"]


@pytest.mark.parametrize(
    "url", ["https://bugs.example.org/show_bug.cgi?id=7", "https://github.com/FasterXML/jackson-core", "not a url", ""]
)
def test_an_unknown_url_is_an_error_naming_it(url):
    with pytest.raises(UnknownTracker, match=f"^{re.escape(url)}: no issue tracker registered for this URL"):
        fetch_issue(url)


def test_importing_the_scrapers_has_no_side_effects(tmp_path):
    code = "import sys, benchsmith.scrapers, benchsmith.scrapers.scrape; print(sorted(m for m in ('jira', 'github', 'bs4') if m in sys.modules))"
    env = {**os.environ, "BENCHSMITH_CACHE": str(tmp_path / "cache")}
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=Path(scrapers.__file__).parents[1]
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "['bs4']"  # bs4 is light; the tracker clients load on first use
    assert not (tmp_path / "cache").exists()
