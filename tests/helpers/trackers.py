"""A scripted HTTP server on 127.0.0.1 that plays the four trackers for the scraper tests.

Routes map a path (optionally with its query) to a sequence of replies: each request takes the next
one, the last repeats. Every request is logged, and the number in flight at once is tracked, so tests
can count what the scrapers asked for and how many requests overlapped. Unrouted paths answer 404.
Below the server: the paths of each tracker's API and the recorded issues served at them.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

RESPONSES = Path(__file__).parents[1] / "scrapers" / "responses"


@dataclass
class Reply:
    status: int = 200
    body: bytes | str | dict | list = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering
    hold: threading.Event | None = None  # answer only once this is set (at most 30 s)

    def payload(self) -> tuple[bytes, str]:
        if isinstance(self.body, (dict, list)):
            return json.dumps(self.body).encode(), "application/json;charset=UTF-8"
        if isinstance(self.body, str):
            return self.body.encode("utf-8"), "text/plain; charset=utf-8"
        return self.body, "application/octet-stream"


def json_reply(data, status: int = 200, **headers: str) -> Reply:
    return Reply(status, data, dict(headers))


@dataclass(frozen=True)
class Seen:
    method: str
    path: str  # with the query, as sent
    headers: dict[str, str]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        pass  # a client that gave up (a timeout test) breaks the pipe: nothing to report


def _key(path: str) -> str:
    parts = urlsplit(path)
    query = sorted(parse_qsl(parts.query, keep_blank_values=True))
    return parts.path + (f"?{urlencode(query)}" if query else "")


class TrackerServer:
    def __init__(self) -> None:
        self.routes: dict[str, list[Reply]] = {}
        self.seen: list[Seen] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> TrackerServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def add(self, path: str, *replies: Reply) -> None:
        """Serve *replies* in turn at *path* (a query, when given, must match; else any query does)."""
        self.routes[_key(path)] = list(replies)

    def load(self, name: str) -> str:
        """A recorded-format response file, with ``{BASE}`` replaced by this server's address."""
        return (RESPONSES / name).read_text(encoding="utf-8").replace("{BASE}", self.base)

    def hits(self, path: str | None = None) -> int:
        with self._lock:
            return sum(1 for s in self.seen if path is None or urlsplit(s.path).path == path)

    def paths(self) -> list[str]:
        with self._lock:
            return [s.path for s in self.seen]

    def _next(self, path: str) -> Reply:
        with self._lock:
            replies = self.routes.get(_key(path)) or self.routes.get(urlsplit(path).path)
            if not replies:
                return json_reply({"message": "Not Found"}, 404)
            return replies.pop(0) if len(replies) > 1 else replies[0]

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                with server._lock:
                    server.seen.append(Seen("GET", self.path, dict(self.headers)))
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    reply = server._next(self.path)
                    if reply.hold is not None:
                        reply.hold.wait(30)
                    time.sleep(reply.delay)
                    body, content_type = reply.payload()
                    self.send_response(reply.status)
                    headers = {"Content-Type": content_type, **reply.headers, "Content-Length": str(len(body))}
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(body)
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def log_message(self, *args) -> None:
                pass

        return Handler


HTML = "text/html; charset=utf-8"


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
    server.add(
        f"{path}/comments",
        Reply(200, server.load("github/jackson-core-531-comments-1.json").encode(), {**json_type, "Link": link}),
    )
    first = f"{server.base}{path}/comments?per_page=100&page=1"
    server.add(
        f"{path}/comments?per_page=100&page=2",
        Reply(
            200,
            server.load("github/jackson-core-531-comments-2.json").encode(),
            {**json_type, "Link": f'<{first}>; rel="prev", <{first}>; rel="first"'},
        ),
    )


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
    server.add(
        "/jira/rest/api/2/issue/MATH-100/comment?startAt=2&maxResults=100",
        Reply(200, server.load("jira/MATH-100-comments-2.json").encode(), json_type),
    )
    serve_github_531(server)
    server.add("/sf/p/jfreechart/bugs/983/", html(server.load("sourceforge/jfreechart-bugs-983.html")))
    server.add(
        "/sf/p/jfreechart/bugs/983/?limit=25&page=1", html(server.load("sourceforge/jfreechart-bugs-983-page1.html"))
    )
    server.add(
        "/gcode/v2/code.google.com/mockito/issues/issue-5.json",
        Reply(200, server.load("googlecode/mockito-issue-5.json").encode(), json_type),
    )
