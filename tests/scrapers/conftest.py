"""The local tracker server and an environment that points every tracker at it."""

from __future__ import annotations

import pytest

from tests.scrapers.server import Reply, TrackerServer

HTML = "text/html; charset=utf-8"


@pytest.fixture
def server():
    running = TrackerServer().start()
    yield running
    running.stop()


@pytest.fixture
def trackers(server: TrackerServer, tmp_path, monkeypatch) -> TrackerServer:
    """All four trackers at the local server, an empty cache of the test's own, quick retries."""
    env = {
        "BENCHSMITH_JIRA_URL": f"{server.base}/jira",
        "BENCHSMITH_GITHUB_API_URL": f"{server.base}/github-api",
        "BENCHSMITH_SOURCEFORGE_URL": f"{server.base}/sf",
        "BENCHSMITH_GOOGLECODE_URL": f"{server.base}/gcode",
        "BENCHSMITH_CACHE": str(tmp_path / "cache"),
        "BENCHSMITH_HTTP_RETRIES": "3",
        "BENCHSMITH_HTTP_BACKOFF": "0.01",
        "BENCHSMITH_HTTP_MAX_WAIT": "5",
        "BENCHSMITH_HTTP_CONNECT_TIMEOUT": "2",
        "BENCHSMITH_HTTP_TIMEOUT": "2",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    return server


def html(text: str | bytes, status: int = 200, content_type: str = HTML, **headers: str) -> Reply:
    body = text.encode("utf-8") if isinstance(text, str) else text
    return Reply(status, body, {"Content-Type": content_type, **headers})


def jira_issue_path(key: str) -> str:
    return f"/jira/rest/api/2/issue/{key}"


def github_issue_path(owner: str, repo: str, number: int) -> str:
    return f"/github-api/repos/{owner}/{repo}/issues/{number}"


def serve_jira(server: TrackerServer, key: str, data: dict | str, *before: Reply) -> None:
    """*data* (a dict, or a response file's name) at the issue's REST path, after *before*."""
    body = server.load(data) if isinstance(data, str) else data
    server.add(
        jira_issue_path(key),
        *before,
        Reply(
            200, body if isinstance(body, dict) else body.encode(), {"Content-Type": "application/json;charset=UTF-8"}
        ),
    )


def serve_github_531(server: TrackerServer) -> None:
    """jackson-core#531: the issue and its three comments on two pages linked by a Link header."""
    path = github_issue_path("FasterXML", "jackson-core", 531)
    json_type = {"Content-Type": "application/json; charset=utf-8"}
    server.add(path, Reply(200, server.load("github/jackson-core-531.json").encode(), json_type))
    page2 = f"{server.base}{path}/comments?per_page=100&page=2"
    link = f'<{page2}>; rel="next", <{page2}>; rel="last"'
    server.add(f"{path}/comments", Reply(200, server.load("github/jackson-core-531-comments-1.json").encode(),
                                         {**json_type, "Link": link}))  # fmt: skip
    first = f"{server.base}{path}/comments?per_page=100&page=1"
    server.add(f"{path}/comments?per_page=100&page=2",
               Reply(200, server.load("github/jackson-core-531-comments-2.json").encode(),
                     {**json_type, "Link": f'<{first}>; rel="prev", <{first}>; rel="first"'}))  # fmt: skip


ALL_URLS = [
    "https://issues.apache.org/jira/browse/CLI-13",
    "https://issues.apache.org/jira/browse/MATH-100",
    "https://github.com/FasterXML/jackson-core/issues/531",
    "https://sourceforge.net/p/jfreechart/bugs/983",
    "https://code.google.com/archive/p/mockito/issues/5",
]


def serve_all(server: TrackerServer) -> None:
    """The recorded issue of every tracker, at the paths ALL_URLS lead to."""
    json_type = {"Content-Type": "application/json"}
    serve_jira(server, "CLI-13", "jira/CLI-13.json")
    serve_jira(server, "MATH-100", "jira/MATH-100.json")
    server.add("/jira/rest/api/2/issue/MATH-100/comment?startAt=2&maxResults=100",
               Reply(200, server.load("jira/MATH-100-comments-2.json").encode(), json_type))  # fmt: skip
    serve_github_531(server)
    server.add("/sf/p/jfreechart/bugs/983/", html(server.load("sourceforge/jfreechart-bugs-983.html")))
    server.add(
        "/sf/p/jfreechart/bugs/983/?limit=25&page=1", html(server.load("sourceforge/jfreechart-bugs-983-page1.html"))
    )
    server.add("/gcode/v2/code.google.com/mockito/issues/issue-5.json",
               Reply(200, server.load("googlecode/mockito-issue-5.json").encode(), json_type))  # fmt: skip
