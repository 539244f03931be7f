"""A Java class's DETAILED and SKETCHY metadata (:class:`benchsmith.core.metadata.ClassMetadata`): its annotations are
its "Decorators", its Javadoc its "docstring", its ``extends`` and ``implements`` its parents and each method's
declaration its "Function body", so the describers read a Java record as they read a Python one."""

from __future__ import annotations

from benchsmith.core.metadata import ClassMetadata, MethodMetadata
from benchsmith.sources.java.declarations import JavaClass, analyse_java_class


def java_class_metadata(info: JavaClass, file_path: str) -> ClassMetadata:
    """*info*'s metadata; *file_path* is the path shown (the task's file)."""
    methods = [MethodMetadata(m.name, m.signature, m.annotations, m.javadoc, m.declaration) for m in info.methods]
    return ClassMetadata(
        info.signature, info.qualified_name, file_path, info.annotations, info.parents, info.members, methods
    )


def java_metadata(source: str, class_name: str, file_path: str = "") -> tuple[str, str]:
    """(DETAILED, SKETCHY) metadata of the class (or interface, enum) *class_name* declared in *source*.

    *file_path* is the path shown (the task's file); a top-level declaration is
    preferred to a nested one of the same name.
    """
    metadata = java_class_metadata(analyse_java_class(source, class_name, file_path or "<source>"), file_path)
    return metadata.render(detailed=True), metadata.render(detailed=False)
