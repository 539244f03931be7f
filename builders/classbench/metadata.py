"""DETAILED and SKETCHY metadata of a class (RepoClassBench paper, Table 14), rendered in the shape of its Diff 1.

Both carry the class's name, file path, signature, decorators, parent
classes, member variables with their initialisations, and every method's
signature, decorators and docstring; DETAILED adds the method bodies.
Import statements are in neither. One renderer serves both languages: a Java
class's annotations are its "Decorators", its Javadoc its "docstring", its
``extends`` and ``implements`` its parents and each method's declaration its
"Function body", so the ``describe`` backends read a Java record as they read a
Python one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from builders.classbench.analysis import AnalysedClass
from sources.java_declarations import JavaClass, analyse_java_class


@dataclass(frozen=True)
class MethodMetadata:
    name: str
    signature: str
    decorators: Sequence[str]
    docstring: str
    body: str  # DETAILED only


@dataclass(frozen=True)
class ClassMetadata:
    signature: str
    qualified_name: str
    file_path: str
    decorators: Sequence[str]
    parents: Sequence[str]
    members: Sequence[str]
    methods: Sequence[MethodMetadata]

    def render(self, detailed: bool) -> str:
        lines = [
            f"Class signature: {self.signature}",
            f"Class full name: {self.qualified_name}",
            f"File path: {self.file_path}",
            f"Decorators: {' '.join(self.decorators)}",
            f"Parent classes: {', '.join(self.parents)}",
            "Member variables:",
            *(f"    {member}" for member in self.members),
            "Functions accessible:",
        ]
        for number, method in enumerate(self.methods):
            lines += [
                f"<Function details for function no. {number}>",
                f"Function signature: {method.signature}",
                f"Function fqdn: {self.qualified_name}.{method.name}",
                f"Decorators: {' '.join(method.decorators)}",
                f"Function docstring: {method.docstring}",
            ]
            if detailed:
                lines.append(f"Function body: {method.body}")
            lines.append("</function details>")
        return "\n".join(lines) + "\n"


def render(info: AnalysedClass, detailed: bool) -> str:
    """A Python class's metadata."""
    methods = [MethodMetadata(m.name, m.signature, m.decorators, m.docstring, m.body) for m in info.methods]
    return ClassMetadata(info.signature, info.qualified_name, info.file_path, info.decorators, info.bases, info.members,
                         methods).render(detailed)  # fmt: skip


def render_java(info: JavaClass, file_path: str, detailed: bool) -> str:
    """A Java class's metadata; *file_path* is the path shown (the task's file)."""
    methods = [MethodMetadata(m.name, m.signature, m.annotations, m.javadoc, m.declaration) for m in info.methods]
    return ClassMetadata(info.signature, info.qualified_name, file_path, info.annotations, info.parents, info.members,
                         methods).render(detailed)  # fmt: skip


def java_metadata(source: str, class_name: str, file_path: str = "") -> tuple[str, str]:
    """(DETAILED, SKETCHY) metadata of the class (or interface, enum) *class_name* declared in *source*.

    *file_path* is the path shown (the task's file); a top-level declaration is
    preferred to a nested one of the same name.
    """
    info = analyse_java_class(source, class_name, file_path or "<source>")
    return render_java(info, file_path, detailed=True), render_java(info, file_path, detailed=False)
