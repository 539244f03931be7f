"""Prompt templates: text files under ``templates/``, filled by name.

A template file opens with comment lines starting with ``;;`` (where the
wording comes from, and what was chosen where the papers are silent); the
rest is the prompt. Placeholders are ``{UPPER_CASE}`` names; any other brace
is literal text, and values are inserted verbatim (never scanned for
placeholders themselves), so Java braces and ``$`` in issue text are safe.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

from benchsmith.core.errors import BenchsmithError

TEMPLATES = Path(__file__).parent / "templates"
_COMMENT = ";;"
_PLACEHOLDER = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")


@functools.cache
def template_body(name: str) -> str:
    """The prompt text of template *name* (its comment header removed, no trailing newline)."""
    path = TEMPLATES / f"{name}.txt"
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except FileNotFoundError:
        raise BenchsmithError(f"{path}: no such prompt template") from None
    while lines and lines[0].startswith(_COMMENT):
        lines.pop(0)
    return "\n".join(lines).rstrip("\n")


def placeholders(name: str) -> set[str]:
    return set(_PLACEHOLDER.findall(template_body(name)))


def render(name: str, **values: str) -> str:
    """Template *name* with every placeholder replaced; a missing or unused value is a programming error."""
    wanted = placeholders(name)
    if wanted != set(values):
        raise ValueError(f"template {name}: placeholders {sorted(wanted)} but values {sorted(values)}")
    cleaned = {key: _clean(value) for key, value in values.items()}
    return _PLACEHOLDER.sub(lambda match: cleaned[match.group(1)], template_body(name))


def prompt_hash(names: Iterable[str]) -> str:
    """sha256 over the prompt texts of the templates *names* (order and repeats ignored).

    Comment headers are not hashed: editing the explanation of a prompt does
    not change what a model was asked.
    """
    digest = hashlib.sha256()
    for name in sorted(set(names)):
        digest.update(f"{name}\0{template_body(name)}\0".encode())
    return digest.hexdigest()


def _clean(value: str) -> str:
    """Drop leading blank lines and trailing white space; keep the first line's indentation."""
    lines = value.replace("\r\n", "\n").rstrip().split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines)
