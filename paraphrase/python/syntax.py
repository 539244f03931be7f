"""Syntactic contexts shared by the analysis and the rewriter.

Both must agree on which string literals are code (string annotations), which
list names the rewriter keeps in step (``__all__``, ``__slots__``, pytest's
``parametrize`` argument names) and which are merely prose (docstrings).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

import libcst as cst
from libcst.helpers import get_full_name_for_node

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:[.:][A-Za-z_][A-Za-z0-9_]*)*")
_NAME_LIST = re.compile(r"\s*[A-Za-z_][A-Za-z0-9_]*(?:\s*[,\s]\s*[A-Za-z_][A-Za-z0-9_]*)*\s*,?\s*")

#: Module or class variables whose string items are attribute or export names.
NAME_LIST_TARGETS = frozenset({"__all__", "__slots__", "__match_args__"})
_LIST_METHODS = frozenset({"append", "extend", "insert", "remove", "__iadd__"})


def full_name(node: cst.CSTNode | None) -> str | None:
    return get_full_name_for_node(node) if node is not None else None


def string_text(node: cst.SimpleString) -> str | None:
    """The text of a plain (non-bytes) literal whose source has no escapes, else None."""
    prefix = node.prefix.lower()
    if "b" in prefix:
        return None
    inner = node.raw_value
    if "\\" in inner and "r" not in prefix:
        return None
    return inner


def identifiers_in_string(text: str, lists: bool = False) -> list[str]:
    """The identifiers of a literal that is exactly a (dotted) name, or with *lists* a name list."""
    if _DOTTED.fullmatch(text) or (lists and _NAME_LIST.fullmatch(text)):
        return IDENTIFIER.findall(text)
    return []


def rename_identifier_list(node: cst.SimpleString, mapping: Mapping[str, str]) -> cst.SimpleString:
    """Rename the names of a literal that is a name or a list of names, keeping quotes and spacing."""
    text = string_text(node)
    if text is None or not _NAME_LIST.fullmatch(text):
        return node
    renamed = IDENTIFIER.sub(lambda m: mapping.get(m.group(0), m.group(0)), text)
    if renamed == text:
        return node
    return node.with_changes(value=f"{node.prefix}{node.quote}{renamed}{node.quote}")


def is_docstring_like(node: cst.CSTNode, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> bool:
    """A literal that is a whole expression statement (docstrings and other bare strings)."""
    parent = parents.get(node)
    while isinstance(parent, cst.ConcatenatedString):
        parent = parents.get(parent)
    return isinstance(parent, cst.Expr)


def name_list_values(statement: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    """Expressions holding the names of ``__all__ = [...]``, ``__all__ += [...]``, ``__all__.extend([...])``."""
    if isinstance(statement, cst.Assign):
        if any(isinstance(t.target, cst.Name) and t.target.value in NAME_LIST_TARGETS for t in statement.targets):
            yield statement.value
    elif isinstance(statement, (cst.AugAssign, cst.AnnAssign)):
        target = statement.target
        if isinstance(target, cst.Name) and target.value in NAME_LIST_TARGETS and statement.value is not None:
            yield statement.value
    elif isinstance(statement, cst.Call) and isinstance(statement.func, cst.Attribute):
        receiver = statement.func.value
        if (
            isinstance(receiver, cst.Name)
            and receiver.value in NAME_LIST_TARGETS
            and statement.func.attr.value in _LIST_METHODS
        ):
            yield from (a.value for a in statement.args)


def strings_within(node: cst.CSTNode) -> Iterator[cst.SimpleString]:
    """Literal strings of a list/tuple/set display (or a single literal)."""
    if isinstance(node, cst.SimpleString):
        yield node
    elif isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        for element in node.elements:
            yield from strings_within(element.value)


def parametrize_argnames(decorator: cst.Decorator) -> cst.BaseExpression | None:
    """The ``argnames`` of ``@pytest.mark.parametrize("a, b", ...)``, or None."""
    call = decorator.decorator
    if not isinstance(call, cst.Call) or not (full_name(call.func) or "").endswith("parametrize"):
        return None
    for position, arg in enumerate(call.args):
        if (arg.keyword is None and position == 0) or (arg.keyword is not None and arg.keyword.value == "argnames"):
            return arg.value
    return None


def is_literal_subscript(node: cst.Subscript) -> bool:
    """``Literal[...]``: its strings are values, not names, even inside annotations."""
    name = full_name(node.value) or ""
    return name == "Literal" or name.endswith(".Literal")


def callee_tail(func: cst.BaseExpression) -> str | None:
    """The last component of a callee (``getattr``, ``attrgetter`` in ``operator.attrgetter``)."""
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def string_fragments(node: cst.BaseExpression) -> Iterator[str]:
    """Literal text inside a computed string (``"visit_" + kind``, ``f"get_{name}"``)."""
    for child in _walk(node):
        if isinstance(child, cst.SimpleString):
            text = string_text(child)
            if text:
                yield text
        elif isinstance(child, cst.FormattedStringText):
            yield child.value


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    yield node
    for child in node.children:
        yield from _walk(child)


def function_params(fn: cst.FunctionDef | cst.Lambda) -> list[cst.Param]:
    p = fn.params
    return [*p.posonly_params, *p.params, *p.kwonly_params]


def keyword_params(fn: cst.FunctionDef) -> set[str]:
    """Parameters a caller can name with a keyword (not positional-only)."""
    p = fn.params
    return {x.name.value for x in (*p.params, *p.kwonly_params)}


def takes_star_kwargs(fn: cst.FunctionDef) -> bool:
    return isinstance(fn.params.star_kwarg, cst.Param)
