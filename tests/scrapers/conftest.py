"""The local tracker server and an environment that points every tracker at it."""

from __future__ import annotations

import pytest

from tests.helpers.trackers import TrackerServer


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
