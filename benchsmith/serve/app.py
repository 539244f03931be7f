"""The HTTP API of ``benchsmith serve`` (FastAPI): judge one candidate, submit many, poll or stream their answers.

docs/serve.md is the contract; the OpenAPI spec is served at ``/openapi.json``. Every route but ``/v1/health`` is
behind :class:`benchsmith.serve.guard.Guard` (bearer token, body cap, UTF-8, rate); a client sees only its own jobs.
A job is stored before it is acknowledged; the queue is bounded (429 with ``Retry-After`` when full), and so is each
token's share of it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Literal

from fastapi import Depends, FastAPI, Header, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field

from benchsmith import __version__
from benchsmith.serve.guard import Guard, GuardSettings
from benchsmith.serve.judging import REWARDS, Judges, ServedDataset
from benchsmith.serve.metrics import Metrics
from benchsmith.serve.store import IdempotencyConflict, Job, NewJob, Store

MAX_CODE_CHARS = 256_000
MAX_ID_CHARS = 200
MAX_BATCH = 256
Token = HTTPAuthorizationCredentials | None
MAX_WAIT = 60.0  # seconds a poll or stream may wait for answers


@dataclass
class Limits:
    max_queue: int = 10_000  # queued jobs, all clients together
    max_per_client: int = 2_000  # one token's queued and running jobs
    judge_wait: float = 600.0  # seconds POST /v1/judge waits before answering 202 with the job's id
    retry_after: int = 2


class Submission(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    instance_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    code: str = Field(max_length=MAX_CODE_CHARS, description="the candidate's code, as eval's candidates carry it")
    candidate_id: str | None = Field(None, max_length=MAX_ID_CHARS, description="echoed back; default: the job id")
    dataset: str | None = Field(None, max_length=MAX_ID_CHARS, description="needed only if two datasets hold the id")
    reward: Literal["plausible", "pass-rate"] | None = Field(
        None, description="classbench: reward plausible verdicts only, or the share of tests passed (--reward)"
    )


class Batch(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    candidates: list[Submission] = Field(min_length=1, max_length=MAX_BATCH)


class JobIds(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    job_ids: list[str] = Field(min_length=1, max_length=4 * MAX_BATCH)
    wait: float = Field(0.0, ge=0.0, le=MAX_WAIT, description="seconds to wait for all of them to be answered")


class Answer(BaseModel):
    job_id: str
    dataset: str
    instance_id: str
    candidate_id: str
    status: Literal["plausible", "wrong", "uncompilable", "timeout", "error"]
    reward: float
    compiled: bool
    tests_passed: int
    tests_failed: int
    failing_tests: list[str]
    feedback: str
    suspicious: str
    seconds: float


class JobState(BaseModel):
    job_id: str
    state: Literal["queued", "running", "done"]
    instance_id: str
    candidate_id: str
    answer: Answer | None = None


class Accepted(BaseModel):
    jobs: list[JobState]
    replayed: bool = Field(description="true: the Idempotency-Key was seen before; these are the earlier jobs")


class Results(BaseModel):
    jobs: list[JobState]
    missing: list[str] = Field(description="ids that are not this client's jobs")


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    datasets: list[str]
    queued: int
    running: int


class Error(BaseModel):
    error: str


class Rejected(Exception):
    def __init__(self, status: int, error: str, headers: dict[str, str] | None = None):
        super().__init__(error)
        self.status, self.error, self.headers = status, error, headers or {}


class Waiters:
    """Who waits for which job: woken from the judging threads when the job is answered."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[str, list[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = defaultdict(list)

    def watch(self, job_ids: list[str]) -> asyncio.Event:
        event, loop = asyncio.Event(), asyncio.get_running_loop()
        with self._lock:
            for job_id in job_ids:
                self._waiting[job_id].append((loop, event))
        return event

    def forget(self, job_ids: list[str], event: asyncio.Event) -> None:
        with self._lock:
            for job_id in job_ids:
                left = [pair for pair in self._waiting.get(job_id, []) if pair[1] is not event]
                if left:
                    self._waiting[job_id] = left
                else:
                    self._waiting.pop(job_id, None)

    def done(self, job_id: str) -> None:
        with self._lock:
            waiting = list(self._waiting.get(job_id, []))
        for loop, event in waiting:
            loop.call_soon_threadsafe(event.set)


ERRORS = {
    404: {"model": Error, "description": "an unknown instance, dataset or job"},
    405: {"model": Error},
    408: {"model": Error},
    400: {"model": Error},
    401: {"model": Error},
    413: {"model": Error},
    415: {"model": Error},
    422: {"model": Error},
    429: {"model": Error},
}


def create_app(
    datasets: dict[str, ServedDataset],
    store: Store,
    judges: Judges,
    waiters: Waiters,
    guard: GuardSettings,
    limits: Limits,
    metrics: Metrics,
    default_reward: str = "plausible",
) -> Guard:
    """The ASGI application: the API behind its guard."""
    app = FastAPI(
        title="benchsmith serve",
        version=__version__,
        description="Verdicts on code candidates, judged by running the tests (docs/serve.md).",
        docs_url=None,
        redoc_url=None,
    )
    bearer = HTTPBearer(auto_error=False, description="a token from the server's --token-file")
    auth = Depends(bearer)  # checked by the guard before the request gets here; declared for the OpenAPI spec
    idempotency = Header(None, alias="Idempotency-Key", max_length=MAX_ID_CHARS)

    @app.exception_handler(Rejected)
    async def rejected(_request: Request, exc: Rejected) -> JSONResponse:
        return JSONResponse({"error": exc.error}, status_code=exc.status, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = exc.errors()
        if any(p.get("type") == "json_invalid" for p in problems):
            where = next(p for p in problems if p.get("type") == "json_invalid")
            detail = where.get("ctx", {}).get("error", "")
            return JSONResponse({"error": f"the body is not valid JSON: {detail}".rstrip(": ")}, status_code=400)
        said = "; ".join(f"{'.'.join(str(part) for part in p.get('loc', ()))}: {p.get('msg', '')}" for p in problems)
        return JSONResponse({"error": f"the request is not valid: {said}"[:2000]}, status_code=422)

    def client_of(request: Request) -> str:
        return request.scope["state"]["client"]

    def resolve(number: int | None, submission: Submission) -> NewJob:
        where = "" if number is None else f"candidates[{number}]: "
        if submission.dataset is not None:
            if submission.dataset not in datasets:
                raise Rejected(404, f"{where}unknown dataset {submission.dataset!r} (served: {', '.join(datasets)})")
            holding = [submission.dataset] if submission.instance_id in datasets[submission.dataset].records else []
        else:
            holding = [name for name, served in datasets.items() if submission.instance_id in served.records]
        if not holding:
            raise Rejected(404, f"{where}unknown instance {submission.instance_id!r}")
        if len(holding) > 1:
            raise Rejected(
                422, f"{where}instance {submission.instance_id!r} is in {', '.join(holding)}: name a dataset"
            )
        return NewJob(
            holding[0],
            submission.instance_id,
            submission.candidate_id or "",
            submission.code,
            submission.reward or default_reward,
        )

    def admit(client: str, count: int) -> None:
        everyone = store.counts(done=False)
        if everyone["queued"] + count > limits.max_queue:
            raise Rejected(
                429,
                f"the queue is full ({everyone['queued']} jobs waiting); try again later",
                {"Retry-After": str(limits.retry_after)},
            )
        own = store.counts(client, done=False)
        if own["queued"] + own["running"] + count > limits.max_per_client:
            raise Rejected(
                429,
                f"this token has {own['queued'] + own['running']} jobs unanswered (at most "
                f"{limits.max_per_client}); collect their answers first",
                {"Retry-After": str(limits.retry_after)},
            )

    async def submit(client: str, jobs: list[NewJob], key: str | None, body: object) -> tuple[list[str], bool]:
        digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()

        def stored() -> tuple[list[str], bool]:
            if key is None or not store.known_key(client, key):
                admit(client, len(jobs))
            return store.submit(client, jobs, key, digest)

        try:
            ids, replayed = await run_in_threadpool(stored)
        except IdempotencyConflict as exc:
            raise Rejected(422, str(exc)) from None
        metrics.jobs(0 if replayed else len(ids), len(ids) if replayed else 0)
        if not replayed:
            judges.wake()
        return ids, replayed

    async def wait_for(client: str, ids: list[str], seconds: float) -> dict[str, Job]:
        event = waiters.watch(ids)
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + seconds
            while True:
                event.clear()
                found = await run_in_threadpool(store.jobs, client, ids)
                left = deadline - loop.time()
                if all(job.state == "done" for job in found.values()) or left <= 0:
                    return found
                try:
                    await asyncio.wait_for(event.wait(), min(left, 5.0))
                except TimeoutError:
                    pass
        finally:
            waiters.forget(ids, event)

    def state_of(job: Job) -> JobState:
        answer = Answer(**job.answer) if job.answer is not None else None
        candidate = job.candidate_id or job.job_id
        return JobState(
            job_id=job.job_id, state=job.state, instance_id=job.instance_id, candidate_id=candidate, answer=answer
        )

    @app.get("/v1/health", response_model=Health, tags=["health"])
    async def health() -> Health:
        counts = await run_in_threadpool(store.counts, None, False)
        return Health(
            status="ok",
            version=__version__,
            datasets=sorted(datasets),
            queued=counts["queued"],
            running=counts["running"],
        )

    @app.post(
        "/v1/judge",
        response_model=Answer,
        responses={**ERRORS, 202: {"model": JobState, "description": "not judged within the wait: poll the job"}},
        tags=["judge"],
    )
    async def judge(submission: Submission, request: Request, _token: Token = auth, key: str | None = idempotency):
        """Judge one candidate and answer with its verdict (202 with the job to poll if it takes longer than the
        server's --judge-wait)."""
        client = client_of(request)
        job = resolve(None, submission)
        ids, _ = await submit(client, [job], key, submission.model_dump())
        found = await wait_for(client, ids, limits.judge_wait)
        stored = found[ids[0]]
        if stored.state == "done":
            return state_of(stored).answer
        return JSONResponse(state_of(stored).model_dump(), status_code=202)

    @app.post("/v1/jobs", response_model=Accepted, status_code=202, responses=ERRORS, tags=["jobs"])
    async def jobs(batch: Batch, request: Request, _token: Token = auth, key: str | None = idempotency):
        """Queue many candidates; answer at once with their job ids, in order (poll or stream their answers)."""
        client = client_of(request)
        new = [resolve(number, submission) for number, submission in enumerate(batch.candidates)]
        ids, replayed = await submit(client, new, key, batch.model_dump())
        found = await run_in_threadpool(store.jobs, client, ids)
        return Accepted(jobs=[state_of(found[i]) for i in ids], replayed=replayed)

    @app.post("/v1/jobs/results", response_model=Results, responses=ERRORS, tags=["jobs"])
    async def results(query: JobIds, request: Request, _token: Token = auth) -> Results:
        """The jobs' states and answers, waiting up to ``wait`` seconds for all to be answered."""
        client = client_of(request)
        ids = list(dict.fromkeys(query.job_ids))
        found = await wait_for(client, ids, query.wait)
        return Results(jobs=[state_of(found[i]) for i in ids if i in found], missing=[i for i in ids if i not in found])

    @app.get("/v1/jobs/{job_id}", response_model=JobState, responses=ERRORS, tags=["jobs"])
    async def one_job(job_id: str, request: Request, _token: Token = auth) -> JobState:
        found = await run_in_threadpool(store.jobs, client_of(request), [job_id])
        if job_id not in found:
            raise Rejected(404, f"no job {job_id!r} of this token")
        return state_of(found[job_id])

    @app.post(
        "/v1/jobs/stream",
        responses={**ERRORS, 200: {"content": {"application/x-ndjson": {}}, "description": "one JobState a line"}},
        tags=["jobs"],
    )
    async def stream(query: JobIds, request: Request, _token: Token = auth) -> StreamingResponse:
        """Each job's JobState as one JSON line, as soon as it is answered (answered ones first), for up to ``wait``
        seconds; jobs still unanswered then are sent as they stand, and unknown ids not at all."""
        client = client_of(request)
        ids = list(dict.fromkeys(query.job_ids))

        async def lines() -> AsyncIterator[bytes]:
            event = waiters.watch(ids)
            sent: set[str] = set()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + query.wait
            try:
                while True:
                    event.clear()
                    found = await run_in_threadpool(store.jobs, client, [i for i in ids if i not in sent])
                    final = loop.time() >= deadline
                    for job_id, job in found.items():
                        if job.state == "done" or final:
                            sent.add(job_id)
                            yield (state_of(job).model_dump_json() + "\n").encode("utf-8")
                    if final or all(job.state == "done" for job in found.values()):
                        return
                    try:
                        await asyncio.wait_for(event.wait(), min(deadline - loop.time(), 5.0))
                    except TimeoutError:
                        pass
            finally:
                waiters.forget(ids, event)

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    @app.get(
        "/metrics",
        response_class=PlainTextResponse,
        responses={
            401: {"content": {"application/json": {"schema": Error.model_json_schema()}}},
            429: {"content": {"application/json": {"schema": Error.model_json_schema()}}},
        },
        tags=["health"],
    )
    async def prometheus(_token: Token = auth) -> PlainTextResponse:
        counts = await run_in_threadpool(store.counts)
        text = metrics.render(
            counts, judges.judged, dict(judges.by_status), judges.seconds_total, judges.busy, judges.workers
        )
        return PlainTextResponse(text, media_type="text/plain; version=0.0.4; charset=utf-8")

    spec = app.openapi

    def openapi() -> dict:
        """The spec, with served instance ids as the examples of ``instance_id`` (so a fuzzer reaches the judges)."""
        schema = spec()
        examples = [next(iter(served.records)) for served in datasets.values() if served.records]
        schema["components"]["schemas"]["Submission"]["properties"]["instance_id"]["examples"] = examples
        return schema

    app.openapi = openapi
    return Guard(app, guard, metrics.response)


__all__ = ["REWARDS", "Limits", "Waiters", "create_app"]
