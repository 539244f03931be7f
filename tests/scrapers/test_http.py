"""The shared HTTP layer against a real local server: retries, waits, timeouts, cache, per-host limits."""

import logging
import socket
import threading
import time

import pytest
import requests

from benchsmith.core.errors import BenchsmithError
from benchsmith.scrapers.cache import CacheCorrupt
from benchsmith.scrapers.http import HttpPolicy, base_url, is_unresolvable, recording, shared
from tests.helpers.trackers import Reply, json_reply

pytestmark = pytest.mark.timeout(60)


def test_a_429_is_retried_after_the_wait_its_retry_after_asks_for(trackers):
    trackers.add("/x", Reply(429, "slow down", {"Retry-After": "1"}), json_reply({"ok": True}))
    started = time.monotonic()
    response = shared().get(f"{trackers.base}/x")
    assert response.json() == {"ok": True}
    assert 1.0 <= time.monotonic() - started < 3.0
    assert trackers.hits("/x") == 2


def test_5xx_answers_are_retried_with_backoff_until_one_succeeds(trackers):
    trackers.add("/x", Reply(500, "boom"), Reply(502, "bad gateway"), json_reply({"ok": 1}))
    with recording() as exchanges:
        assert shared().get(f"{trackers.base}/x").json() == {"ok": 1}
    assert trackers.hits("/x") == 3
    assert [(e.status, e.attempts, e.from_cache) for e in exchanges] == [(200, 3, False)]


def test_retries_are_bounded_and_the_last_answer_is_returned_uncached(trackers):
    trackers.add("/x", Reply(503, "down"))
    with recording() as exchanges:
        assert shared().get(f"{trackers.base}/x").status_code == 503
    assert trackers.hits("/x") == 4  # BENCHSMITH_HTTP_RETRIES=3: one try and three retries
    assert exchanges[-1].note == "gave up after 4 attempts"
    shared().get(f"{trackers.base}/x")
    assert trackers.hits("/x") == 8  # a failure is never cached


def test_a_wait_longer_than_max_wait_is_not_taken(trackers):
    trackers.add("/x", Reply(429, "", {"Retry-After": "3600"}))
    started = time.monotonic()
    with recording() as exchanges:
        assert shared().get(f"{trackers.base}/x").status_code == 429
    assert time.monotonic() - started < 2.0
    assert trackers.hits("/x") == 1
    assert "more than BENCHSMITH_HTTP_MAX_WAIT=5" in exchanges[-1].note


def test_an_exhausted_github_rate_limit_is_waited_out_until_its_reset(trackers):
    reset = int(time.time()) + 1
    limited = Reply(
        403, {"message": "API rate limit exceeded"}, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)}
    )
    trackers.add("/x", limited, json_reply({"ok": 1}))
    assert shared().get(f"{trackers.base}/x").status_code == 200
    assert time.time() >= reset
    assert trackers.hits("/x") == 2


def test_a_plain_403_is_final(trackers):
    trackers.add("/x", Reply(403, {"message": "Forbidden"}))
    assert shared().get(f"{trackers.base}/x").status_code == 403
    assert trackers.hits("/x") == 1


def test_a_server_that_does_not_answer_times_out_a_bounded_number_of_times(trackers, monkeypatch):
    monkeypatch.setenv("BENCHSMITH_HTTP_TIMEOUT", "0.3")
    monkeypatch.setenv("BENCHSMITH_HTTP_RETRIES", "2")
    release = threading.Event()
    trackers.add("/x", Reply(200, "late", hold=release))
    started = time.monotonic()
    try:
        with pytest.raises(requests.Timeout):
            shared().get(f"{trackers.base}/x")
    finally:
        release.set()
    assert time.monotonic() - started < 3.0
    assert trackers.hits("/x") == 3


def test_answers_are_cached_on_disk_and_served_without_a_request(trackers):
    trackers.add("/ok", Reply(200, b"\x00raw bytes\xff", {"Content-Type": "application/octet-stream"}))
    trackers.add("/gone", json_reply({"message": "Not Found"}, 404))
    http = shared()
    for _ in range(3):
        assert http.get(f"{trackers.base}/ok").content == b"\x00raw bytes\xff"
        assert http.get(f"{trackers.base}/gone").status_code == 404
    assert (trackers.hits("/ok"), trackers.hits("/gone")) == (1, 1)
    bodies = {p.read_bytes() for p in http.cache.root.rglob("*.body")}
    assert bodies == {b'{"message": "Not Found"}', b"\x00raw bytes\xff"}
    with recording() as exchanges:
        http.get(f"{trackers.base}/ok")
    assert exchanges[0].from_cache and exchanges[0].fetched_at.endswith("Z")


def test_a_permanent_redirect_and_its_target_are_both_served_from_the_cache(trackers):
    trackers.add(
        "/p/bugs/983", Reply(301, b"", {"Location": f"{trackers.base}/p/bugs/983/", "Set-Cookie": "session=s3cr3t"})
    )
    trackers.add("/p/bugs/983/", Reply(200, "the ticket"))
    http = shared()
    for _ in range(2):
        response = http.get(f"{trackers.base}/p/bugs/983")
        assert (response.status_code, response.text, response.url) == (
            200,
            "the ticket",
            f"{trackers.base}/p/bugs/983/",
        )
    assert trackers.paths() == ["/p/bugs/983", "/p/bugs/983/"]
    assert not any(b"s3cr3t" in p.read_bytes() for p in http.cache.root.rglob("*.json"))


def test_a_cache_miss_is_logged(trackers, caplog):
    trackers.add("/x", json_reply({}))
    with caplog.at_level(logging.DEBUG, logger="benchsmith.scrapers.http"):
        shared().get(f"{trackers.base}/x")
    assert f"cache miss: GET {trackers.base}/x" in caplog.text


def test_a_corrupt_cache_entry_is_an_error_naming_its_file(trackers):
    trackers.add("/x", json_reply({"a": 1}))
    http = shared()
    http.get(f"{trackers.base}/x")
    body = next(http.cache.root.rglob("*.body"))
    body.write_bytes(b"tampered")
    with pytest.raises(CacheCorrupt, match=str(body.with_suffix(".json"))):
        http.get(f"{trackers.base}/x")
    assert trackers.hits("/x") == 1


def test_no_more_than_per_host_requests_are_in_flight(trackers, monkeypatch):
    monkeypatch.setenv("BENCHSMITH_HTTP_PER_HOST", "2")
    for n in range(6):
        trackers.add(f"/slow/{n}", Reply(200, "x", delay=0.2))
    http = shared()
    threads = [threading.Thread(target=http.get, args=(f"{trackers.base}/slow/{n}",)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert trackers.hits() == 6
    assert trackers.max_in_flight == 2


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_host_that_refuses_connections_is_given_up_after_a_few_requests(trackers, monkeypatch):
    monkeypatch.setenv("BENCHSMITH_HTTP_RETRIES", "1")
    monkeypatch.setenv("BENCHSMITH_HTTP_HOST_FAILURES", "2")
    http = shared()
    url = f"http://127.0.0.1:{_closed_port()}/issue"
    for _ in range(2):
        with pytest.raises(requests.ConnectionError):
            http.get(url)
    sent = http.adapter.network_requests
    assert sent == 4
    with pytest.raises(requests.ConnectionError, match="unreachable: 2 requests in a row failed to connect"):
        http.get(url)
    assert http.adapter.network_requests == sent


def test_a_failed_name_lookup_is_recognised_as_not_worth_a_retry():
    # Built from urllib3's and requests' own exception types, as requests raises them for a host that
    # does not resolve; the tests send no DNS query (they talk to 127.0.0.1 only).
    from urllib3.connection import HTTPConnection
    from urllib3.exceptions import MaxRetryError, NameResolutionError

    failed = NameResolutionError("issues.apache.org", HTTPConnection("issues.apache.org"), OSError("no such name"))
    assert is_unresolvable(requests.ConnectionError(MaxRetryError(None, "/jira", failed)))
    assert not is_unresolvable(requests.ConnectionError(MaxRetryError(None, "/jira", ConnectionRefusedError())))
    assert not is_unresolvable(requests.ReadTimeout("read timed out"))
    assert not is_unresolvable(None)


def test_settings_come_from_the_environment_and_bad_ones_are_named():
    policy = HttpPolicy.from_env({"BENCHSMITH_HTTP_RETRIES": "2", "BENCHSMITH_HTTP_BACKOFF": "0.5"})
    assert (policy.retries, policy.backoff, policy.per_host) == (2, 0.5, 2)
    assert [policy.backoff_delay(n) for n in range(3)] == [0.5, 1.0, 2.0]
    with pytest.raises(BenchsmithError, match="BENCHSMITH_HTTP_RETRIES='lots': not an integer"):
        HttpPolicy.from_env({"BENCHSMITH_HTTP_RETRIES": "lots"})
    with pytest.raises(BenchsmithError, match="BENCHSMITH_HTTP_PER_HOST='0': out of range"):
        HttpPolicy.from_env({"BENCHSMITH_HTTP_PER_HOST": "0"})


def test_a_base_url_that_is_not_http_is_named(monkeypatch):
    monkeypatch.setenv("BENCHSMITH_JIRA_URL", "issues.example.org/jira")
    with pytest.raises(BenchsmithError, match="BENCHSMITH_JIRA_URL='issues.example.org/jira': not an http"):
        base_url("BENCHSMITH_JIRA_URL", "https://issues.apache.org/jira")
    monkeypatch.setenv("BENCHSMITH_JIRA_URL", "http://127.0.0.1:9/jira/")
    assert base_url("BENCHSMITH_JIRA_URL", "https://issues.apache.org/jira") == "http://127.0.0.1:9/jira"
