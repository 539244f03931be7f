"""Prompt strategies for both benchmarks, rendered from the template files in ``templates/``.

Each strategy names the templates it uses, so :func:`prompt_hash` can say
which prompt text produced a run's candidates or a dataset's descriptions.
"""

from __future__ import annotations

from benchsmith.core.errors import BenchsmithError
from benchsmith.generation.prompts.renderer import prompt_hash, render, template_body

NL2FIX_STRATEGIES = ("zero-shot", "title-only", "one-shot", "reasoning")
CLASSBENCH_STRATEGIES = ("basic",)
STRATEGIES = NL2FIX_STRATEGIES + CLASSBENCH_STRATEGIES

_TEMPLATES = {
    "zero-shot": ("zero-shot",),
    "title-only": ("title-only",),
    "one-shot": ("one-shot", "zero-shot"),
    "reasoning": ("reasoning-localise", "reasoning-explain", "reasoning-fix"),
    "basic": ("classbench-basic",),
    "describe": ("describe",),
}


def templates_for(strategy: str) -> tuple[str, ...]:
    """The template names a strategy (or ``describe``) renders."""
    try:
        return _TEMPLATES[strategy]
    except KeyError:
        raise BenchsmithError(f"unknown prompt strategy {strategy!r} (known: {', '.join(_TEMPLATES)})") from None


def strategy_hash(strategy: str) -> str:
    return prompt_hash(templates_for(strategy))


__all__ = [
    "CLASSBENCH_STRATEGIES",
    "NL2FIX_STRATEGIES",
    "STRATEGIES",
    "prompt_hash",
    "render",
    "strategy_hash",
    "template_body",
    "templates_for",
]
