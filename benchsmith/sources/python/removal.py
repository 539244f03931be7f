"""Removing a class from its module, with the imports that only it used (RepoClassBench paper, E.2).

The class is replaced by a sentinel line, so that the harness can put a
candidate exactly where the class was.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from benchsmith.core.errors import BenchsmithError

SENTINEL = "__benchsmith_removed_class__ = None  # the task's class was here"


@dataclass(frozen=True)
class Removal:
    text: str  # the module without the class, the sentinel in its place
    imports: list[str]  # the import statements (or names) removed with it


def _bound_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return alias.asname.name.value
    name = alias.name
    while isinstance(name, cst.Attribute):  # `import a.b` binds `a`
        name = name.value
    return name.value


def _used_names(node: cst.CSTNode) -> set[str]:
    names: set[str] = set()

    class Collector(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            names.add(name.value)

        def visit_Import(self, _: cst.Import) -> bool:
            return False

        def visit_ImportFrom(self, _: cst.ImportFrom) -> bool:
            return False

    node.visit(Collector())
    return names


def remove_class(text: str, class_name: str, name: str = "<module>") -> Removal:
    """*text* without its module-level class *class_name* and the imports only that class used."""
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise BenchsmithError(f"{name}: does not parse: {exc.message}") from exc
    targets = [s for s in module.body if isinstance(s, cst.ClassDef) and s.name.value == class_name]
    if len(targets) != 1:
        raise BenchsmithError(f"{name}: expected one module-level class {class_name}, found {len(targets)}")
    target = targets[0]
    in_class = _used_names(target)
    elsewhere: set[str] = set()
    for statement in module.body:
        if statement is not target:
            elsewhere |= _used_names(statement)
    if "__all__" in elsewhere:  # names exported by string stay imported
        elsewhere |= {s.value.strip("'\"") for s in _strings(module)}
    removed: list[str] = []
    body = []
    for statement in module.body:
        if statement is target:
            body.append(cst.parse_statement(SENTINEL + "\n").with_changes(leading_lines=target.leading_lines))
            continue
        body.append(_prune_imports(statement, in_class - elsewhere, removed, module))
    return Removal(module.with_changes(body=[s for s in body if s is not None]).code, removed)


def _strings(module: cst.Module) -> list[cst.SimpleString]:
    found: list[cst.SimpleString] = []

    class Collector(cst.CSTVisitor):
        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            found.append(node)

    module.visit(Collector())
    return found


def _prune_imports(statement: cst.CSTNode, only_in_class: set[str], removed: list[str], module: cst.Module):
    if not isinstance(statement, cst.SimpleStatementLine):
        return statement
    kept_small = []
    for small in statement.body:
        if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
            keep = [a for a in small.names if _bound_name(a) not in only_in_class]
            if len(keep) != len(small.names):
                gone = [a for a in small.names if _bound_name(a) in only_in_class]
                removed.append(
                    module.code_for_node(
                        small.with_changes(names=[a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in gone])
                    )
                )
                if not keep:
                    continue
                small = small.with_changes(names=[*keep[:-1], keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)])
        kept_small.append(small)
    if not kept_small:
        return None
    return statement.with_changes(body=kept_small)


def insert_class(removed_text: str, code: str) -> str:
    """Put *code* where the sentinel stands."""
    if SENTINEL not in removed_text:
        raise BenchsmithError("the module has no removed-class sentinel")
    return removed_text.replace(SENTINEL, code.strip("\n"), 1)
