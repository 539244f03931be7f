"""Names another paraphrase flipped that benchsmith's rules keep: renamed occurrence by occurrence.

benchsmith keeps a name's spelling everywhere as soon as one occurrence may
belong to another package (:mod:`benchsmith.paraphrase.python.exclusions`). A copy rebuilt to
match a published paraphrase (RepoClassBench's ground truths spell ``Module``
flipped, and astroid also reads ``ast.Module``) must flip it anyway, and
consistently: through imports, re-exports, ``__all__``, module attributes
(``nodes.Module``) and the strings that look it up (``hasattr(node,
"postinit")``, ``patch("astroid.manager.AstroidManager.x")``). So such a name
is renamed by spelling, as every other flipped name, except the occurrences
that are another package's: an attribute of an object reached from another
package's import (``ast.Module``), a name bound by an import from another package, a keyword
passed to another package's callable, and a dotted string that starts in
another package (``"ast.Module"``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import ImportAssignment

from benchsmith.paraphrase.python import syntax
from benchsmith.paraphrase.python.index import origin
from benchsmith.paraphrase.python.records import RepoIndex
from benchsmith.paraphrase.python.source import SourceFile

#: Rules a caller may overrule: those about other packages and lookups by spelling. The others say the name cannot
#: change at all (a keyword, a receiver convention, a hook's name, a module's file name, a variant already taken).
OVERRULABLE = frozenset(
    {
        "external-import",
        "string",
        "dynamic",
        "external-decorator",
        "fixture",
        "star-import",
        "common-attribute",
        "external-attribute",
        "stdlib-attribute",
        "external-base",
        "keyword",
        "runtime-name",
        "unknown-receiver",
    }
)


@dataclass
class Occurrences:
    """Where the overruled names keep their spelling, and the string literals that change with them."""

    kept: set[cst.CSTNode] = field(default_factory=set)  # Name nodes that are another package's
    # literal -> the literal it becomes (itself where it names another package's: an annotation's "ast.Module")
    strings: dict[cst.SimpleString, cst.SimpleString] = field(default_factory=dict)


def place_occurrences(index: RepoIndex, mapping: dict[str, str]) -> Occurrences:
    """The occurrences of the names of *mapping* (overruled names -> their variants) that keep their spelling, and
    the literals that name them."""
    found = Occurrences()
    for name in mapping:
        for use in index.attr_uses.get(name, ()):
            attr = use.node.attr if isinstance(use.node, cst.Attribute) else getattr(use.node, "key", None)
            if attr is not None and _another_packages(use.sf, index, use.receiver):
                found.kept.add(attr)
    for sf in index.repo.files:
        sf.tree.visit(_Occurrences(index, sf, mapping, found))
    return found


def _another_packages(sf: SourceFile, index: RepoIndex, receiver: cst.BaseExpression) -> bool:
    """A receiver reached from a name imported from another package (``ast.Module``, ``inspect.stack()[0].frame``)
    or from a literal (``"".join``). Not the inference's external kinds: those count builtins' results too, and
    ``next(node.infer()).pytype()`` is astroid's own."""
    while isinstance(receiver, (cst.Attribute, cst.Call, cst.Subscript)):
        receiver = receiver.func if isinstance(receiver, cst.Call) else receiver.value
    if isinstance(receiver, (cst.BaseString, cst.Integer, cst.Float, cst.List, cst.Dict, cst.Set, cst.Tuple)):
        return True
    if not isinstance(receiver, cst.Name):
        return False
    bindings = sf.bindings(receiver)
    return bool(bindings) and all(
        isinstance(b, ImportAssignment) and not index.repo.is_repo_binding(sf, b) for b in bindings
    )


class _Occurrences(cst.CSTVisitor):
    def __init__(self, index: RepoIndex, sf: SourceFile, mapping: dict[str, str], found: Occurrences) -> None:
        self.index, self.sf, self.mapping, self.found = index, sf, mapping, found

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # the attribute's own name is decided by its receiver (place_occurrences)
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        return False  # module paths never change; ``as`` names are the renamer's

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False  # the renamer protects names imported from other packages

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # a keyword itself is the analysis' (keep_keywords)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.mapping and origin(self.sf, self.index.repo, node) == "external":
            self.found.kept.add(node)  # bound by an import from another package

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if node in self.index.rewritable_strings or syntax.is_docstring_like(node, self.sf.parents):
            return  # name lists are renamed with the code; docstrings are prose
        text = syntax.string_text(node)
        parts = text.split(".") if text else []
        if not parts or not all(p.isidentifier() for p in parts) or not any(p in self.mapping for p in parts):
            self._rename_reprs(node)
            return
        if len(parts) > 1 and not self._starts_in_repository(parts[0]):
            self.found.strings[node] = node  # "ast.Module": another package's, in an annotation too
            return
        renamed = ".".join(self.mapping.get(p, p) for p in parts)
        self.found.strings[node] = node.with_changes(value=f"{node.prefix}{node.quote}{renamed}{node.quote}")

    def _rename_reprs(self, node: cst.SimpleString) -> None:
        """A text that spells a renamed class as a repr does (an expected repr: ``"mount: FixedMount(surface_tilt=0)"``,
        ``"<FDCapture 1 oldfd=3>"``) or as Python's messages name a type (``"'PersonName' object is not an
        iterator"``, ``"type object 'X' has no attribute"``, ``"instances of 'X' and 'Y'"``) changes with the class,
        whose generated repr and messages now spell it flipped."""
        classes = [n for n in self.mapping if n in self.index.classes_by_name]
        if not classes:
            return
        names = "|".join(map(re.escape, classes))
        spelled = re.compile(
            rf"(?:(?:(?<=\\[ntr])|(?<![\w]))({names})(?=\())|(?:(?<=<)({names})(?=[\s>:]))"
            rf"|{_type_in_message(names)}"
        )
        renamed = spelled.sub(lambda m: self.mapping[next(g for g in m.groups() if g)], node.value)
        if renamed != node.value:
            self.found.strings[node] = node.with_changes(value=renamed)

    def _starts_in_repository(self, first: str) -> bool:
        if first in self.index.repo.top_level or first in self.mapping:
            return True
        scope = self.sf.scopes.get(self.sf.tree.body[0]) if self.sf.tree.body else None
        if scope is None or first not in scope:
            return False
        return all(self.index.repo.is_repo_binding(self.sf, binding) for binding in scope[first])


def _type_in_message(names: str) -> str:
    """A pattern for one of *names* quoted as CPython's messages quote a type's name: ``'%.200s' object``, ``type
    object '%.100s'``, ``instances of '%.100s' and '%.100s'``, ``for +: '%.100s' and '%.100s'``, ``of type
    '%.100s'``. The quotes may be escaped in the literal. A quoted word in other prose keeps its spelling."""
    quote = r"\\?'"
    after = rf"(?<=')({names})(?={quote}(?: object\b| and {quote}))"
    prefixes = ("type object ", "instances of ", "of type ", "' and ")
    before = "|".join(f"(?<={re.escape(p)}{q})" for p in prefixes for q in ("'", "\\\\'"))
    return rf"{after}|(?:{before})({names})(?={quote})"
