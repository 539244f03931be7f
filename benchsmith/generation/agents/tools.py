"""The RepoClassBench paper's six repository tools (Table 2, appendix F) as a model sees them, in both languages: their
names, descriptions, JSON-schema parameters and limits. Each language implements them over its visible repository
(:mod:`benchsmith.generation.agents.python.tools`, :mod:`benchsmith.generation.agents.java.tools`), so an agent speaks
to
both alike."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from benchsmith.generation.agents.base import Tool

RELATED_SNIPPETS = 5  # appendix F.1
CLASS_INFO_MEMBERS = 10  # appendix F.2: k = 10
RELEVANT_CODE = 3  # appendix F.2
BODY_LINES = 60  # get_method_body truncates beyond these
BODY_CHARS = 4000
_STRING = {"type": "string"}


class RepositoryTools(Protocol):
    """What a language implements, one method per tool."""

    def related_snippets(self, query: str = "", thought: str = "") -> str: ...
    def imports(self, thought: str = "") -> str: ...
    def class_info(self, class_name: str, thought: str = "") -> str: ...
    def signature(self, class_name: str | None, method_name: str, thought: str = "") -> str: ...
    def method_body(self, class_name: str | None, method_name: str, thought: str = "") -> str: ...
    def relevant_code(self, search_string: str, thought: str = "") -> str: ...


def no_class(name: str) -> str:
    return (
        f"Class `{name}` was not found in the repository. Note that the class you are asked to write does not "
        "exist yet, so the tools cannot show it."
    )


def truncated(source: str, lines: int = BODY_LINES, chars: int = BODY_CHARS) -> str:
    kept = source.splitlines()
    text = "\n".join(kept[:lines])
    if len(text) > chars:
        text = text[:chars].rsplit("\n", 1)[0]
    shown = text.count("\n") + 1
    return text if shown >= len(kept) else text + f"\n    # ... ({len(kept) - shown} more lines truncated)"


def _tool(
    name: str,
    description: str,
    call: Callable[..., str],
    properties: dict,
    required: list[str],
    independent: bool = False,
) -> Tool:
    parameters = {"type": "object", "properties": properties, "required": required}
    return Tool(name, description, parameters, call, independent)


def repository_tools(tools: RepositoryTools) -> dict[str, Tool]:
    """The six tools by name, each answering through *tools*, the language's implementation."""
    class_name = {"type": "string", "description": "the class's name"}
    method = {
        "class_name": {
            "type": ["string", "null"],
            "description": "the class of the method; null for a module-level function",
        },
        "method_name": {"type": "string"},
    }
    made = [
        _tool(
            "get_related_snippets",
            "Returns the 5 snippets of the repository most similar to the class "
            "description (or to `query` when given).",
            tools.related_snippets,
            {"query": {**_STRING, "description": "defaults to the class description"}},
            [],
            independent=True,
        ),
        _tool(
            "get_imports",
            "Returns import suggestions for all the undefined symbols in the code of the latest attempt.",
            tools.imports,
            {},
            [],
        ),
        _tool(
            "get_class_info",
            "Retrieves the methods (with parameters and return types), properties and variables "
            "of a class, inherited ones included; also returns the constructor.",
            tools.class_info,
            {"class_name": class_name},
            ["class_name"],
        ),
        _tool(
            "get_signature",
            "Returns the signature of a method (every overload), with its parameter names and types.",
            tools.signature,
            method,
            ["class_name", "method_name"],
        ),
        _tool(
            "get_method_body",
            "Returns the definition of a method (its signature only when it is defined outside the repository).",
            tools.method_body,
            method,
            ["class_name", "method_name"],
        ),
        _tool(
            "get_relevant_code",
            "Returns potentially relevant pieces of code (classes, functions, snippets) of the "
            "repository for a search string.",
            tools.relevant_code,
            {"search_string": _STRING},
            ["search_string"],
        ),
    ]
    return {t.name: t for t in made}
