"""The size of a class in tokens, as the RepoClassBench paper counts it for both languages (its 3,000-token limit)."""

from __future__ import annotations

import functools


@functools.cache
def _encoding():
    import bpe_openai

    return bpe_openai.get_encoding("cl100k_base")


def count_tokens(text: str) -> int:
    """cl100k tokens (the gpt-3.5 tokenizer), computed offline."""
    return len(_encoding().encode(text))
