"""What a call calls: the part of the inference that decides the fate of keyword arguments.

A keyword argument is renamed with its parameter when the callee is a
repository function or class (``Callee(REPO)``), kept when it is another
package's (``Callee(EXTERNAL)``), and its name excluded otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import BaseAssignment, BuiltinAssignment, ImportAssignment

from benchsmith.paraphrase.python.kinds import EXTERNAL, REPO, UNKNOWN, Callee, Hierarchy, Kind, merge_callees
from benchsmith.paraphrase.python.protocols import COMMON_ATTRIBUTES
from benchsmith.paraphrase.python.records import ClassInfo, RepoIndex
from benchsmith.paraphrase.python.source import ParsedRepository, SourceFile


class CallResolver:
    """Mixed into :class:`benchsmith.paraphrase.python.inference.Inference`, which supplies the kinds of expressions."""

    if TYPE_CHECKING:  # supplied by Inference
        index: RepoIndex
        repo: ParsedRepository
        strict: bool
        _active: set[object]
        _subclasses: dict[ClassInfo, list[ClassInfo]]

        def expr(self, node: cst.BaseExpression, sf: SourceFile) -> Kind: ...
        def binding(self, binding: BaseAssignment, sf: SourceFile) -> Kind: ...
        def hierarchy(self, ci: ClassInfo) -> Hierarchy: ...
        def receiver(
            self, receiver: cst.BaseExpression, sf: SourceFile, name: str, instance_of: bool = False
        ) -> Kind: ...
        def module_bindings(self, target: SourceFile, name: str) -> list[tuple[BaseAssignment, SourceFile]]: ...

    def subclasses(self, ci: ClassInfo) -> list[ClassInfo]:
        """*ci* and the repository classes deriving from it."""
        if ci not in self._subclasses:
            found = [c for c in self.index.classes if c is not ci and ci in self.hierarchy(c).classes]
            self._subclasses[ci] = [ci, *found]
        return self._subclasses[ci]

    # -- calls ------------------------------------------------------------------------------------
    def callee(self, func: cst.BaseExpression, sf: SourceFile) -> Callee:
        """What a call calls, for deciding the fate of its keyword arguments."""
        if isinstance(func, cst.Name):
            bindings = sf.bindings(func)
            if not bindings:
                return Callee(UNKNOWN)
            return merge_callees([self._callee_of(b, sf) for b in bindings], sf.qualified(func))
        if not isinstance(func, cst.Attribute):
            return Callee(UNKNOWN)
        name = func.attr.value
        base = self.expr(func.value, sf)
        if base.tag == EXTERNAL:
            return Callee(EXTERNAL, qualified=frozenset(sf.qualified(func)))
        if base.module is not None:
            found = self.module_bindings(base.module, name)
            return merge_callees([self._callee_of(b, f) for b, f in found], set()) if found else Callee(UNKNOWN)
        if base.cls is not None:
            hierarchy = self.hierarchy(base.cls)
            classes = [*hierarchy.classes, *self.subclasses(base.cls)[1:]]  # overrides count too
            methods = tuple(fi for c in classes for fi in c.methods.get(name, ()))
            if methods:
                return Callee(REPO, methods)
            return Callee(UNKNOWN) if hierarchy.pure else Callee(EXTERNAL)
        methods = tuple(fi for fi in self.index.functions_by_name.get(name, ()) if fi.owner is not None)
        if methods and not self.strict and not self._maybe_external(name):
            return Callee(REPO, methods)
        return Callee(UNKNOWN)

    def _maybe_external(self, name: str) -> bool:
        """Whether objects of other packages may have a method of this name too."""
        if name in COMMON_ATTRIBUTES:
            return True
        return any(
            self.receiver(u.receiver, u.sf, name, u.instance_of).tag == EXTERNAL
            for u in self.index.attr_uses.get(name, ())
        )

    def _callee_of(self, binding: BaseAssignment, sf: SourceFile) -> Callee:
        if isinstance(binding, BuiltinAssignment):
            return Callee(EXTERNAL)
        node = getattr(binding, "node", None)
        if isinstance(binding, ImportAssignment):
            if not self.repo.is_repo_binding(sf, binding):
                return Callee(EXTERNAL)
            if not isinstance(node, cst.ImportFrom) or isinstance(node.names, cst.ImportStar):
                return Callee(UNKNOWN)
            module, _ = self.repo.resolve_from(sf, node)
            target = self.repo.modules.get(module)
            original = next(
                (a.evaluated_name for a in node.names if (a.evaluated_alias or a.evaluated_name) == binding.name), None
            )
            found = self.module_bindings(target, original) if target is not None and original else []
            if not found or binding in self._active:
                return Callee(UNKNOWN)
            self._active.add(binding)
            try:
                return merge_callees([self._callee_of(b, f) for b, f in found], set())
            finally:
                self._active.discard(binding)
        if isinstance(node, cst.ClassDef):
            return self.class_callee(self.index.class_of[node])
        if isinstance(node, cst.FunctionDef):
            return Callee(REPO, (self.index.function_of[node],))
        kind = self.binding(binding, sf)
        if kind.cls is not None and kind.is_class:  # ``cls(...)``: the class or any subclass
            return merge_callees([self.class_callee(c) for c in self.subclasses(kind.cls)], set())
        return Callee(UNKNOWN)  # a variable or parameter holding some callable

    def class_callee(self, ci: ClassInfo) -> Callee:
        hierarchy = self.hierarchy(ci)
        if any(c.external_decorator for c in hierarchy.classes):
            return Callee(UNKNOWN, cls=ci)
        inits = tuple(fi for c in hierarchy.classes for n in ("__init__", "__new__") for fi in c.methods.get(n, ()))
        if inits:
            return Callee(REPO, inits, cls=ci)
        if hierarchy.field_based or hierarchy.pure:
            return Callee(REPO, None, cls=ci)
        return Callee(EXTERNAL, cls=ci)  # the constructor comes from an external base
