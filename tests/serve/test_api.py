"""``benchsmith serve`` end to end on loopback: verdicts as eval's, rewards, feedback, tokens, malformed input."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from benchsmith.core.schema import Result, read_records
from benchsmith.serve.client import AsyncServeClient, ServeClient, ServeError
from tests.helpers.cli import eval_cli
from tests.helpers.serve import Server

pytestmark = pytest.mark.java  # the NL2Fix fixture's candidates run JVMs

COMPARED = ("status", "compiled", "tests_passed", "tests_failed", "failing_tests", "suspicious")
SMALL = ("Ledger-1", "Ledger-8")  # the instances whose candidates are judged both ways here (bench/serve_load.py: all)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def eval_results(dataset, rows, folder, repos) -> dict[tuple[str, str], Result]:
    folder.mkdir(parents=True, exist_ok=True)
    candidates = folder / "candidates.jsonl"
    candidates.write_text("".join(json.dumps(row) + "\n" for row in rows))
    completed = eval_cli(dataset, candidates, folder / "results.parquet", repos)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return {(r.instance_id, r.candidate_id): r for r in read_records(folder / "results.parquet", Result)}


def test_verdicts_are_evals(server, tokens, reference, ledger_dataset, geometry_dataset, fixture_repos, tmp_path):
    nl2fix = [row for row in reference if row["instance_id"] in SMALL]
    geometry = [row for row in reference if "::" in row["instance_id"]]
    expected = eval_results(ledger_dataset, nl2fix, tmp_path / "nl2fix", fixture_repos)
    expected |= eval_results(geometry_dataset, geometry, tmp_path / "geometry", fixture_repos)
    with ServeClient(server.url, tokens[0][0]) as client:
        answers = client.judge_many(nl2fix + geometry, batch=4)
    assert len(answers) == len(expected) == 10
    for row, answer in zip(nl2fix + geometry, answers):
        result = expected[(row["instance_id"], row["candidate_id"])]
        assert (answer["instance_id"], answer["candidate_id"]) == (row["instance_id"], row["candidate_id"])
        assert {k: answer[k] for k in COMPARED} == {k: getattr(result, k) for k in COMPARED}, row["candidate_id"]
        assert answer["reward"] == (1.0 if result.status == "plausible" else 0.0)
    assert [a["status"] for a in answers[:2]] == ["plausible", "wrong"]  # gold, buggy


def test_rewards_and_feedback(server, tokens, ledger_instances, geometry_task):
    gold = ledger_instances["Ledger-1"].fixed_method
    with ServeClient(server.url, tokens[0][0]) as client:
        plausible = client.judge("Ledger-1", gold, "fix")
        wrong = client.judge("Ledger-1", ledger_instances["Ledger-1"].buggy_method, "bug")
        broken = client.judge("Ledger-1", gold.replace("digits.length()", "digitz.length()"), "typo")
        # a Polygon that passes some of its tests: classbench's pass rate, as asked
        partial = geometry_task.ground_truth_class.replace("return abs(", "return 2 * abs(")
        code = "\n".join(geometry_task.imports) + "\n\n" + partial
        rate = client.judge(geometry_task.task_id, code, "half", reward="pass-rate")
        strict = client.judge(geometry_task.task_id, code, "half-strict")
    assert (plausible["status"], plausible["reward"], plausible["candidate_id"]) == ("plausible", 1.0, "fix")
    assert (wrong["status"], wrong["reward"]) == ("wrong", 0.0)
    assert wrong["failing_tests"] == ["org.benchsmith.ledger.Bug1Test::padsNegativeNumberToExactWidth"]
    assert "ComparisonFailure" in wrong["feedback"]
    assert broken["status"] == "uncompilable" and "cannot find symbol" in broken["feedback"]
    assert rate["status"] == "wrong" and 0 < rate["tests_failed"]
    assert rate["reward"] == pytest.approx(rate["tests_passed"] / (rate["tests_passed"] + rate["tests_failed"]))
    assert 0 < rate["reward"] < 1 and strict["reward"] == 0.0
    for answer in (plausible, wrong, broken, rate, strict):
        assert "log_path" not in answer and "/" + "tmp" not in answer["feedback"]
        assert "The shoelace formula" not in answer["feedback"]  # the ground truth's docstring
        assert "assert square()" not in answer["feedback"]  # a hidden test's source line


def test_tokens_are_required_and_jobs_are_private(server, tokens, ledger_instances):
    assert httpx.get(f"{server.url}/v1/health").status_code == 200
    body = {"instance_id": "Ledger-1", "code": ledger_instances["Ledger-1"].fixed_method}
    for headers in ({}, auth("x" * 32), {"Authorization": tokens[0][0]}, {"Authorization": f"Basic {tokens[0][0]}"}):
        for method, path, payload in (
            ("POST", "/v1/judge", body),
            ("POST", "/v1/jobs", {"candidates": [body]}),
            ("POST", "/v1/jobs/results", {"job_ids": ["a"]}),
            ("POST", "/v1/jobs/stream", {"job_ids": ["a"]}),
            ("GET", "/v1/jobs/a", None),
            ("GET", "/metrics", None),
            ("GET", "/openapi.json", None),
        ):
            response = httpx.request(method, f"{server.url}{path}", json=payload, headers=headers)
            assert response.status_code == 401, (path, headers)
            assert response.headers["WWW-Authenticate"] == "Bearer" and "token" in response.json()["error"]
    mine, theirs = tokens[0]
    with ServeClient(server.url, mine) as client:
        (job,) = client.submit([{"instance_id": "Ledger-1", "code": "int x;", "candidate_id": "secret"}])
        assert client.results([job])[0]["status"] == "uncompilable"
    stolen = httpx.get(f"{server.url}/v1/jobs/{job}", headers=auth(theirs))
    assert stolen.status_code == 404 and "secret" not in stolen.text
    found = httpx.post(f"{server.url}/v1/jobs/results", json={"job_ids": [job]}, headers=auth(theirs)).json()
    assert found == {"jobs": [], "missing": [job]}


def test_malformed_requests_get_a_4xx_that_says_what(server, tokens):
    headers = {**auth(tokens[0][0]), "Content-Type": "application/json"}
    url = f"{server.url}/v1/judge"

    def post(content: bytes, path: str = "/v1/judge", **extra) -> httpx.Response:
        return httpx.post(f"{server.url}{path}", content=content, headers={**headers, **extra}, timeout=60)

    cases = {
        "bad JSON": (post(b'{"instance_id": "Ledger-1", "code": '), 400, "not valid JSON"),
        "wrong type": (post(b'{"instance_id": 7, "code": "x"}'), 422, "instance_id"),
        "missing field": (post(b'{"instance_id": "Ledger-1"}'), 422, "code"),
        "unknown field": (post(b'{"instance_id": "Ledger-1", "code": "x", "extra": 1}'), 422, "extra"),
        "unknown instance": (post(b'{"instance_id": "Ledger-999", "code": "x"}'), 404, "Ledger-999"),
        "unknown dataset": (post(b'{"instance_id": "Ledger-1", "code": "x", "dataset": "no"}'), 404, "dataset"),
        "invalid UTF-8": (post(b'{"instance_id": "Ledger-1", "code": "\xff\xfe"}'), 400, "UTF-8"),
        "not JSON typed": (post(b"{}", **{"Content-Type": "text/plain"}), 415, "application/json"),
        "a list": (post(b"[1, 2]"), 422, "body"),
        "empty batch": (post(b'{"candidates": []}', "/v1/jobs"), 422, "candidates"),
        "batch too big": (
            post(json.dumps({"candidates": [{"instance_id": "Ledger-1", "code": ""}] * 300}).encode(), "/v1/jobs"),
            422,
            "candidates",
        ),
        "code too long": (post(json.dumps({"instance_id": "Ledger-1", "code": "x" * 300_000}).encode()), 422, "code"),
        "wait too long": (post(b'{"job_ids": ["a"], "wait": 1e9}', "/v1/jobs/results"), 422, "wait"),
    }
    for name, (response, status, said) in cases.items():
        assert response.status_code == status, (name, response.text)
        assert said in response.json()["error"], (name, response.text)
    huge = httpx.post(url, content=b"x" * (50 * 1024 * 1024), headers=headers, timeout=60)  # a 50 MB body
    assert huge.status_code == 413 and "limit" in huge.json()["error"]

    def chunks():
        yield b'{"instance_id": "Ledger-1", "code": "'
        for _ in range(60):
            yield b"y" * (1024 * 1024)

    streamed = httpx.post(url, content=chunks(), headers=headers, timeout=60)  # no Content-Length: counted as it comes
    assert streamed.status_code == 413
    assert httpx.get(f"{server.url}/v1/health").json()["status"] == "ok"  # and it serves the others
    with ServeClient(server.url, tokens[0][0]) as client:
        assert client.judge("Ledger-1", "int x;")["status"] == "uncompilable"
        with pytest.raises(ServeError, match="unknown instance"):
            client.judge("nope", "x")


def test_idempotency_key_answers_from_the_store(server, tokens):
    headers = {**auth(tokens[0][0]), "Idempotency-Key": "batch-1"}
    body = {
        "candidates": [{"instance_id": "Ledger-1", "code": "int broken(", "candidate_id": f"c{n}"} for n in range(3)]
    }
    first = httpx.post(f"{server.url}/v1/jobs", json=body, headers=headers).json()
    ids = [job["job_id"] for job in first["jobs"]]
    with ServeClient(server.url, tokens[0][0]) as client:
        answers = client.results(ids)
    judged = server.metric(tokens[0][0], "benchsmith_verdicts_total")
    again = httpx.post(f"{server.url}/v1/jobs", json=body, headers=headers).json()
    assert again["replayed"] and [job["job_id"] for job in again["jobs"]] == ids
    assert [job["answer"] for job in again["jobs"]] == answers  # answered from the store
    assert server.metric(tokens[0][0], "benchsmith_verdicts_total") == judged  # not judged again
    other = httpx.post(f"{server.url}/v1/jobs", json={"candidates": body["candidates"][:1]}, headers=headers)
    assert other.status_code == 422 and "another request body" in other.json()["error"]
    # the same key from another token is another client's: its own jobs
    theirs = httpx.post(f"{server.url}/v1/jobs", json=body, headers={**headers, **auth(tokens[0][1])}).json()
    assert not theirs["replayed"] and not set(job["job_id"] for job in theirs["jobs"]) & set(ids)


def test_stream_metrics_and_the_async_client(server, tokens, ledger_instances):
    token = tokens[0][0]

    async def judged() -> list[dict]:
        async with AsyncServeClient(server.url, token) as client:
            codes = [ledger_instances["Ledger-8"].fixed_method, ledger_instances["Ledger-8"].buggy_method]
            one = await client.judge("Ledger-8", codes[0], "gold")
            many = await client.judge_many([{"instance_id": "Ledger-8", "code": c} for c in codes])
            return [one, *many]

    answers = asyncio.run(judged())
    assert [a["status"] for a in answers] == ["plausible", "plausible", "wrong"]
    with ServeClient(server.url, token) as client:
        ids = client.submit([{"instance_id": "Ledger-8", "code": f"int x{n};"} for n in range(3)])
    with httpx.stream(
        "POST", f"{server.url}/v1/jobs/stream", json={"job_ids": ids, "wait": 60}, headers=auth(token), timeout=90
    ) as response:
        assert response.headers["content-type"].startswith("application/x-ndjson")
        lines = [json.loads(line) for line in response.iter_lines() if line]
    assert sorted(line["job_id"] for line in lines) == sorted(ids)
    assert {line["state"] for line in lines} == {"done"}
    metrics = httpx.get(f"{server.url}/metrics", headers=auth(token))
    assert metrics.headers["content-type"].startswith("text/plain; version=0.0.4")
    for name in ("benchsmith_verdicts_total", "benchsmith_jobs{", "benchsmith_http_request_seconds_bucket"):
        assert name in metrics.text
    assert server.metric(token, "benchsmith_verdicts_total") >= 6


def test_backpressure_and_rates(tmp_path, ledger_dataset, fixture_repos, tokens):
    small = Server(
        [ledger_dataset],
        tmp_path / "store",
        tokens[1],
        fixture_repos,
        "--max-queue",
        "4",
        "--max-per-token",
        "6",
        "--rate",
        "1",
        "--workers",
        "1",
    ).start()
    try:
        token = tokens[0][0]
        body = {"candidates": [{"instance_id": "Ledger-1", "code": f"int x{n};"} for n in range(5)]}
        full = httpx.post(f"{small.url}/v1/jobs", json=body, headers=auth(token))
        assert full.status_code == 429 and full.headers["Retry-After"].isdigit() and "queue" in full.json()["error"]
        with httpx.Client(headers=auth(token)) as client:  # a rate of 1 a second, bursts of 2
            codes = [client.get(f"{small.url}/v1/jobs/x").status_code for _ in range(30)]
            limited = client.get(f"{small.url}/metrics")
        assert 429 in codes and set(codes) <= {404, 429}
        assert limited.status_code == 429 and limited.headers["Retry-After"].isdigit()
        assert "rate" in limited.json()["error"]
        assert httpx.get(f"{small.url}/metrics", headers=auth(tokens[0][1])).status_code == 200  # others unaffected
    finally:
        small.stop()
