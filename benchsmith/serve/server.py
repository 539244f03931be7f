"""``benchsmith serve`` put together: the store, the datasets, the workers and the API, on uvicorn."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from benchsmith.benchmarks import EvalOptions
from benchsmith.core.errors import BenchsmithError
from benchsmith.runners.sandbox.executors import LocalExecutor, RayExecutor
from benchsmith.serve.app import Limits, Waiters, create_app
from benchsmith.serve.guard import GuardSettings, read_tokens
from benchsmith.serve.judging import Judges, open_datasets
from benchsmith.serve.metrics import Metrics
from benchsmith.serve.store import Store

log = logging.getLogger(__name__)
INSTALL = "pip install 'benchsmith[serve]'"


@dataclass
class ServeConfig:
    datasets: list[Path]
    token_file: Path
    store: Path
    options: EvalOptions  # how eval would judge (its dataset, candidates and out are set per dataset)
    host: str = "127.0.0.1"
    port: int = 8000
    batch: int = 16  # jobs of one instance judged on one runner
    reward: str = "plausible"  # classbench's default reward: "plausible" or "pass-rate"
    limits: Limits = field(default_factory=Limits)
    max_body_bytes: int = 8 * 1024 * 1024
    read_timeout: float = 30.0
    rate: float = 200.0
    burst: float = 400.0
    max_connections: int = 1000  # open connections at once; beyond, uvicorn answers 503


def serve(config: ServeConfig, executor: LocalExecutor | RayExecutor) -> None:
    """Serve until interrupted (SIGINT or SIGTERM). Jobs still being judged then are queued again at the next start."""
    try:
        import uvicorn
    except ImportError:
        raise BenchsmithError(
            f"benchsmith serve needs FastAPI and uvicorn, which are not installed: {INSTALL}"
        ) from None
    tokens = read_tokens(config.token_file)
    store_dir = Path(config.store).resolve()
    store = Store(store_dir)
    datasets = open_datasets(config.datasets, config.options, store_dir)
    waiters = Waiters()
    workers = executor.slots() if isinstance(executor, RayExecutor) else executor.workers
    judges = Judges(datasets, store, executor, workers, config.batch, waiters.done)
    metrics = Metrics()
    guard = GuardSettings(tokens, config.max_body_bytes, config.read_timeout, config.rate, config.burst)
    app = create_app(datasets, store, judges, waiters, guard, config.limits, metrics, config.reward)
    judges.start()
    counts = store.counts()
    log.info(
        "serving %s on http://%s:%d (%d workers on %s; store %s: %d queued, %d answered)",
        ", ".join(f"{name} ({served.benchmark.name}, {len(served.records)})" for name, served in datasets.items()),
        config.host,
        config.port,
        workers,
        executor.name,
        store.path,
        counts["queued"],
        counts["done"],
    )
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=config.host,
            port=config.port,
            log_level="warning",
            access_log=False,
            timeout_keep_alive=5,
            limit_concurrency=config.max_connections,
            timeout_graceful_shutdown=10,
            h11_max_incomplete_event_size=64 * 1024,
            lifespan="off",
        )
    )
    try:
        server.run()
    finally:
        judges.stop()
        store.close()
