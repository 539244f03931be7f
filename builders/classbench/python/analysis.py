"""Static facts about a repository's module-level classes, with libcst.

For every class: its methods, members, signatures, decorators and docstrings
(the metadata of the RepoClassBench paper's Table 14), the external references each method
makes, and its size in cl100k tokens without docstrings.

A reference is external (RepoClassBench paper, E.1.2, types 3 and 4) when a name used in a
method resolves to something defined in the same file outside the class, or
imported from the repository's own package; references to the class itself,
to locals, to builtins and to other packages are not.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, QualifiedNameProvider, QualifiedNameSource

from benchsmith.builders.classbench.tokens import count_tokens
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.metadata import ClassMetadata, MethodMetadata

log = logging.getLogger(__name__)
MAX_TOKENS = 3000
_SKIPPED_PARTS = {"tests", "test", "docs", "doc", "examples", "build", "benchmarks", ".tox", ".venv"}
# A top-level ``testing`` folder holds a suite (pytest's own); a package's ``testing`` module is code it ships to its
# users (``litestar.testing``'s TestClient, ``numpy.testing``), which the RepoClassBench paper published tasks from.
_SUITE_FOLDERS = {"testing"}


@dataclass
class MethodInfo:
    name: str
    signature: str
    decorators: list[str]
    docstring: str
    body: str  # the whole definition, as Diff 1 shows it
    external_references: list[str]


@dataclass
class AnalysedClass:
    file_path: str  # relative to the tree
    module: str  # dotted module name
    name: str
    start_line: int
    end_line: int
    source: str
    signature: str
    decorators: list[str]
    bases: list[str]
    members: list[str]  # class attributes and self attributes with their initialisations
    methods: list[MethodInfo] = field(default_factory=list)
    tokens: int = 0
    # References made in the class's body outside its methods: field annotations and defaults, nested classes
    member_references: list[str] = field(default_factory=list)

    @property
    def qualified_name(self) -> str:
        return f"{self.module}.{self.name}"

    @property
    def external_references(self) -> list[str]:
        return sorted({ref for m in self.methods for ref in m.external_references} | set(self.member_references))


def source_files(tree: Path, import_root: str) -> list[Path]:
    """The repository's Python modules outside tests, docs and build folders."""
    root = tree / import_root if import_root else tree
    files = []
    for path in sorted(root.rglob("*.py")):
        folders = path.relative_to(root).parts[:-1]
        if set(folders) & _SKIPPED_PARTS or folders[:1] and folders[0] in _SUITE_FOLDERS:
            continue
        if path.name.startswith("test_") or path.name in ("setup.py", "conftest.py"):
            continue
        files.append(path)
    return files


def module_under_import_root(path: Path, tree: Path, import_root: str) -> str:
    """The dotted path of *path* below the import root (``src/a/b.py`` -> ``a.b``), ``__init__`` dropped.

    Every folder counts, with or without ``__init__.py``: the tests import the package from that root.
    """
    relative = path.relative_to(tree / import_root if import_root else tree).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def analyse_file(path: Path, tree: Path, import_root: str, packages: set[str]) -> list[AnalysedClass]:
    """The module-level classes of one file."""
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    try:
        wrapper = MetadataWrapper(cst.parse_module(text))
    except cst.ParserSyntaxError as exc:
        raise BenchsmithError(f"{path}: does not parse: {exc.message} at line {exc.raw_line}") from exc
    positions = wrapper.resolve(PositionProvider)
    qualified = wrapper.resolve(QualifiedNameProvider)
    module = wrapper.module
    name = module_under_import_root(path, tree, import_root)
    classes = []
    for statement in module.body:
        if isinstance(statement, cst.ClassDef):
            classes.append(
                _class_info(statement, module, positions, qualified, path.relative_to(tree).as_posix(), name, packages)
            )
    return classes


def _code(module: cst.Module, node: cst.CSTNode) -> str:
    return module.code_for_node(node)


def _class_info(
    node: cst.ClassDef, module, positions, qualified, rel: str, module_dotted: str, packages: set[str]
) -> AnalysedClass:
    position = positions[node]
    bases = [_code(module, arg.value) for arg in node.bases]
    signature = (
        f"class {node.name.value}"
        + (f"({', '.join(_code(module, a) for a in node.bases)})" if node.bases else "")
        + ":"
    )
    info = AnalysedClass(
        file_path=rel,
        module=module_dotted,
        name=node.name.value,
        start_line=positions[node.decorators[0]].start.line if node.decorators else position.start.line,
        end_line=position.end.line,
        source=_code(module, node),
        signature=signature,
        decorators=[f"@{_code(module, d.decorator)}" for d in node.decorators],
        bases=bases,
        members=[],
    )
    member_references = set()
    for statement in node.body.body:
        if isinstance(statement, cst.FunctionDef):
            info.methods.append(_method_info(statement, module, qualified, node.name.value, packages))
            if statement.name.value == "__init__":
                info.members += _self_assignments(statement, module)
            continue
        if _is_assignment(statement):
            info.members.append(_code(module, statement).strip())
        member_references |= _external_references([statement], qualified, node.name.value, packages)
    info.member_references = sorted(member_references)
    info.tokens = count_tokens(_code(module, node.visit(_DocstringRemover())))
    return info


def _method_info(node: cst.FunctionDef, module, qualified, class_name: str, packages: set[str]) -> MethodInfo:
    header = node.with_changes(
        body=cst.IndentedBlock(body=[cst.SimpleStatementLine([cst.Expr(cst.Ellipsis())])]), decorators=[]
    )
    signature = _code(module, header).strip().rsplit("\n", 1)[0].strip()
    # The whole definition is in the class's body (the RepoClassBench paper, E.1.2, counts the references in it): the
    # annotations and defaults of its parameters, its return annotation and its decorators as well as its statements.
    references = _external_references(
        [*node.decorators, node.params, *([node.returns] if node.returns else []), node.body],
        qualified,
        class_name,
        packages,
    )
    return MethodInfo(
        name=node.name.value,
        signature=signature,
        decorators=[f"@{_code(module, d.decorator)}" for d in node.decorators],
        docstring=node.get_docstring() or "",
        body=_code(module, node.with_changes(decorators=[])).strip(),
        external_references=sorted(references),
    )


def _external_references(nodes: list[cst.CSTNode], qualified, class_name: str, packages: set[str]) -> set[str]:
    references = set()
    for name_node in _names(nodes):
        names = qualified.get(name_node, ())
        for qname in names() if callable(names) else names:  # libcst loads qualified names lazily
            if _is_external(qname, class_name, packages):
                references.add(qname.name)
    return references


def _is_external(qname, class_name: str, packages: set[str]) -> bool:
    if qname.source == QualifiedNameSource.IMPORT:
        return qname.name.startswith(".") or qname.name.split(".")[0] in packages
    if qname.source == QualifiedNameSource.LOCAL:
        name = qname.name
        return "<locals>" not in name and name != class_name and not name.startswith(f"{class_name}.")
    return False


def _names(nodes: list[cst.CSTNode]) -> list[cst.Name]:
    found: list[cst.Name] = []

    class Collector(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.append(name)

        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            attribute.value.visit(self)  # the object, not the attribute's own name
            return False

    for node in nodes:
        node.visit(Collector())
    return found


def _self_assignments(init: cst.FunctionDef, module) -> list[str]:
    members = []

    class Collector(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                if (
                    isinstance(target.target, cst.Attribute)
                    and isinstance(target.target.value, cst.Name)
                    and target.target.value.value == "self"
                ):
                    members.append(f"{_code(module, target.target)} = {_code(module, node.value)}")

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            target = node.target
            if (
                isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value == "self"
            ):
                value = f" = {_code(module, node.value)}" if node.value else ""
                members.append(f"{_code(module, target)}: {_code(module, node.annotation.annotation)}{value}")

    init.body.visit(Collector())
    return members


class _DocstringRemover(cst.CSTTransformer):
    """Drops the docstrings of the class and of every function in it (the RepoClassBench paper counts tokens without
    them), and PEP 257's attribute docstrings: a string right after an assignment in the class's body or in
    ``__init__`` (``scope: Scope`` followed by a string saying what it is), which document as docstrings do.

    Comments go too. The paper names only docstrings, but its count is not of them: litestar's HTTPRouteHandler,
    which it published under its limit of 3,000, has 3,046 tokens once its docstrings are gone, 2,916 without its
    comments as well (2,691 as ``ast.unparse`` writes it, which a count made on Python's ast would see)."""

    def leave_EmptyLine(self, original, updated):
        return cst.RemoveFromParent() if updated.comment is not None else updated

    def leave_TrailingWhitespace(self, original, updated):
        return updated.with_changes(whitespace=cst.SimpleWhitespace(""), comment=None)

    def _strip(self, body: cst.BaseSuite, attributes: bool) -> cst.BaseSuite:
        if not isinstance(body, cst.IndentedBlock) or not body.body:
            return body
        kept = []
        for index, statement in enumerate(body.body):
            after_assignment = index > 0 and _is_assignment(body.body[index - 1])
            if _is_string(statement) and (index == 0 or attributes and after_assignment):
                continue
            kept.append(statement)
        return body.with_changes(body=kept or [cst.SimpleStatementLine([cst.Pass()])])

    def leave_ClassDef(self, original, updated):
        return updated.with_changes(body=self._strip(updated.body, attributes=True))

    def leave_FunctionDef(self, original, updated):
        return updated.with_changes(body=self._strip(updated.body, attributes=updated.name.value == "__init__"))


def _is_string(statement: cst.CSTNode) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _is_assignment(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(s, (cst.Assign, cst.AnnAssign)) for s in statement.body
    )


def python_metadata(info: AnalysedClass) -> ClassMetadata:
    """A Python class's DETAILED and SKETCHY metadata, as one record (:meth:`ClassMetadata.render` writes either)."""
    methods = [MethodMetadata(m.name, m.signature, m.decorators, m.docstring, m.body) for m in info.methods]
    return ClassMetadata(
        info.signature, info.qualified_name, info.file_path, info.decorators, info.bases, info.members, methods
    )
