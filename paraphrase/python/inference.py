"""A small, conservative inference of whose attributes an expression has.

Names are followed to their bindings with libcst's ScopeProvider; instance
attributes are typed by name across the repository (every value assigned to
``<anything>.session`` and every annotation of ``session``); base classes of
the standard library are inspected with ``dir()``. Nothing here runs the
repository's code.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst
from libcst.metadata import BaseAssignment, BuiltinAssignment, GlobalScope, ImportAssignment

from benchsmith.paraphrase.flip import is_dunder
from benchsmith.paraphrase.python import syntax
from benchsmith.paraphrase.python.calls import CallResolver
from benchsmith.paraphrase.python.kinds import EXT, EXTERNAL, REPO, UNK, Hierarchy, Kind, combine
from benchsmith.paraphrase.python.protocols import (
    FIELD_CLASS_BASES,
    HARMLESS_BASES,
    UNINFORMATIVE_TYPES,
    external_class_attributes,
)
from benchsmith.paraphrase.python.records import ClassInfo, FunctionInfo, RepoIndex
from benchsmith.paraphrase.python.source import SourceFile

_LITERALS = (
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.List,
    cst.Tuple,
    cst.Set,
    cst.Dict,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
    cst.Lambda,
    cst.Comparison,
)
_TYPE_WRAPPERS = frozenset(
    {"Optional", "Union", "Annotated", "ClassVar", "Final", "Type", "type", "Required", "NotRequired", "ReadOnly"}
)
_IMPLICIT_CLASSMETHODS = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})
_NAMEDTUPLE_ATTRIBUTES = frozenset(dir(tuple)) | {"_fields", "_asdict", "_replace", "_make", "_field_defaults"}


class Inference(CallResolver):
    """Kinds of expressions, hierarchies of classes and (from CallResolver) callees, memoised."""

    def __init__(self, index: RepoIndex, strict: bool = False) -> None:
        self.index, self.repo, self.strict = index, index.repo, strict
        self._memo: dict[cst.CSTNode, Kind] = {}
        self._active: set[object] = set()
        self._attr_memo: dict[str, Kind] = {}
        self._hierarchies: dict[ClassInfo, Hierarchy] = {}
        self._subclasses: dict[ClassInfo, list[ClassInfo]] = {}

    # -- expressions ------------------------------------------------------------------------------
    def expr(self, node: cst.BaseExpression, sf: SourceFile) -> Kind:
        if node in self._memo:
            return self._memo[node]
        if node in self._active:
            return UNK
        self._active.add(node)
        try:
            result = self._expr(node, sf)
        finally:
            self._active.discard(node)
        self._memo[node] = result
        return result

    def _expr(self, node: cst.BaseExpression, sf: SourceFile) -> Kind:
        if isinstance(node, _LITERALS):
            return EXT
        if isinstance(node, cst.Name):
            if node.value in ("None", "True", "False"):
                return EXT
            bindings = sf.bindings(node)
            return combine(self.binding(b, sf) for b in bindings) if bindings else UNK
        if isinstance(node, cst.Attribute):
            base = self.expr(node.value, sf)
            name = node.attr.value
            if base.tag == EXTERNAL:
                return EXT
            if base.module is not None:
                return self.module_member(base.module, name)
            if base.cls is not None:
                hierarchy = self.hierarchy(base.cls)
                if name in hierarchy.external_attrs or not (hierarchy.pure or name in hierarchy.defined):
                    return EXT
            return self.attribute(name)
        if isinstance(node, cst.Call):
            return self.call_result(node, sf)
        if isinstance(node, cst.IfExp):
            return combine([self.expr(node.body, sf), self.expr(node.orelse, sf)])
        if isinstance(node, cst.BinaryOperation):
            both = {self.expr(node.left, sf).tag, self.expr(node.right, sf).tag}
            return EXT if both == {EXTERNAL} else UNK
        return UNK

    def receiver(self, receiver: cst.BaseExpression, sf: SourceFile, name: str, instance_of: bool = False) -> Kind:
        """The kind of the object whose attribute *name* is read: where the attribute comes from."""
        kind = self.expr(receiver, sf)
        if kind.tag == REPO and kind.cls is not None and (kind.is_class or not instance_of):
            hierarchy = self.hierarchy(kind.cls)
            if name in hierarchy.external_attrs:
                return EXT
            return kind if hierarchy.pure or name in hierarchy.defined else EXT
        return kind

    # -- bindings ---------------------------------------------------------------------------------
    def binding(self, binding: BaseAssignment, sf: SourceFile) -> Kind:
        if binding in self._active:
            return UNK
        self._active.add(binding)
        try:
            return self._binding(binding, sf)
        finally:
            self._active.discard(binding)

    def _binding(self, binding: BaseAssignment, sf: SourceFile) -> Kind:
        if isinstance(binding, BuiltinAssignment):
            return EXT
        if isinstance(binding, ImportAssignment):
            return self._imported(binding, sf)
        node = getattr(binding, "node", None)
        if isinstance(node, cst.ClassDef):
            return Kind(REPO, cls=self.index.class_of[node], is_class=True)
        if isinstance(node, cst.FunctionDef):
            return EXT if not node.decorators else UNK  # a plain function object: its attributes are Python's
        if isinstance(node, cst.Param):
            return self._param(node, sf)
        if isinstance(node, cst.Name):
            return self._target(node, sf)
        return UNK

    def _imported(self, binding: ImportAssignment, sf: SourceFile) -> Kind:
        node = binding.node
        if not self.repo.is_repo_binding(sf, binding):
            return EXT
        if isinstance(node, cst.Import):
            for alias in node.names:
                dotted = syntax.full_name(alias.name) or ""
                bound = alias.evaluated_alias or dotted.split(".")[0]
                if bound == binding.name:
                    target = self.repo.modules.get(dotted if alias.asname else dotted.split(".")[0])
                    return Kind(REPO, module=target) if target else Kind(REPO)
            return UNK
        module, _ = self.repo.resolve_from(sf, node)
        for alias in node.names if not isinstance(node.names, cst.ImportStar) else ():
            if (alias.evaluated_alias or alias.evaluated_name) == binding.name:
                return self.module_member_of(module, alias.evaluated_name)
        return UNK

    def module_member_of(self, module: str, name: str) -> Kind:
        submodule = self.repo.modules.get(f"{module}.{name}")
        if submodule is not None:
            return Kind(REPO, module=submodule)
        target = self.repo.modules.get(module)
        return self.module_member(target, name) if target is not None else UNK

    def module_member(self, target: SourceFile, name: str) -> Kind:
        submodule = self.repo.modules.get(f"{target.module}.{name}")
        if submodule is not None and target.is_package:
            return Kind(REPO, module=submodule)
        found = self.module_bindings(target, name)
        return combine(self.binding(b, f) for b, f in found) if found else UNK

    def module_bindings(
        self, target: SourceFile, name: str, seen: frozenset[SourceFile] = frozenset()
    ) -> list[tuple[BaseAssignment, SourceFile]]:
        """The module-level bindings of *name* in a repository module, through ``from .m import *``."""
        scope = target.scopes.get(target.tree)
        if isinstance(scope, GlobalScope) and name in scope.assignments:
            return [(b, target) for b in scope.assignments[name]]
        found: list[tuple[BaseAssignment, SourceFile]] = []
        for module in self.index.repo_stars.get(target, ()):
            source = self.repo.modules.get(module)
            if source is not None and source not in seen and source is not target:
                found.extend(self.module_bindings(source, name, seen | {target}))
        return found

    def _param(self, param: cst.Param, sf: SourceFile) -> Kind:
        function = sf.parent(sf.parent(param))
        fi = self.index.function_of.get(function) if isinstance(function, cst.FunctionDef) else None
        if fi is not None and fi.owner is not None:
            positional = [*fi.node.params.posonly_params, *fi.node.params.params]
            static = any(syntax.full_name(d.decorator) == "staticmethod" for d in fi.node.decorators)
            if positional and positional[0] is param and not static:
                is_class = fi.node.name.value in _IMPLICIT_CLASSMETHODS or any(
                    syntax.full_name(d.decorator) == "classmethod" for d in fi.node.decorators
                )
                return Kind(REPO, cls=fi.owner, is_class=is_class)  # self, or cls
        if param.annotation is not None:
            return self.annotation(param.annotation.annotation, sf) or UNK
        return UNK

    def _target(self, name: cst.Name, sf: SourceFile) -> Kind:
        parent = sf.parent(name)
        if isinstance(parent, cst.AssignTarget) and parent.target is name:
            return self.expr(sf.parent(parent).value, sf)
        if isinstance(parent, cst.AnnAssign) and parent.target is name:
            if parent.value is not None:
                return self.expr(parent.value, sf)
            return self.annotation(parent.annotation.annotation, sf) or UNK
        if isinstance(parent, cst.NamedExpr) and parent.target is name:
            return self.expr(parent.value, sf)
        if isinstance(parent, cst.AsName):
            holder = sf.parent(parent)
            if isinstance(holder, cst.WithItem):
                return EXT if self.expr(holder.item, sf).tag == EXTERNAL else UNK
            if isinstance(holder, cst.ExceptHandler) and holder.type is not None:
                return self.annotation(holder.type, sf) or UNK
        return UNK

    # -- types ------------------------------------------------------------------------------------
    def annotation(self, node: cst.BaseExpression, sf: SourceFile) -> Kind | None:
        """The kind of an instance of the annotated type; None for ``None``."""
        if isinstance(node, cst.Name) and node.value == "None":
            return None
        if isinstance(node, (cst.Name, cst.Attribute)):
            kind = self.expr(node, sf)
            if kind.cls is not None:
                return Kind(REPO, cls=kind.cls)
            if kind.tag == EXTERNAL and not (sf.qualified(node) & UNINFORMATIVE_TYPES):
                return EXT
            return UNK
        if isinstance(node, cst.SimpleString):
            text = syntax.string_text(node) or ""
            classes = self.index.classes_by_name.get(text, [])
            return Kind(REPO, cls=classes[0]) if len(classes) == 1 else UNK
        if isinstance(node, cst.Subscript):
            if syntax.callee_tail(node.value) in _TYPE_WRAPPERS:
                elements = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
                if syntax.callee_tail(node.value) == "Annotated":
                    elements = elements[:1]
                kinds = [k for k in (self.annotation(e, sf) for e in elements) if k is not None]
                return combine(kinds) if kinds else None
            return self.annotation(node.value, sf)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            kinds = [k for k in (self.annotation(node.left, sf), self.annotation(node.right, sf)) if k is not None]
            return combine(kinds) if kinds else None
        return UNK

    def attribute(self, name: str) -> Kind:
        """The kind of the values the repository stores under an attribute name (by name, repo-wide)."""
        if name in self._attr_memo:
            return self._attr_memo[name]
        key = ("attribute", name)
        if key in self._active:
            return UNK
        self._active.add(key)
        try:
            kinds: list[Kind] = []
            for sf, value, annotation in self.index.attr_values.get(name, ()):
                if annotation is not None:
                    kind = self.annotation(annotation, sf)
                    kinds.extend([kind] if kind is not None else [])
                else:
                    kinds.append(self.expr(value, sf) if value is not None else UNK)
            for fi in self.index.functions_by_name.get(name, ()):
                if fi.owner is not None:
                    kinds.append(EXT if not fi.node.decorators else self._returns((fi,)))
            result = combine(kinds) if kinds else UNK
        finally:
            self._active.discard(key)
        self._attr_memo[name] = result
        return result

    def _returns(self, functions: Iterable[FunctionInfo]) -> Kind:
        kinds = []
        for fi in functions:
            returns = fi.node.returns
            kind = self.annotation(returns.annotation, fi.sf) if returns is not None else UNK
            kinds.append(kind if kind is not None else EXT)
        return combine(kinds) if kinds else UNK

    def hierarchy(self, ci: ClassInfo) -> Hierarchy:
        if ci in self._hierarchies:
            return self._hierarchies[ci]
        result = Hierarchy([ci], [], [], set(), ci.field_based)
        self._hierarchies[ci] = result  # a cycle (a base that cannot be itself) stops here
        for arg in ci.node.bases:
            expr = arg.value.value if isinstance(arg.value, cst.Subscript) else arg.value
            kind = self.expr(expr, ci.sf) if not arg.star else UNK
            qualified = ci.sf.qualified(expr)
            if kind.cls is not None and kind.is_class:
                base = self.hierarchy(kind.cls)
                result.classes.extend(c for c in base.classes if c not in result.classes)
                result.external.extend(base.external)
                result.opaque.extend(base.opaque)
                result.external_attrs |= base.external_attrs
                result.field_based = result.field_based or base.field_based
            elif qualified & HARMLESS_BASES:
                continue
            elif qualified & FIELD_CLASS_BASES:
                result.field_based = True
                result.external.append(min(qualified))
                result.external_attrs |= _NAMEDTUPLE_ATTRIBUTES
            elif kind.tag == EXTERNAL and (attrs := _inspect(qualified)) is not None:
                result.external.append(min(qualified))
                result.external_attrs |= {a for a in attrs if not is_dunder(a)}
            else:
                result.opaque.append(min(qualified) if qualified else ci.sf.tree.code_for_node(expr))
        return result

    def call_result(self, call: cst.Call, sf: SourceFile) -> Kind:
        if isinstance(call.func, cst.Name) and call.func.value == "super":
            fi = self._enclosing_method(call, sf)
            return Kind(REPO, cls=fi.owner) if fi is not None else UNK
        callee = self.callee(call.func, sf)
        if callee.cls is not None:
            return Kind(REPO, cls=callee.cls)
        if callee.tag == EXTERNAL:
            return EXT
        if callee.tag == REPO and callee.functions:
            return self._returns(callee.functions)
        return UNK

    def _enclosing_method(self, node: cst.CSTNode, sf: SourceFile) -> FunctionInfo | None:
        while node is not None and not isinstance(node, cst.FunctionDef):
            node = sf.parent(node)
        fi = self.index.function_of.get(node) if node is not None else None
        return fi if fi is not None and fi.owner is not None else None


def _inspect(qualified: set[str]) -> frozenset[str] | None:
    for name in sorted(qualified):
        attrs = external_class_attributes(name)
        if attrs is not None:
            return attrs
    return None
