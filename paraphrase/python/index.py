"""One pass over every file of a repository recording the facts paraphrasing needs.

The index records where each attribute name is read or written (with the
receiver expression, typed later by :mod:`benchsmith.paraphrase.python.inference`), every keyword
argument with its call, the classes and functions the repository defines, the
names its files bind or import from elsewhere, and the identifiers spelled in
string literals that are not code.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ExpressionContext, GlobalScope

from benchsmith.paraphrase.python import syntax
from benchsmith.paraphrase.python.protocols import (
    CONVENTIONAL_NAMES,
    DYNAMIC_LOOKUP_CALLS,
    FIELD_CLASS_DECORATORS,
    FIELD_LIST_CALLS,
    is_transparent_decorator,
)
from benchsmith.paraphrase.python.records import AttrUse, ClassInfo, FunctionInfo, KeywordUse, RepoIndex
from benchsmith.paraphrase.python.source import ParsedRepository, SourceFile

__all__ = ["AttrUse", "ClassInfo", "FunctionInfo", "KeywordUse", "RepoIndex", "build_index", "origin"]


def origin(sf: SourceFile, repo: ParsedRepository, expr: cst.BaseExpression) -> str:
    """'repo', 'external' or 'unknown': where the leftmost name of a (dotted) expression comes from."""
    while isinstance(expr, (cst.Attribute, cst.Call, cst.Subscript)):
        expr = expr.value if not isinstance(expr, cst.Call) else expr.func
    if not isinstance(expr, cst.Name):
        return "unknown"
    bindings = sf.bindings(expr)
    if not bindings:
        return "unknown"
    verdicts = {repo.is_repo_binding(sf, b) for b in bindings}
    return "unknown" if len(verdicts) > 1 else ("repo" if verdicts.pop() else "external")


class _Indexer(cst.CSTVisitor):
    def __init__(self, index: RepoIndex, sf: SourceFile) -> None:
        self.index, self.sf, self.repo = index, sf, index.repo
        self.function_stack: list[FunctionInfo] = []
        self.in_import = 0
        self.annotation_depth = 0
        self.literal_depth = 0
        self.star_external = False  # ``from <external> import *``: unbound names may come from it

    # -- definitions ------------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        ci = ClassInfo(node.name.value, self.sf, node)
        for decorator in node.decorators:
            qualified = self.sf.qualified(_decorator_callee(decorator))
            if qualified & FIELD_CLASS_DECORATORS:
                ci.field_based = True
            elif origin(self.sf, self.repo, decorator.decorator) == "external" and not any(
                is_transparent_decorator(q) for q in qualified
            ):
                ci.external_decorator = ", ".join(sorted(qualified)) or "?"
        body = node.body.body
        scope = self.sf.scopes.get(body[0]) if body else None
        if scope is not None and scope is not self.sf.scopes.get(node):
            ci.body_names.update(a.name for a in scope.assignments)
        for statement in body:
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        if isinstance(target.target, cst.Name):
                            self.index.attr_values[target.target.value].append((self.sf, small.value, None))
                elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    self.index.attr_values[small.target.value].append(
                        (self.sf, small.value, small.annotation.annotation)
                    )
        for name in ci.body_names:
            self.index.attr_defs.setdefault(name, self.sf.where(node))
        for arg in node.keywords:
            if arg.keyword is not None:
                self.index.keyword_uses[arg.keyword.value].append(KeywordUse(arg, None, self.sf))
        self.index.classes.append(ci)
        self.index.classes_by_name[ci.name].append(ci)
        self.index.class_of[node] = ci

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        block = self.sf.parent(node)
        owner = self.index.class_of.get(self.sf.parent(block)) if block is not None else None
        fi = FunctionInfo(node, self.sf, owner)
        self.index.functions_by_name[node.name.value].append(fi)
        self.index.function_of[node] = fi
        if owner is not None:
            owner.methods[node.name.value].append(fi)
        params = syntax.function_params(node)
        where = self.sf.where(node)
        is_fixture = False
        argnames: set[str] = set()
        decorators = [*node.decorators, *(owner.node.decorators if owner else ())]
        for decorator in decorators:
            values = syntax.parametrize_argnames(decorator)
            for literal in syntax.strings_within(values) if values is not None else ():
                argnames.update(syntax.identifiers_in_string(syntax.string_text(literal) or "", lists=True))
        for decorator in node.decorators:
            qualified = self.sf.qualified(_decorator_callee(decorator))
            if any(q == "pytest.fixture" or q.endswith(".fixture") for q in qualified):
                is_fixture = True
                self.index.fixtures.add(_fixture_name(decorator) or node.name.value)
            elif origin(self.sf, self.repo, decorator.decorator) == "external" and not any(
                is_transparent_decorator(q) for q in qualified
            ):
                reason = f"wrapped by external decorator {', '.join(sorted(qualified)) or '?'} at {where}"
                for name in (node.name.value, *(p.name.value for p in params)):
                    self.index.wrapped.setdefault(name, reason)
        if node.name.value.startswith("pytest_"):
            for p in params:
                self.index.wrapped.setdefault(p.name.value, f"parameter of pytest hook {node.name.value} at {where}")
        is_test = node.name.value.startswith("test") and (owner is None or owner.name.startswith("Test"))
        if is_fixture or is_test:
            self.index._fixture_users.append((fi, argnames))
        self.function_stack.append(fi)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.function_stack.pop()

    # -- imports ----------------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        self.in_import += 1
        for alias in node.names:
            dotted = syntax.full_name(alias.name) or ""
            if not self.repo.is_repo_module(dotted):
                self.index.external_modules.add(dotted)
                bound = alias.evaluated_alias or dotted.split(".")[0]
                self.index.external_imports.setdefault(bound, f"import {dotted} at {self.sf.where(node)}")

    def leave_Import(self, original_node: cst.Import) -> None:
        self.in_import -= 1

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.in_import += 1
        module, is_repo = self.repo.resolve_from(self.sf, node)
        if isinstance(node.names, cst.ImportStar):
            self.star_external = self.star_external or not is_repo
            if is_repo:
                self.index.repo_stars[self.sf].append(module)
            return
        if is_repo:
            return
        self.index.external_modules.add(module)
        for alias in node.names:
            self.index.external_modules.add(f"{module}.{alias.evaluated_name}")  # maybe a submodule
            bound = alias.evaluated_alias or alias.evaluated_name
            self.index.external_imports.setdefault(bound, f"from {module} import at {self.sf.where(node)}")

    def leave_ImportFrom(self, original_node: cst.ImportFrom) -> None:
        self.in_import -= 1

    # -- uses -------------------------------------------------------------------------------------
    def visit_Name(self, node: cst.Name) -> None:
        self.index.identifiers.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self.in_import:
            return
        name = node.attr.value
        self.index.attr_uses[name].append(AttrUse(node, node.value, self.sf))
        if name in ("__name__", "__qualname__") and self.index.reads_names is None:
            self.index.reads_names = self.sf.where(node)
        context = self.sf.contexts.get(node)
        if context not in (ExpressionContext.STORE, ExpressionContext.DEL):
            return
        self.index.attr_defs.setdefault(name, self.sf.where(node))
        parent = self.sf.parent(node)
        if isinstance(parent, cst.AssignTarget):
            self.index.attr_values[name].append((self.sf, self.sf.parent(parent).value, None))
        elif isinstance(parent, cst.AnnAssign) and parent.target is node:
            self.index.attr_values[name].append((self.sf, parent.value, parent.annotation.annotation))
        else:
            self.index.attr_values[name].append((self.sf, None, None))
        fi = self.function_stack[-1] if self.function_stack else None
        if fi is not None and fi.owner is not None and isinstance(node.value, cst.Name):
            params = syntax.function_params(fi.node)
            if params and params[0].name.value == node.value.value:
                fi.owner.self_attrs.add(name)

    def visit_MatchClass(self, node: cst.MatchClass) -> None:
        for element in node.kwds:
            self.index.attr_uses[element.key.value].append(AttrUse(element, node.cls, self.sf, instance_of=True))

    def visit_Call(self, node: cst.Call) -> None:
        for arg in node.args:
            if arg.keyword is not None:
                self.index.keyword_uses[arg.keyword.value].append(KeywordUse(arg, node, self.sf))
        tail = syntax.callee_tail(node.func)
        if tail in DYNAMIC_LOOKUP_CALLS:
            for arg in node.args:
                if not isinstance(arg.value, cst.SimpleString):
                    where = self.sf.where(node)
                    self.index.fragments.extend((text, where) for text in syntax.string_fragments(arg.value))
        elif tail in FIELD_LIST_CALLS:
            for arg in node.args:
                for literal in syntax.strings_within(arg.value):
                    for name in syntax.identifiers_in_string(syntax.string_text(literal) or "", lists=True):
                        self.index.string_names.setdefault(name, f"field list at {self.sf.where(literal)}")
        self._mark_name_lists(node)

    def _mark_name_lists(self, node: cst.CSTNode) -> None:
        for value in syntax.name_list_values(node):
            self.index.rewritable_strings.update(syntax.strings_within(value))

    def visit_Assign(self, node: cst.Assign) -> None:
        self._mark_name_lists(node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._mark_name_lists(node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._mark_name_lists(node)

    def visit_Decorator(self, node: cst.Decorator) -> None:
        values = syntax.parametrize_argnames(node)
        if values is not None:
            self.index.rewritable_strings.update(syntax.strings_within(values))

    def visit_Annotation(self, node: cst.Annotation) -> None:
        self.annotation_depth += 1

    def leave_Annotation(self, original_node: cst.Annotation) -> None:
        self.annotation_depth -= 1

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if syntax.is_literal_subscript(node):
            self.literal_depth += 1

    def leave_Subscript(self, original_node: cst.Subscript) -> None:
        if syntax.is_literal_subscript(original_node):
            self.literal_depth -= 1

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if node in self.index.rewritable_strings or (self.annotation_depth and not self.literal_depth):
            return
        if syntax.is_docstring_like(node, self.sf.parents):
            return
        text = syntax.string_text(node) or ""
        for name in syntax.identifiers_in_string(text):
            self.index.string_names.setdefault(name, f"string literal at {self.sf.where(node)}")
        self._record_words(text, node)

    def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
        self._record_words(node.value, node)

    def _record_words(self, text: str, node: cst.CSTNode) -> None:
        for word in syntax.IDENTIFIER.findall(text):
            if word not in self.index.string_words:
                self.index.string_words[word] = self.sf.where(node)


def _decorator_callee(decorator: cst.Decorator) -> cst.BaseExpression:
    expr = decorator.decorator
    return expr.func if isinstance(expr, cst.Call) else expr


def _fixture_name(decorator: cst.Decorator) -> str | None:
    if isinstance(decorator.decorator, cst.Call):
        for arg in decorator.decorator.args:
            if arg.keyword is not None and arg.keyword.value == "name" and isinstance(arg.value, cst.SimpleString):
                return syntax.string_text(arg.value)
    return None


def _record_scopes(index: RepoIndex, sf: SourceFile, star_external: bool) -> None:
    for scope in {s for s in sf.scopes.values() if s is not None}:
        for binding in scope.assignments:
            if index.repo.is_repo_binding(sf, binding):
                index.var_defs.add(binding.name)
                if isinstance(scope, GlobalScope):  # module-level names are attributes of the module
                    index.attr_defs.setdefault(binding.name, sf.rel)
        if star_external:
            for access in scope.accesses:
                if not access.referents and isinstance(access.node, cst.Name):
                    index.unresolved.setdefault(access.node.value, sf.where(access.node))


def build_index(repo: ParsedRepository) -> RepoIndex:
    index = RepoIndex(repo)
    for sf in repo.files:
        indexer = _Indexer(index, sf)
        sf.tree.visit(indexer)
        _record_scopes(index, sf, indexer.star_external)
    for fi, argnames in index._fixture_users:
        for param in syntax.function_params(fi.node):
            name = param.name.value
            if (
                param.default is None
                and name not in CONVENTIONAL_NAMES
                and name not in argnames
                and name not in index.fixtures
            ):
                index.external_fixtures.setdefault(name, f"{fi.node.name.value} at {fi.sf.where(param)}")
    return index
