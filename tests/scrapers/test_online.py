"""One real issue per tracker, for a user with network access: ``make test-online`` (BENCHSMITH_ONLINE=1).

Skipped unless BENCHSMITH_ONLINE=1; uses the real base URLs and a cache of its own (set GITHUB_TOKEN for
GitHub's larger rate limit). The issues are ones Defects4J's bugs point to.
"""

import os

import pytest

from benchsmith.scrapers import fetch_issue

pytestmark = [
    pytest.mark.online,
    pytest.mark.timeout(300),
    pytest.mark.skipif(
        os.environ.get("BENCHSMITH_ONLINE") != "1", reason="talks to the real trackers: make test-online"
    ),
]

REAL = {
    "jira": "https://issues.apache.org/jira/browse/CLI-13",
    "github": "https://github.com/FasterXML/jackson-core/issues/531",
    "sourceforge": "https://sourceforge.net/p/jfreechart/bugs/983",
    "googlecode": "https://storage.googleapis.com/google-code-archive/v2/code.google.com/closure-compiler/issues/issue-884.json",
}


@pytest.fixture(autouse=True)
def _real_trackers(tmp_path, monkeypatch):
    for variable in (
        "BENCHSMITH_JIRA_URL",
        "BENCHSMITH_GITHUB_API_URL",
        "BENCHSMITH_SOURCEFORGE_URL",
        "BENCHSMITH_GOOGLECODE_URL",
    ):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("BENCHSMITH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("BENCHSMITH_HTTP_MAX_WAIT", "60")


@pytest.mark.parametrize("tracker", sorted(REAL))
def test_a_real_issue(tracker):
    issue = fetch_issue(REAL[tracker])
    assert issue.missing_reason == "", issue.missing_reason
    assert issue.tracker == tracker
    assert issue.title.strip()
    assert issue.description.strip()
    assert issue.fetched_at
    assert len(issue.comment_authors) == len(issue.comments) == len(issue.comment_created)
