"""Reward functions for trainers, answered by a running ``benchsmith serve``.

TRL's ``GRPOTrainer`` calls each of its ``reward_funcs`` as ``f(prompts=..., completions=..., completion_ids=...,
**columns)`` (every other column of the training dataset as a list beside them, and ``trainer_state``) and takes one
float per completion; a completion is a string, or a list of messages in the conversational format.
:func:`trl_reward` makes such a function: the ``instance_id`` column names what each completion answers.

verl's custom reward hook (``custom_reward_function.path`` and ``.name``) calls ``compute_score(data_source,
solution_str, ground_truth, extra_info=None)`` once per response and takes a float. :func:`compute_score` reads the
server from ``BENCHSMITH_SERVE_URL`` and its token from ``BENCHSMITH_SERVE_TOKEN`` (or the first line of
``BENCHSMITH_SERVE_TOKEN_FILE``); the instance is ``extra_info["instance_id"]``, else ``ground_truth`` (a trainer's
data carries the instance's id there, never the solution). :func:`verl_reward` makes one bound to a server.

The code judged is the completion's last fenced code block, or the whole completion where it has none.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable

from benchsmith.serve.client import ServeClient, candidate

FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.S)
_clients: dict[tuple[str, str], ServeClient] = {}
_lock = threading.Lock()


def extract_code(completion: str | list[dict]) -> str:
    """The code in a completion: its last fenced block, else all of it (the last assistant message's content in the
    conversational format)."""
    if isinstance(completion, list):
        said = [m.get("content", "") for m in completion if isinstance(m, dict) and m.get("role") == "assistant"]
        completion = said[-1] if said else ""
    blocks = FENCE.findall(completion or "")
    return blocks[-1] if blocks else (completion or "")


def _client(url: str, token: str) -> ServeClient:
    with _lock:
        if (url, token) not in _clients:
            _clients[(url, token)] = ServeClient(url, token)
        return _clients[(url, token)]


def trl_reward(
    url: str, token: str, instance_column: str = "instance_id", reward: str | None = None
) -> Callable[..., list[float]]:
    """A reward function for TRL's ``GRPOTrainer(reward_funcs=[...])``: one batch of completions, judged together."""
    extra = {"reward": reward} if reward else {}

    def benchsmith_reward(completions: list, **kwargs) -> list[float]:
        if instance_column not in kwargs:
            raise KeyError(f"the training dataset has no {instance_column!r} column, which names each instance")
        ids = kwargs[instance_column]
        if len(ids) != len(completions):
            raise ValueError(f"{len(completions)} completions but {len(ids)} {instance_column} values")
        candidates = [candidate(str(i), extract_code(c), **extra) for i, c in zip(ids, completions)]
        return [float(answer["reward"]) for answer in _client(url, token).judge_many(candidates)]

    return benchsmith_reward


def verl_reward(url: str, token: str, reward: str | None = None) -> Callable[..., float]:
    """A ``compute_score`` for verl bound to a server."""
    extra = {"reward": reward} if reward else {}

    def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict | None = None) -> float:
        instance_id = (extra_info or {}).get("instance_id") or ground_truth
        if not instance_id:
            raise ValueError(f"{data_source}: no instance id (extra_info['instance_id'] or ground_truth)")
        answer = _client(url, token).judge(str(instance_id), extract_code(solution_str), **extra)
        return float(answer["reward"])

    return compute_score


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict | None = None) -> float:
    """verl's custom reward hook, on the server the environment names (see the module's docstring)."""
    url = os.environ.get("BENCHSMITH_SERVE_URL", "")
    token = os.environ.get("BENCHSMITH_SERVE_TOKEN", "")
    if not token and os.environ.get("BENCHSMITH_SERVE_TOKEN_FILE"):
        with open(os.environ["BENCHSMITH_SERVE_TOKEN_FILE"], encoding="utf-8") as handle:
            token = next((line.strip() for line in handle if line.strip() and not line.startswith("#")), "")
    if not url or not token:
        raise RuntimeError("set BENCHSMITH_SERVE_URL and BENCHSMITH_SERVE_TOKEN (or BENCHSMITH_SERVE_TOKEN_FILE)")
    return verl_reward(url, token)(data_source, solution_str, ground_truth, extra_info)
