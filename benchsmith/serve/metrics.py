"""The server's metrics in Prometheus' text exposition format (version 0.0.4), kept by hand: a few counters."""

from __future__ import annotations

import threading
from collections import defaultdict

ROUTES = ("/v1/judge", "/v1/jobs", "/v1/jobs/results", "/v1/jobs/stream", "/v1/health", "/metrics", "/openapi.json")
BUCKETS = (0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)


class Metrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: dict[tuple[str, str, str], int] = defaultdict(int)
        self.latency: dict[str, list[float]] = {}  # route -> bucket counts, then sum and count
        self.accepted = 0
        self.replayed = 0

    def response(self, path: str, method: str, status: int, seconds: float) -> None:
        route = path if path in ROUTES else ("/v1/jobs/{job_id}" if path.startswith("/v1/jobs/") else "other")
        with self._lock:
            self.requests[(route, method, str(status))] += 1
            counts = self.latency.setdefault(route, [0.0] * (len(BUCKETS) + 2))
            for number, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    counts[number] += 1
            counts[-2] += seconds
            counts[-1] += 1

    def jobs(self, accepted: int, replayed: int) -> None:
        with self._lock:
            self.accepted += accepted
            self.replayed += replayed

    def render(
        self,
        store_counts: dict[str, int],
        judged: int,
        by_status: dict[str, int],
        judging: float,
        busy: int,
        workers: int,
    ) -> str:
        lines: list[str] = []

        def metric(name: str, kind: str, text: str, samples: list[tuple[str, float]]) -> None:
            lines.append(f"# HELP {name} {text}")
            lines.append(f"# TYPE {name} {kind}")
            lines.extend(f"{name}{labels} {value:g}" for labels, value in samples)

        with self._lock:
            requests = sorted(self.requests.items())
            latency = {route: list(counts) for route, counts in sorted(self.latency.items())}
            accepted, replayed = self.accepted, self.replayed
        metric(
            "benchsmith_http_requests_total",
            "counter",
            "HTTP requests answered, by route, method and status code.",
            [(f'{{route="{r}",method="{m}",code="{c}"}}', n) for (r, m, c), n in requests],
        )
        samples = []
        for route, counts in latency.items():
            for bound, count in zip(BUCKETS, counts):
                samples.append((f'_bucket{{route="{route}",le="{bound:g}"}}', count))
            samples.append((f'_bucket{{route="{route}",le="+Inf"}}', counts[-1]))
            samples.append((f'_sum{{route="{route}"}}', counts[-2]))
            samples.append((f'_count{{route="{route}"}}', counts[-1]))
        lines.append("# HELP benchsmith_http_request_seconds Time to answer an HTTP request.")
        lines.append("# TYPE benchsmith_http_request_seconds histogram")
        lines.extend(f"benchsmith_http_request_seconds{suffix} {value:g}" for suffix, value in samples)
        metric("benchsmith_jobs_accepted_total", "counter", "Jobs accepted (stored) by this process.", [("", accepted)])
        metric(
            "benchsmith_jobs_replayed_total",
            "counter",
            "Jobs answered from the store for a repeated Idempotency-Key.",
            [("", replayed)],
        )
        metric(
            "benchsmith_jobs",
            "gauge",
            "Jobs in the store, by state.",
            [(f'{{state="{s}"}}', n) for s, n in sorted(store_counts.items())],
        )
        metric("benchsmith_verdicts_total", "counter", "Verdicts recorded by this process.", [("", judged)])
        metric(
            "benchsmith_verdicts_by_status_total",
            "counter",
            "Verdicts recorded by this process, by status.",
            [(f'{{status="{s}"}}', n) for s, n in sorted(by_status.items())],
        )
        metric("benchsmith_judging_seconds_total", "counter", "Seconds spent running candidates.", [("", judging)])
        metric("benchsmith_workers_busy", "gauge", "Workers judging a batch now.", [("", busy)])
        metric("benchsmith_workers", "gauge", "Workers.", [("", workers)])
        return "\n".join(lines) + "\n"
