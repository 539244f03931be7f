"""The values of the inference: whose attributes an expression has, and what a call calls.

Every expression is *repo* (an instance, class or module of the repository,
optionally with the class known), *external* (a literal, a builtin, something
imported from another package, or what calling or reading an attribute of
such a thing gives) or *unknown*. :mod:`benchsmith.paraphrase.python.inference` computes them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from benchsmith.paraphrase.python.records import ClassInfo, FunctionInfo
from benchsmith.paraphrase.python.source import SourceFile

REPO, EXTERNAL, UNKNOWN = "repo", "external", "unknown"


@dataclass(frozen=True)
class Kind:
    tag: str
    cls: ClassInfo | None = None  # the repository class of an instance or class object
    is_class: bool = False  # the class object itself rather than an instance
    module: SourceFile | None = None  # a repository module object


EXT, UNK = Kind(EXTERNAL), Kind(UNKNOWN)


def combine(kinds: Iterable[Kind]) -> Kind:
    found = set(kinds)
    if len(found) == 1:
        return found.pop()
    if found and {k.tag for k in found} == {REPO}:
        return Kind(REPO)
    return UNK


@dataclass(eq=False)
class Hierarchy:
    classes: list[ClassInfo]  # the repository classes it derives from, itself first
    external: list[str]  # inspected external bases (qualified names)
    opaque: list[str]  # bases that could not be resolved or inspected
    external_attrs: set[str]  # attribute names of the inspected external bases
    field_based: bool

    @property
    def pure(self) -> bool:
        return not self.external and not self.opaque

    @property
    def defined(self) -> set[str]:
        return {n for c in self.classes for n in (*c.body_names, *c.self_attrs)}


@dataclass(frozen=True)
class Callee:
    tag: str
    functions: tuple[FunctionInfo, ...] | None = None  # None: keywords name fields, parameters not listed
    qualified: frozenset[str] = frozenset()  # an external callee's qualified names
    cls: ClassInfo | None = None  # calling a repository class (whoever supplies its constructor)


def merge_callees(callees: list[Callee], qualified: set[str]) -> Callee:
    """One callee for a name bound several ways (each branch of an ``if``, say)."""
    if len(callees) == 1:
        return callees[0]
    tags = {c.tag for c in callees}
    if tags == {REPO}:
        if any(c.functions is None for c in callees):
            return Callee(REPO, None)
        return Callee(REPO, tuple(fi for c in callees for fi in c.functions or ()))
    if tags == {EXTERNAL}:
        return Callee(EXTERNAL, qualified=frozenset(qualified))
    return Callee(UNKNOWN)
