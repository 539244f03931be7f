"""A small client of ``benchsmith serve``, sync (:class:`ServeClient`) and asyncio (:class:`AsyncServeClient`).

Every submission carries an ``Idempotency-Key`` of its own, kept across its retries: a submission retried after a lost
answer or a restarted server gets the jobs the server stored the first time, never new ones. Retried: connection
errors, 429 (after its ``Retry-After``), 502, 503 and 504; any other 4xx is a :class:`ServeError` naming what the
server said. Batches are cut to the server's limit; answers come back in the order the candidates were given.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterable

import httpx

BATCH = 256  # the server's limit on candidates a submission
POLL_WAIT = 30.0  # seconds one poll waits on the server
RETRIED = {429, 502, 503, 504}


class ServeError(Exception):
    """The server refused a request (a 4xx other than 429, or an error still there after every retry)."""

    def __init__(self, status: int, error: str):
        super().__init__(f"benchsmith serve answered {status}: {error}")
        self.status, self.error = status, error


def candidate(instance_id: str, code: str, candidate_id: str | None = None, **extra: str) -> dict:
    """One candidate as the server takes it (*extra*: ``dataset``, ``reward``)."""
    return {
        "instance_id": instance_id,
        "code": code,
        **({"candidate_id": candidate_id} if candidate_id else {}),
        **extra,
    }


def _delay(response: httpx.Response | None, attempt: int, backoff: float) -> float:
    if response is not None and (after := response.headers.get("Retry-After", "")).isdigit():
        return float(after)
    return min(backoff * 2**attempt, 30.0)


def _error(response: httpx.Response) -> ServeError:
    try:
        said = response.json().get("error", response.text)
    except ValueError:
        said = response.text
    return ServeError(response.status_code, str(said)[:2000])


def _chunks(items: list, size: int) -> Iterable[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class ServeClient:
    def __init__(self, url: str, token: str, timeout: float = 660.0, retries: int = 8, backoff: float = 0.25):
        self.retries, self.backoff = retries, backoff
        self._http = httpx.Client(
            base_url=url.rstrip("/"), headers={"Authorization": f"Bearer {token}"}, timeout=timeout
        )

    def __enter__(self) -> ServeClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _request(self, method: str, path: str, body: dict | None = None, key: str | None = None) -> httpx.Response:
        headers = {"Idempotency-Key": key} if key else {}
        for attempt in range(self.retries + 1):
            response = None
            try:
                response = self._http.request(method, path, json=body, headers=headers)
            except httpx.TransportError:
                if attempt == self.retries:
                    raise
            else:
                if response.status_code not in RETRIED:
                    if response.status_code >= 400:
                        raise _error(response)
                    return response
                if attempt == self.retries:
                    raise _error(response)
            time.sleep(_delay(response, attempt, self.backoff))
        raise AssertionError("unreachable")

    def health(self) -> dict:
        return self._request("GET", "/v1/health").json()

    def judge(self, instance_id: str, code: str, candidate_id: str | None = None, **extra: str) -> dict:
        """The answer on one candidate (waiting for it)."""
        response = self._request("POST", "/v1/judge", candidate(instance_id, code, candidate_id, **extra), uuid4())
        if response.status_code == 202:
            return self.results([response.json()["job_id"]])[0]
        return response.json()

    def submit(self, candidates: list[dict], batch: int = BATCH) -> list[str]:
        """The job ids of *candidates*, in order, submitted in batches of at most *batch*."""
        ids: list[str] = []
        for chunk in _chunks(list(candidates), min(batch, BATCH)):
            accepted = self._request("POST", "/v1/jobs", {"candidates": chunk}, uuid4()).json()
            ids += [job["job_id"] for job in accepted["jobs"]]
        return ids

    def results(self, job_ids: list[str], timeout: float | None = None) -> list[dict]:
        """The answers of *job_ids*, in order, once all are answered (TimeoutError after *timeout* seconds)."""
        answers: dict[str, dict] = {}
        deadline = None if timeout is None else time.monotonic() + timeout
        while len(answers) < len(set(job_ids)):
            left = [i for i in dict.fromkeys(job_ids) if i not in answers]
            for chunk in _chunks(left, 4 * BATCH):
                wait = POLL_WAIT if deadline is None else max(0.0, min(POLL_WAIT, deadline - time.monotonic()))
                found = self._request("POST", "/v1/jobs/results", {"job_ids": chunk, "wait": wait}).json()
                if found["missing"]:
                    raise ServeError(404, f"no such jobs of this token: {', '.join(found['missing'][:5])}")
                answers.update({job["job_id"]: job["answer"] for job in found["jobs"] if job["state"] == "done"})
            if deadline is not None and time.monotonic() >= deadline and len(answers) < len(set(job_ids)):
                raise TimeoutError(f"{len(set(job_ids)) - len(answers)} jobs unanswered after {timeout:g} s")
        return [answers[i] for i in job_ids]

    def judge_many(self, candidates: list[dict], batch: int = BATCH, timeout: float | None = None) -> list[dict]:
        """The answers on *candidates*, in order: submitted in batches, then collected."""
        return self.results(self.submit(candidates, batch), timeout)


class AsyncServeClient:
    def __init__(self, url: str, token: str, timeout: float = 660.0, retries: int = 8, backoff: float = 0.25):
        self.retries, self.backoff = retries, backoff
        self._http = httpx.AsyncClient(
            base_url=url.rstrip("/"), headers={"Authorization": f"Bearer {token}"}, timeout=timeout
        )

    async def __aenter__(self) -> AsyncServeClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _request(
        self, method: str, path: str, body: dict | None = None, key: str | None = None
    ) -> httpx.Response:
        headers = {"Idempotency-Key": key} if key else {}
        for attempt in range(self.retries + 1):
            response = None
            try:
                response = await self._http.request(method, path, json=body, headers=headers)
            except httpx.TransportError:
                if attempt == self.retries:
                    raise
            else:
                if response.status_code not in RETRIED:
                    if response.status_code >= 400:
                        raise _error(response)
                    return response
                if attempt == self.retries:
                    raise _error(response)
            await asyncio.sleep(_delay(response, attempt, self.backoff))
        raise AssertionError("unreachable")

    async def health(self) -> dict:
        return (await self._request("GET", "/v1/health")).json()

    async def judge(self, instance_id: str, code: str, candidate_id: str | None = None, **extra: str) -> dict:
        body = candidate(instance_id, code, candidate_id, **extra)
        response = await self._request("POST", "/v1/judge", body, uuid4())
        if response.status_code == 202:
            return (await self.results([response.json()["job_id"]]))[0]
        return response.json()

    async def submit(self, candidates: list[dict], batch: int = BATCH) -> list[str]:
        ids: list[str] = []
        for chunk in _chunks(list(candidates), min(batch, BATCH)):
            accepted = (await self._request("POST", "/v1/jobs", {"candidates": chunk}, uuid4())).json()
            ids += [job["job_id"] for job in accepted["jobs"]]
        return ids

    async def results(self, job_ids: list[str], timeout: float | None = None) -> list[dict]:
        answers: dict[str, dict] = {}
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while len(answers) < len(set(job_ids)):
            left = [i for i in dict.fromkeys(job_ids) if i not in answers]
            for chunk in _chunks(left, 4 * BATCH):
                wait = POLL_WAIT if deadline is None else max(0.0, min(POLL_WAIT, deadline - loop.time()))
                found = (await self._request("POST", "/v1/jobs/results", {"job_ids": chunk, "wait": wait})).json()
                if found["missing"]:
                    raise ServeError(404, f"no such jobs of this token: {', '.join(found['missing'][:5])}")
                answers.update({job["job_id"]: job["answer"] for job in found["jobs"] if job["state"] == "done"})
            if deadline is not None and loop.time() >= deadline and len(answers) < len(set(job_ids)):
                raise TimeoutError(f"{len(set(job_ids)) - len(answers)} jobs unanswered after {timeout:g} s")
        return [answers[i] for i in job_ids]

    async def judge_many(self, candidates: list[dict], batch: int = BATCH, timeout: float | None = None) -> list[dict]:
        return await self.results(await self.submit(candidates, batch), timeout)


def uuid4() -> str:
    return uuid.uuid4().hex
