"""``benchsmith serve``: verdicts over HTTP for trainers, judged as ``eval`` judges (docs/serve.md).

``store`` (SQLite jobs, exactly once), ``judging`` (datasets, workers, answers), ``feedback`` (what an agent may see),
``guard`` (tokens, body limits, rates), ``metrics`` (Prometheus text), ``app`` (the FastAPI routes), ``server`` (all of
it on uvicorn), ``client`` (sync and asyncio, retries, batching) and ``rewards`` (TRL's and verl's reward functions).
"""
