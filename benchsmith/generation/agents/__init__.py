"""The agents (RepoClassBench paper: RRR and its baselines) behind one registry: name → where its class lives.

``benchsmith agent run --agent NAME`` builds the agent registered as NAME; an
agent of one's own is a subclass of :class:`benchsmith.generation.agents.strategies.Agent`
made known with :func:`register`. Classes are imported only when chosen, so
listing the agents imports none of them.
"""

from __future__ import annotations

from collections.abc import Mapping

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.registry import Entry, Registry

AgentEntry = Entry  # a registered agent: its target ("module:Class") and help

# Third-party agents join through the entry point group "benchsmith.agents" (name = "package.module:Class").
AGENTS: Registry = Registry("agent", "benchsmith.agents", base="benchsmith.generation.agents.strategies:Agent")
for _name, _target, _help in (
    ("basic", "benchsmith.generation.agents.strategies:Basic", "one generation from the description (BASICPROMPTING)"),
    (
        "naive-rag",
        "benchsmith.generation.agents.strategies:NaiveRag",
        "one generation from the description and the top snippets of the repository (NAIVERAG)",
    ),
    (
        "repocoder",
        "benchsmith.generation.agents.strategies:RepoCoder",
        "iterative retrieval: each generation is the query of the next; no test feedback (REPOCODER)",
    ),
    (
        "reflexion",
        "benchsmith.generation.agents.strategies:Reflexion",
        "oracle feedback and self-reflection, no repository context (REFLEXION)",
    ),
    (
        "rrr",
        "benchsmith.generation.agents.strategies:RRR",
        "Retrieve-Repotools-Reflect (Algorithm 1): snippets, then per iteration oracle feedback, "
        "at most 3 tool calls, reflection, improved generation",
    ),
):
    AGENTS.add(_name, _target, _help)


def register(name: str, target: str, help: str) -> None:
    """Make the agent class at *target* ("module:Class") known as *name*."""
    AGENTS.add(name, target, help)


def agents() -> Mapping[str, Entry]:
    return AGENTS.entries()


def get_agent(name: str, **options: object):
    """An instance of the agent registered as *name*; *options* are its constructor's keywords (max_calls)."""
    agent_class = AGENTS.load(name)
    if getattr(agent_class, "name", None) != name:
        raise BenchsmithError(
            f"agent {name!r}: {AGENTS.entry(name).target} names itself {getattr(agent_class, 'name', None)!r}"
        )
    return agent_class(**options)
