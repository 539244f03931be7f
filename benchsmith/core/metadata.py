"""DETAILED and SKETCHY metadata of a class (RepoClassBench paper, Table 14), the one owner of its text format.

A task's ``detailed_metadata`` and ``sketchy_metadata`` columns hold :meth:`ClassMetadata.render`'s text, in the
shape of the paper's Diff 1: the class's signature, name, file path, decorators, parents and member variables, and
every method's signature, decorators and docstring; DETAILED adds the method bodies. The builders make the record
(from a Python class's analysis or a Java class's declarations), and the describers read it back with
:meth:`ClassMetadata.parse`; ``parse(render(m))`` is ``m`` (bodies dropped from SKETCHY). One format serves both
languages: a Java class's annotations are its "Decorators", its Javadoc its "docstring", its ``extends`` and
``implements`` its parents, each method's declaration its "Function body", and its signature has no closing colon.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from benchsmith.core.errors import BenchsmithError

_HEADER = re.compile(
    r"Class signature: (?P<signature>.*?)\nClass full name: (?P<qualified_name>.*?)\nFile path: (?P<file_path>.*?)\n"
    r"Decorators: ?(?P<decorators>.*?)\nParent classes: ?(?P<parents>.*?)\nMember variables:\n?(?P<members>.*?)"
    r"Functions accessible:\n?(?P<functions>.*)",
    re.DOTALL,
)
_FUNCTION = re.compile(r"<Function details for function no\. \d+>\n(?P<details>.*?)\n</function details>", re.DOTALL)
_DETAILS = re.compile(
    r"Function signature: (?P<signature>.*?)\nFunction fqdn: (?P<fqdn>.*?)\nDecorators: ?(?P<decorators>.*?)\n"
    r"Function docstring: ?(?P<docstring>.*?)(?:\nFunction body: (?P<body>.*))?",
    re.DOTALL,
)
_MEMBER_START = re.compile(r"    (self\.)?[A-Za-z_]\w*\s*[:=]")  # a value's continuation lines lack this shape
_JAVA_MEMBER_START = re.compile(r"    \S")  # a Java member's further lines are indented deeper


@dataclass(frozen=True)
class MethodMetadata:
    name: str
    signature: str
    decorators: Sequence[str]
    docstring: str
    body: str | None  # DETAILED only: None where read from SKETCHY metadata


@dataclass(frozen=True)
class ClassMetadata:
    signature: str
    qualified_name: str
    file_path: str
    decorators: Sequence[str]
    parents: Sequence[str]
    members: Sequence[str]
    methods: Sequence[MethodMetadata]

    @property
    def java(self) -> bool:
        """Python's class signatures end with a colon (``class A(B):``), Java's never do."""
        return not self.signature.rstrip().endswith(":")

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

    @classmethod
    def parse(cls, text: str, where: str) -> ClassMetadata:
        """The record *text* renders; *where* names it in the one-line error for text of another shape."""
        header = _HEADER.fullmatch(text.strip("\n") + "\n")
        if header is None:
            raise BenchsmithError(f"{where}: metadata is not in the classbench format (Class signature: … Functions …)")
        methods = []
        for block in _FUNCTION.finditer(header["functions"]):
            details = _DETAILS.fullmatch(block["details"])
            if details is None:
                raise BenchsmithError(f"{where}: malformed function details: {block['details'][:60]!r}")
            methods.append(
                MethodMetadata(
                    name=details["fqdn"].strip().rsplit(".", 1)[-1],
                    signature=details["signature"].strip(),
                    decorators=_split_decorators(details["decorators"]),
                    docstring=details["docstring"].strip(),
                    body=details["body"],
                )
            )
        signature = header["signature"].strip()
        java = not signature.endswith(":")
        return cls(
            signature=signature,
            qualified_name=header["qualified_name"].strip(),
            file_path=header["file_path"].strip(),
            decorators=_split_decorators(header["decorators"]),
            parents=split_top_level(header["parents"], "(<[{", ")>]}") if java else split_top_level(header["parents"]),
            members=_split_members(header["members"], _JAVA_MEMBER_START if java else _MEMBER_START),
            methods=methods,
        )


def split_top_level(text: str, opening: str = "([{", closing: str = ")]}") -> list[str]:
    """Split "A, B[C, D]" at the commas outside brackets (Java's types pass "<" and ">" too)."""
    items, depth, current = [], 0, ""
    for char in text.strip():
        depth += (char in opening) - (char in closing)
        if char == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += char
    return [*items, current.strip()] if current.strip() else items


def _split_decorators(text: str) -> list[str]:
    return [d.strip() for d in re.split(r" (?=@)", text.strip()) if d.strip()]


def _split_members(text: str, member_start: re.Pattern) -> list[str]:
    members: list[str] = []
    for line in text.splitlines():
        if member_start.match(line) or not members:
            if line.strip():
                members.append(line.removeprefix("    "))
        else:
            members[-1] += "\n" + line
    return members
