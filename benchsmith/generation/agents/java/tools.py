"""The RepoClassBench paper's six repository tools (Table 2, appendix F) over a Java classbench task's visible
repository.

The visible repository is the task's public view (``benchsmith.runners.java.defects4j_workspace.java_public_view``:
the workspace without the class's file and its classes) less the files of its
EXPECTED_TO_PASS test classes and, under ``relatives=False``, the relatives'
files. Classes are read with the Java metadata analyser
(the same token-level
analysis is reached through ``benchsmith.sources.java.class_file`` and the parser here), JDK
names through the release's API folder that the warm compiler compiles against.
The tools' names, parameters and descriptions are the Python toolbox's: an
agent speaks to both alike.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import javalang
from javalang import tree as jtree

from benchsmith.core.schema import ClassBenchTask
from benchsmith.generation.agents.base import Toolbox
from benchsmith.generation.agents.snippets import EmbeddingIndex, cut_snippets
from benchsmith.generation.agents.tools import (
    CLASS_INFO_MEMBERS,
    RELATED_SNIPPETS,
    RELEVANT_CODE,
    no_class,
    repository_tools,
    truncated,
)
from benchsmith.generation.models.base import Embedder
from benchsmith.generation.models.embeddings import get_embedder
from benchsmith.sources.java.class_file import java_unit


@dataclass
class JavaMember:
    kind: str  # method, constructor, field
    name: str
    signature: str  # "public int sides()", "protected final double width"
    source: str  # the declaration as written (methods: with their body)
    owner: str  # the qualified name of the class declaring it


@dataclass
class JavaType:
    qualified: str
    name: str
    path: str  # relative to the repository
    kind: str
    header: str  # "public class Rectangle extends Polygon"
    parents: list[str]  # as written: extends, then implements
    members: list[JavaMember] = field(default_factory=list)

    def stripped(self) -> str:
        lines = [self.header + " {"]
        lines += [f"    {m.signature};" for m in self.members if m.kind == "field"]
        lines += [f"    {m.signature} {{ ... }}" for m in self.members if m.kind != "field"]
        return "\n".join(lines + ["}"])


def _modifiers(node) -> str:
    annotations = " ".join(f"@{a.name}" for a in getattr(node, "annotations", []) or [])
    modifiers = " ".join(sorted(node.modifiers, key=_MODIFIER_ORDER.index)) if node.modifiers else ""
    return " ".join(p for p in (annotations, modifiers) if p)


_MODIFIER_ORDER = [
    "public",
    "protected",
    "private",
    "abstract",
    "static",
    "final",
    "transient",
    "volatile",
    "synchronized",
    "native",
    "strictfp",
    "default",
]


def _type_text(node) -> str:
    if node is None:
        return "void"
    name = node.name
    if getattr(node, "arguments", None):
        name += "<" + ", ".join(_type_text(a.type) if getattr(a, "type", None) else "?" for a in node.arguments) + ">"
    sub = getattr(node, "sub_type", None)
    if sub is not None:
        name += "." + _type_text(sub)
    return name + "[]" * len(node.dimensions or [])


def _parameters(method) -> str:
    return ", ".join(f"{_type_text(p.type)}{'...' if p.varargs else ''} {p.name}" for p in method.parameters)


def _declaration_source(text: str, lines: list[int], node) -> str:
    """The member's text from its line to the end of its body (brace matched), or to its ';'."""
    start = lines[node.position.line - 1]
    depth, at, opened = 0, start, False
    while at < len(text):
        char = text[at]
        if char == "{":
            depth, opened = depth + 1, True
        elif char == "}":
            depth -= 1
            if opened and depth == 0:
                return text[start : at + 1].strip("\n")
        elif char == ";" and not opened:
            return text[start : at + 1].strip("\n")
        at += 1
    return text[start:].strip("\n")


def index_java(path: str, text: str) -> list[JavaType]:
    """Every class, interface and enum of one file (nested ones too), with its fields, constructors and methods."""
    try:
        unit = javalang.parse.parse(text)
    except Exception:  # a file javalang cannot read (Java 9+ syntax): its types are found by name only
        try:
            names = java_unit(text, path)
        except Exception:
            return []
        return [
            JavaType(f"{names.package}.{t.name}".lstrip("."), t.name, path, t.kind, f"{t.kind} {t.name}", [])
            for t in names.types
        ]
    lines = [0]
    for line in text.splitlines(keepends=True):
        lines.append(lines[-1] + len(line))
    package = unit.package.name if unit.package else ""
    found: list[JavaType] = []

    def visit(node, outer: str) -> None:
        qualified = f"{outer}.{node.name}" if outer else node.name
        kind = {
            "ClassDeclaration": "class",
            "InterfaceDeclaration": "interface",
            "EnumDeclaration": "enum",
            "AnnotationDeclaration": "@interface",
        }.get(type(node).__name__, "class")
        extends = (
            node.extends
            if isinstance(getattr(node, "extends", None), list)
            else [node.extends]
            if getattr(node, "extends", None) is not None
            else []
        )
        parents = [_type_text(p) for p in extends] + [_type_text(p) for p in (getattr(node, "implements", None) or [])]
        header = " ".join(p for p in (_modifiers(node), kind, node.name) if p)
        if extends:
            header += f" {'extends'} " + ", ".join(_type_text(p) for p in extends)
        if getattr(node, "implements", None):
            header += " implements " + ", ".join(_type_text(p) for p in node.implements)
        entry = JavaType(qualified, node.name, path, kind, header, parents)
        for member in node.body or []:
            if isinstance(member, jtree.FieldDeclaration):
                for variable in member.declarators:
                    signature = " ".join(p for p in (_modifiers(member), _type_text(member.type), variable.name) if p)
                    entry.members.append(
                        JavaMember(
                            "field", variable.name, signature, _declaration_source(text, lines, member), qualified
                        )
                    )
            elif isinstance(member, jtree.ConstructorDeclaration):
                signature = " ".join(p for p in (_modifiers(member), f"{member.name}({_parameters(member)})") if p)
                entry.members.append(
                    JavaMember(
                        "constructor", member.name, signature, _declaration_source(text, lines, member), qualified
                    )
                )
            elif isinstance(member, jtree.MethodDeclaration):
                signature = " ".join(
                    p
                    for p in (
                        _modifiers(member),
                        _type_text(member.return_type),
                        f"{member.name}({_parameters(member)})",
                    )
                    if p
                )
                entry.members.append(
                    JavaMember("method", member.name, signature, _declaration_source(text, lines, member), qualified)
                )
        found.append(entry)
        for member in node.body or []:
            if isinstance(member, (jtree.ClassDeclaration, jtree.InterfaceDeclaration, jtree.EnumDeclaration)):
                visit(member, qualified)

    for declaration in unit.types:
        visit(declaration, package)
    return found


@functools.lru_cache(maxsize=4)
def jdk_types(api: Path | None) -> dict[str, list[str]]:
    """Simple name → qualified names of the public top-level types of the JDK release in *api* (class files of the
    release the harness compiles for, :func:`benchsmith.runners.java.jvm.release_api`)."""
    found: dict[str, list[str]] = {}
    if api is None:
        return found
    for path in api.rglob("*.class"):
        if "$" in path.name or path.stem in ("module-info", "package-info"):
            continue
        qualified = ".".join(path.relative_to(api).with_suffix("").parts)
        if qualified.startswith(("java.", "javax.")):
            found.setdefault(path.stem, []).append(qualified)
    return found


class JavaTools:
    def __init__(
        self,
        task: ClassBenchTask,
        files: dict[str, str],
        embedder: Embedder,
        description: str,
        jdk_api: Path | None = None,
    ) -> None:
        self.task, self.files, self.embedder, self.description = task, files, embedder, description
        self.jdk_types = jdk_types(jdk_api)
        self.types = [t for path, text in sorted(files.items()) for t in index_java(path, text)]
        self.by_name: dict[str, list[JavaType]] = {}
        for entry in self.types:
            self.by_name.setdefault(entry.name, []).append(entry)
        self.package = task.module  # a Java task's module is its class's package
        self.latest_attempt = ""
        self.snippets = cut_snippets(files)
        self._snippet_index = EmbeddingIndex(embedder, [s.text for s in self.snippets])
        self._structures: list[str] | None = None
        self._structure_index: EmbeddingIndex | None = None

    def attempt(self, code: str) -> None:
        self.latest_attempt = code

    def related_snippets(self, query: str = "", thought: str = "") -> str:
        query = (query.strip() if isinstance(query, str) else "") or self.description
        chosen = [self.snippets[i] for i in self._snippet_index.top(query, RELATED_SNIPPETS)]
        return "\n\n".join(s.render() for s in chosen) or "The repository has no code to show."

    def imports(self, thought: str = "") -> str:
        if not self.latest_attempt.strip():
            return "There is no attempt yet: get_imports suggests imports for the undefined symbols of an attempt."
        undefined = undefined_types(
            self.latest_attempt, self.package, {t.qualified for t in self.types}, self.jdk_types
        )
        if not undefined:
            return "Every type of the current attempt is defined or imported: no import is missing."
        lines = ["Import suggestions for the undefined symbols of the current attempt:"]
        for name in undefined:
            candidates = [f"import {t.qualified};" for t in self.by_name.get(name, []) if "." in t.qualified]
            candidates += [f"import {q};" for q in sorted(self.jdk_types.get(name, []))]
            if not candidates:
                lines.append(f"* {name}: no definition found in the repository or the JDK")
            elif len(candidates) == 1:
                lines.append(f"* {name}: {candidates[0]}")
            else:
                lines += [f"* {name}: one of", *(f"    {c}" for c in candidates)]
        return "\n".join(lines)

    def _with_inherited(self, entry: JavaType, seen: set[str] | None = None) -> list[tuple[JavaMember, str]]:
        seen = seen if seen is not None else set()
        seen.add(entry.qualified)
        members = [(m, "") for m in entry.members]
        own = {(m.name, m.signature.split("(")[-1]) for m in entry.members}
        for parent in entry.parents:
            for candidate in self.by_name.get(parent.split("<")[0].rsplit(".", 1)[-1], [])[:1]:
                if candidate.qualified in seen:
                    continue
                for member, via in self._with_inherited(candidate, seen):
                    if (
                        member.kind != "constructor"
                        and (member.name, member.signature.split("(")[-1]) not in own
                        and "private" not in member.signature.split()
                    ):
                        members.append((member, via or candidate.qualified))
        return members

    def class_info(self, class_name: str, thought: str = "") -> str:
        found = self.by_name.get(str(class_name).rsplit(".", 1)[-1], [])
        if not found:
            return no_class(class_name)
        parts = []
        for entry in found:
            members = self._with_inherited(entry)
            if len(members) > CLASS_INFO_MEMBERS and thought.strip():
                index = EmbeddingIndex(self.embedder, [m.signature for m, _ in members])
                keep = set(index.top(thought, CLASS_INFO_MEMBERS))
                members = [m for i, m in enumerate(members) if i in keep or m[0].kind == "constructor"]
            lines = [
                f"Class signature: {entry.header}",
                f"File: {entry.path}",
                f"Class full name: {entry.qualified}",
                "Members:",
            ]
            for member, via in members:
                lines.append(f"    {member.signature}" + (f"  (inherited from {via})" if via else ""))
            parts.append("\n".join(lines))
        return "\n\n".join(parts)

    def _methods(self, class_name: str | None, method_name: str) -> list[tuple[JavaMember, str]]:
        owners = self.by_name.get(str(class_name or "").rsplit(".", 1)[-1], []) if class_name else self.types
        return [
            (m, via)
            for entry in owners
            for m, via in self._with_inherited(entry)
            if m.kind != "field" and m.name == method_name
        ]

    def signature(self, class_name: str | None, method_name: str, thought: str = "") -> str:
        found = self._methods(class_name, method_name)
        if not found:
            return (
                f"No method `{method_name}` found in class `{class_name}` of the repository."
                if class_name
                else f"No method `{method_name}` found in the repository."
            )
        return "\n".join(f"{m.owner}: {m.signature}" for m, _ in found)

    def method_body(self, class_name: str | None, method_name: str, thought: str = "") -> str:
        found = self._methods(class_name, method_name)
        if not found:
            return self.signature(class_name, method_name)
        return "\n\n".join(f"// {m.owner}\n{truncated(m.source)}" for m, _ in found)

    def relevant_code(self, search_string: str, thought: str = "") -> str:
        if not isinstance(search_string, str) or not search_string.strip():
            return "get_relevant_code needs a search string."
        if self._structure_index is None:
            self._structures = [
                f"// Class `{t.qualified}` (methods' bodies left out)\n{t.stripped()}" for t in self.types
            ]
            own = len(self._structures)
            self._structures += [s.render() for s in self.snippets]
            # a snippet is ranked by its text, which the snippet index embedded already: each is embedded once
            self._structure_index = EmbeddingIndex(
                self.embedder, [*self._structures[:own], *(s.text for s in self.snippets)]
            )
        chosen = self._structure_index.top(search_string, RELEVANT_CODE)
        return "\n\n".join(self._structures[i] for i in chosen) or "The repository has no code to show."


_DECLARED = re.compile(r"\b(?:class|interface|enum|record)\s+([A-Z]\w*)|<\s*([A-Z]\w*)\s*(?:extends\b[^>]*)?>")


def undefined_types(code: str, package: str, repository: set[str], jdk: dict[str, list[str]]) -> list[str]:
    """Capitalised names *code* uses that it neither declares nor imports, that java.lang does not hold (*jdk*: the
    JDK's types, :func:`jdk_types`) and that the task's package does not declare, in order of first use."""
    try:
        tokens = list(javalang.tokenizer.tokenize(code))
    except Exception:
        return []
    imported = set()
    for match in re.finditer(r"^\s*import\s+(?:static\s+)?([\w.]+)(\.\*)?\s*;", code, re.M):
        imported.add(match[1].rsplit(".", 1)[-1])
    declared = {m[1] or m[2] for m in _DECLARED.finditer(code)}
    java_lang = {name for name, qualified in jdk.items() if f"java.lang.{name}" in qualified}
    local = {q.rsplit(".", 1)[-1] for q in repository if q.rsplit(".", 1)[0] == package}
    wanted: list[str] = []
    for index, token in enumerate(tokens):
        name = token.value
        if type(token).__name__ != "Identifier" or not name[:1].isupper() or name.isupper():
            continue
        if index and tokens[index - 1].value == ".":
            continue  # a member or a qualified name's later part
        if name in imported or name in declared or name in java_lang or name in local or name in wanted:
            continue
        wanted.append(name)
    return wanted


def java_toolbox(
    task: ClassBenchTask,
    files: dict[str, str],
    *,
    jdk_api: Path | None = None,
    embedder: Embedder | None = None,
    description: str | None = None,
) -> Toolbox:
    """The six tools over *files*, *task*'s repository as the model may see it (the benchmark reads them from the
    task's workspace, :func:`benchsmith.benchmarks.classbench.java.visible_files`); *jdk_api*: the JDK release's
    class files, whose types the tools name."""
    query = description or task.detailed_description or task.sketchy_description or task.class_name
    tools = JavaTools(task, files, embedder or get_embedder("minilm"), query, jdk_api)
    return Toolbox(tools=repository_tools(tools), attempt=tools.attempt)
