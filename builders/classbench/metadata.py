"""DETAILED and SKETCHY metadata of a class (RepoClassBench paper, Table 14), rendered in the shape of its Diff 1.

Both carry the class's name, file path, signature, decorators, parent
classes, member variables with their initialisations, and every method's
signature, decorators and docstring; DETAILED adds the method bodies.
Import statements are in neither.
"""

from __future__ import annotations

from builders.classbench.analysis import AnalysedClass


def render(info: AnalysedClass, detailed: bool) -> str:
    lines = [
        f"Class signature: {info.signature}",
        f"Class full name: {info.qualified_name}",
        f"File path: {info.file_path}",
        f"Decorators: {' '.join(info.decorators)}",
        f"Parent classes: {', '.join(info.bases)}",
        "Member variables:",
        *(f"    {member}" for member in info.members),
        "Functions accessible:",
    ]
    for number, method in enumerate(info.methods):
        lines += [
            f"<Function details for function no. {number}>",
            f"Function signature: {method.signature}",
            f"Function fqdn: {info.qualified_name}.{method.name}",
            f"Decorators: {' '.join(method.decorators)}",
            f"Function docstring: {method.docstring}",
        ]
        if detailed:
            lines.append(f"Function body: {method.body}")
        lines.append("</function details>")
    return "\n".join(lines) + "\n"
