"""The agents (seed 002: RRR and its baselines) behind one registry: name → where its class lives.

``benchsmith agent run --agent NAME`` builds the agent registered as NAME; an
agent of one's own is a subclass of :class:`harness.agents.strategies.Agent`
made known with :func:`register`. Classes are imported only when chosen, so
listing the agents imports none of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass

from benchsmith.core.errors import BenchsmithError


@dataclass(frozen=True)
class AgentEntry:
    target: str  # "module:Class"
    help: str


_REGISTRY: dict[str, AgentEntry] = {
    "basic": AgentEntry("harness.agents.strategies:Basic", "one generation from the description (BASICPROMPTING)"),
    "naive-rag": AgentEntry("harness.agents.strategies:NaiveRag",
                            "one generation from the description and the top snippets of the repository (NAIVERAG)"),
    "repocoder": AgentEntry("harness.agents.strategies:RepoCoder",
                            "iterative retrieval: each generation is the query of the next; no test feedback (REPOCODER)"),
    "reflexion": AgentEntry("harness.agents.strategies:Reflexion",
                            "oracle feedback and self-reflection, no repository context (REFLEXION)"),
    "rrr": AgentEntry("harness.agents.strategies:RRR",
                      "Retrieve-Repotools-Reflect (Algorithm 1): snippets, then per iteration oracle feedback, "
                      "at most 3 tool calls, reflection, improved generation"),
}  # fmt: skip


def register(name: str, target: str, help: str) -> None:
    """Make the agent class at *target* ("module:Class") known as *name*."""
    if name in _REGISTRY and _REGISTRY[name].target != target:
        raise BenchsmithError(f"agent {name!r} is registered already ({_REGISTRY[name].target})")
    _REGISTRY[name] = AgentEntry(target, help)


def agents() -> Mapping[str, AgentEntry]:
    return dict(_REGISTRY)


def get_agent(name: str, **options: object):
    """An instance of the agent registered as *name*; *options* are its constructor's keywords (max_calls)."""
    entry = _REGISTRY.get(name)
    if entry is None:
        raise BenchsmithError(f"unknown agent {name!r} (choose from {', '.join(_REGISTRY)})")
    module, _, attribute = entry.target.partition(":")
    agent_class = getattr(importlib.import_module(module), attribute)
    if getattr(agent_class, "name", None) != name:
        raise BenchsmithError(f"agent {name!r}: {entry.target} names itself {getattr(agent_class, 'name', None)!r}")
    return agent_class(**options)
