"""The identifiers of the shortlisted classes that the repository itself defines.

The RepoClassBench paper (E.1.3) paraphrases "all identifiers that appear in at least one
class within our benchmark". Here that is, inside each class: the class and
method names, parameters, names bound or read whose binding is the
repository's own (libcst's ScopeProvider tells ``json`` imported from the
standard library from a local ``json``), attribute names the repository
defines somewhere (``self.x = ...``, a method, a class attribute, a module
member) and keyword arguments of calls to repository functions.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import libcst as cst

from benchsmith.core.errors import BenchsmithError
from benchsmith.paraphrase.python.index import build_index
from benchsmith.paraphrase.python.inference import Inference
from benchsmith.paraphrase.python.kinds import REPO
from benchsmith.paraphrase.python.records import ClassInfo, RepoIndex
from benchsmith.paraphrase.python.source import SourceFile, load_repository


def find_class(index: RepoIndex, rel: str, class_name: str) -> ClassInfo:
    """The class ``class_name`` (``Outer.Inner`` for a nested one) defined at top level of file *rel*."""
    wanted = Path(rel).as_posix().removeprefix("./")
    sf = next((f for f in index.repo.files if f.rel == wanted), None)
    if sf is None:
        raise BenchsmithError(f"{rel}: no such Python file in {index.repo.root}")
    body: Iterable[cst.CSTNode] = sf.tree.body
    found: cst.ClassDef | None = None
    for part in class_name.split("."):
        found = next((s for s in body if isinstance(s, cst.ClassDef) and s.name.value == part), None)
        if found is None:
            raise BenchsmithError(f"{rel}::{class_name}: no such class in the file")
        body = found.body.body
    return index.class_of[found]


class _Collector(cst.CSTVisitor):
    def __init__(self, index: RepoIndex, inference: Inference, sf: SourceFile) -> None:
        self.index, self.inference, self.sf = index, inference, sf
        self.names: set[str] = set()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.names.add(node.name.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.names.add(node.name.value)

    def visit_Param(self, node: cst.Param) -> None:
        self.names.add(node.name.value)

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in self.index.attr_defs:
            self.names.add(node.attr.value)

    def visit_MatchKeywordElement(self, node: cst.MatchKeywordElement) -> None:
        if node.key.value in self.index.attr_defs:
            self.names.add(node.key.value)

    def visit_Call(self, node: cst.Call) -> None:
        keywords = [a.keyword.value for a in node.args if a.keyword is not None]
        if keywords and self.inference.callee(node.func, self.sf).tag == REPO:
            self.names.update(keywords)

    def visit_Name(self, node: cst.Name) -> None:
        parent = self.sf.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return
        if isinstance(parent, cst.Arg) and parent.keyword is node:
            return
        if isinstance(parent, cst.MatchKeywordElement) and parent.key is node:
            return
        if any(self.index.repo.is_repo_binding(self.sf, b) for b in self.sf.bindings(node)):
            self.names.add(node.value)


def collect_identifiers(source: Path | RepoIndex, classes: Iterable[tuple[str, str]]) -> set[str]:
    """Identifiers of the given ``(file relative to the repository, class name)`` pairs."""
    index = source if isinstance(source, RepoIndex) else build_index(load_repository(Path(source)))
    inference = Inference(index)
    names: set[str] = set()
    for rel, class_name in classes:
        ci = find_class(index, rel, class_name)
        collector = _Collector(index, inference, ci.sf)
        ci.node.visit(collector)
        names |= collector.names
    return names
