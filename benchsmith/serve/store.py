"""The server's jobs, in SQLite (WAL): written before they are acknowledged, answered exactly once across crashes.

A job is ``queued`` when accepted (the insert is committed, with ``synchronous=FULL``, before the client hears of it),
``running`` while a worker holds it, ``done`` with its answer. Only a ``running`` job becomes ``done``, in one
statement, so an answer is recorded once; a server started again puts the jobs it was running when it died back in
the queue (their verdicts were never recorded), and answers the ``done`` ones from here. A submission repeating an
earlier ``Idempotency-Key`` of the same client gets the earlier jobs back, judged or not, never new ones.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from benchsmith.core.errors import BenchsmithError

SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    job_id TEXT PRIMARY KEY,
    client TEXT NOT NULL,
    idempotency_key TEXT,
    position INTEGER NOT NULL DEFAULT 0,
    request_hash TEXT NOT NULL DEFAULT '',
    dataset TEXT NOT NULL,
    instance_id TEXT NOT NULL,
    candidate_id TEXT NOT NULL,
    code TEXT NOT NULL,
    reward TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done')),
    answer TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    accepted REAL NOT NULL,
    finished REAL
);
CREATE UNIQUE INDEX IF NOT EXISTS jobs_idempotency ON jobs (client, idempotency_key, position)
    WHERE idempotency_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS jobs_state ON jobs (state, accepted);
CREATE INDEX IF NOT EXISTS jobs_client ON jobs (client, state);
"""


@dataclass(frozen=True)
class NewJob:
    dataset: str
    instance_id: str
    candidate_id: str
    code: str
    reward: str  # how the answer's reward is computed ("plausible" or "pass-rate")


@dataclass(frozen=True)
class Job:
    job_id: str
    client: str
    dataset: str
    instance_id: str
    candidate_id: str
    code: str
    reward: str
    state: str
    answer: dict | None
    attempts: int
    accepted: float
    finished: float | None


class IdempotencyConflict(BenchsmithError):
    """An ``Idempotency-Key`` used again with another request body."""


class Store:
    """The jobs database under *folder* (``jobs.sqlite3``); one connection, shared by the server's threads."""

    def __init__(self, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "jobs.sqlite3"
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        self._lock = threading.Lock()
        with self._lock:
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode != "wal":
                raise BenchsmithError(f"{self.path}: SQLite would not use WAL mode (got {mode!r})")
            self._db.execute("PRAGMA synchronous=FULL")  # a committed job survives a power cut, not only a crash
            self._db.executescript(SCHEMA)
            ok = self._db.execute("PRAGMA quick_check").fetchone()[0]
            if ok != "ok":
                raise BenchsmithError(f"{self.path}: the store is damaged ({ok})")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def requeue_running(self) -> int:
        """Put back in the queue the jobs a server that died was running (at start, before any worker)."""
        with self._lock:
            return self._db.execute("UPDATE jobs SET state = 'queued' WHERE state = 'running'").rowcount

    def submit(
        self, client: str, jobs: list[NewJob], idempotency_key: str | None, request_hash: str
    ) -> tuple[list[str], bool]:
        """Record *jobs* as queued, committed before returning their ids; with an *idempotency_key* this client
        used before, the earlier jobs' ids instead (and True: nothing new was queued)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if idempotency_key is not None:
                    rows = self._db.execute(
                        "SELECT job_id, request_hash FROM jobs WHERE client = ? AND idempotency_key = ? "
                        "ORDER BY position",
                        (client, idempotency_key),
                    ).fetchall()
                    if rows:
                        self._db.execute("ROLLBACK")
                        if rows[0][1] != request_hash:
                            raise IdempotencyConflict(
                                f"Idempotency-Key {idempotency_key!r} was used before with another request body"
                            )
                        return [row[0] for row in rows], True
                now = time.time()
                ids = [uuid.uuid4().hex for _ in jobs]
                self._db.executemany(
                    "INSERT INTO jobs (job_id, client, idempotency_key, position, request_hash, dataset, instance_id,"
                    " candidate_id, code, reward, state, accepted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?)",
                    [
                        (
                            i,
                            client,
                            idempotency_key,
                            n,
                            request_hash,
                            j.dataset,
                            j.instance_id,
                            j.candidate_id or i,
                            j.code,
                            j.reward,
                            now,
                        )
                        for n, (i, j) in enumerate(zip(ids, jobs))
                    ],
                )
                self._db.execute("COMMIT")
                return ids, False
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def known_key(self, client: str, idempotency_key: str) -> bool:
        with self._lock:
            row = self._db.execute(
                "SELECT 1 FROM jobs WHERE client = ? AND idempotency_key = ? LIMIT 1", (client, idempotency_key)
            ).fetchone()
        return row is not None

    def claim(self, limit: int, busy: Iterable[tuple[str, str]] = ()) -> list[Job]:
        """Up to *limit* queued jobs of the instance of the oldest one not among *busy* (dataset, instance id) pairs,
        now ``running`` (attempts counted): each client's oldest first, then each one's next, and so on."""
        busy = list(busy)
        others = "".join(" AND NOT (dataset = ? AND instance_id = ?)" for _ in busy)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                first = self._db.execute(
                    f"SELECT dataset, instance_id FROM jobs WHERE state = 'queued'{others} ORDER BY accepted LIMIT 1",
                    [part for pair in busy for part in pair],
                ).fetchone()
                if first is None:
                    self._db.execute("COMMIT")
                    return []
                # Clients take turns within an instance: one token's many slow candidates do not hold another's
                # behind them all (red team round 5: a gold waited 41 s behind eight sleepers of another token).
                rows = self._db.execute(
                    "SELECT * FROM jobs WHERE job_id IN (SELECT job_id FROM jobs WHERE state = 'queued' "
                    "AND dataset = ? AND instance_id = ?) ORDER BY ROW_NUMBER() OVER "
                    "(PARTITION BY client ORDER BY accepted, position), accepted, position LIMIT ?",
                    (*first, limit),
                ).fetchall()
                self._db.executemany(
                    "UPDATE jobs SET state = 'running', attempts = attempts + 1 WHERE job_id = ?",
                    [(row[0],) for row in rows],
                )
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        jobs = [self._job(row) for row in rows]
        return [Job(**{**job.__dict__, "state": "running", "attempts": job.attempts + 1}) for job in jobs]

    def finish(self, job_id: str, answer: dict) -> bool:
        """Record *answer* for a running job; False (and nothing written) if it was not running."""
        with self._lock:
            cursor = self._db.execute(
                "UPDATE jobs SET state = 'done', answer = ?, finished = ? WHERE job_id = ? AND state = 'running'",
                (json.dumps(answer), time.time(), job_id),
            )
            return cursor.rowcount == 1

    def jobs(self, client: str, job_ids: Iterable[str]) -> dict[str, Job]:
        """*client*'s jobs among *job_ids* (another client's are not found)."""
        ids = list(dict.fromkeys(job_ids))
        found: dict[str, Job] = {}
        with self._lock:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for row in self._db.execute(
                    f"SELECT * FROM jobs WHERE client = ? AND job_id IN ({marks})", (client, *chunk)
                ).fetchall():
                    found[row[0]] = self._job(row)
        return found

    def counts(self, client: str | None = None, done: bool = True) -> dict[str, int]:
        """Jobs by state, of *client* or of everyone; without *done*, the queued and running ones only (an index
        range each, however many jobs the store has answered)."""
        states = ("queued", "running", "done") if done else ("queued", "running")
        where, args = ("client = ? AND ", (client,)) if client is not None else ("", ())
        with self._lock:
            return {
                state: self._db.execute(f"SELECT COUNT(*) FROM jobs WHERE {where}state = ?", (*args, state)).fetchone()[
                    0
                ]
                for state in states
            }

    @staticmethod
    def _job(row: tuple) -> Job:
        # the columns in SCHEMA's order: job_id, client, idempotency_key, position, request_hash, dataset, instance_id,
        # candidate_id, code, reward, state, answer, attempts, accepted, finished
        return Job(
            job_id=row[0],
            client=row[1],
            dataset=row[5],
            instance_id=row[6],
            candidate_id=row[7],
            code=row[8],
            reward=row[9],
            state=row[10],
            answer=json.loads(row[11]) if row[11] else None,
            attempts=row[12],
            accepted=row[13],
            finished=row[14],
        )
