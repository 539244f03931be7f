"""The RepoClassBench paper's shortlist for Java (appendix E.1.2): which classes of ``src/main`` become tasks, and why
the others not.

A top-level class is kept when at least two-thirds of its methods are named in
the combined bodies of the passing test methods that reference it, it makes at
least one external reference (a type declared in the same file outside it, or
elsewhere in the repository: resolved through the file's imports and package to
the repository's own declarations, not by name alone), and it has at most 3,000
cl100k tokens without Javadoc. A test is one the suite run reported; it references
the class when the body it ran names it (``suite_tests``: with the fields of its
type and the helper methods it calls).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import javalang
from javalang import tree as jtree

from benchsmith.builders.classbench.tokens import count_tokens
from benchsmith.sources.java.class_file import java_unit

MAX_TOKENS = 3000
METHOD_SHARE = 2 / 3
# Rejection reasons, one meaning each.
NOT_A_CLASS = "not a class"  # an interface or annotation type: nothing to implement
DOES_NOT_PARSE = "does not parse"
NO_METHODS = "no methods"
NO_PASSING_TEST = "no passing test references it"
TOO_FEW_METHODS_TESTED = "fewer than two-thirds of its methods referenced by tests"
NO_EXTERNAL_REFERENCE = "no external reference"
TOO_LONG = "more than 3000 tokens"
GOLD_FAILS = "ground truth fails its directives"
EMPTY_PASSES = "the empty class passes its directives"
_JAVADOC = re.compile(r"/\*\*(?!/).*?\*/", re.DOTALL)


@dataclass(frozen=True)
class JavaClassInfo:
    qualified_name: str
    name: str
    file_path: str  # relative to the module
    kind: str
    methods: list[str]
    parent: str  # the qualified name of the repository class it extends, "" when none or not the repository's
    external_references: list[str]  # qualified names of repository types it uses, "same file:" ones marked
    tokens: int
    parse_error: str = ""


@dataclass(frozen=True)
class TestMethod:
    """A test of the suite's report with the names its body reaches (``builders/classbench/java/suite_tests.py``)."""

    name: str  # pkg.Class::method as run: the class it ran under (nested classes with $), the method's name
    identifiers: frozenset[str]


@dataclass
class Decision:
    accepted: bool
    reason: str = ""
    detail: str = ""
    directives: list[str] = field(default_factory=list)


def _parse(text: str):
    return javalang.parse.parse(text)


def names_in(node) -> set[str]:
    """Every name a subtree mentions: members, qualifiers, types."""
    found: set[str] = set()
    for _, child in node:
        for attribute in ("member", "name"):
            value = getattr(child, attribute, None)
            if isinstance(value, str) and not isinstance(child, (jtree.MethodDeclaration, jtree.FieldDeclaration)):
                found.add(value)
        qualifier = getattr(child, "qualifier", None)
        if isinstance(qualifier, str) and qualifier:
            found.update(qualifier.split("."))
    return found


def declared_types(sources: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Qualified name → file of every top-level type of the repository's main sources (path, text)."""
    found = {}
    for path, text in sources:
        try:
            unit = java_unit(text, path)
        except Exception:  # a file that cannot be read declares nothing we can resolve to
            continue
        for declared in unit.types:
            found[f"{unit.package}.{declared.name}" if unit.package else declared.name] = path
    return found


def analyse_main_file(path: str, text: str, repository_types: dict[str, str]) -> list[JavaClassInfo]:
    """The top-level types of one main source file, with what the shortlist needs of each."""
    try:
        unit = java_unit(text, path)
    except Exception as exc:
        return [JavaClassInfo(Path(path).stem, Path(path).stem, path, "class", [], "", [], 0, str(exc))]
    try:
        tree = _parse(text)
    except (javalang.parser.JavaSyntaxError, javalang.tokenizer.LexerError, TypeError, IndexError) as exc:
        return [
            JavaClassInfo(
                f"{unit.package}.{t.name}".lstrip("."),
                t.name,
                path,
                t.kind,
                [],
                "",
                [],
                0,
                f"javalang: {type(exc).__name__}",
            )
            for t in unit.types
        ]
    package = unit.package
    imports = {i.path.rsplit(".", 1)[-1]: i.path for i in tree.imports if not i.static and not i.wildcard}
    wildcards = [i.path for i in tree.imports if i.wildcard and not i.static]
    static_types = {i.path.rsplit(".", 1)[0] if not i.wildcard else i.path for i in tree.imports if i.static}
    same_file = {t.name for t in unit.types}

    def resolve(name: str) -> str | None:
        if name in imports:
            return imports[name] if imports[name] in repository_types else None
        local = f"{package}.{name}" if package else name
        if local in repository_types:
            return local
        for prefix in wildcards:
            if f"{prefix}.{name}" in repository_types:
                return f"{prefix}.{name}"
        return None

    infos = []
    for declaration in tree.types:
        spans = {t.name: t for t in unit.types}
        span = spans.get(declaration.name)
        kind = {
            "ClassDeclaration": "class",
            "EnumDeclaration": "enum",
            "InterfaceDeclaration": "interface",
            "AnnotationDeclaration": "@interface",
        }.get(type(declaration).__name__, "class")
        qualified = f"{package}.{declaration.name}" if package else declaration.name
        methods = [m.name for m in declaration.methods]
        names = names_in(declaration)
        references = set()
        for name in names - {declaration.name}:
            if name in same_file:
                references.add(f"same file: {package + '.' if package else ''}{name}")
            elif (target := resolve(name)) is not None and target != qualified:
                references.add(target)
        references.update(t for t in static_types if t in repository_types and t != qualified)
        parent = ""
        extends = getattr(declaration, "extends", None)
        if isinstance(extends, jtree.ReferenceType):
            parent = (f"{package}.{extends.name}" if extends.name in same_file else resolve(extends.name)) or ""
        text_of = text[span.start : span.end] if span else ""
        infos.append(
            JavaClassInfo(
                qualified,
                declaration.name,
                path,
                kind,
                methods,
                parent,
                sorted(references),
                count_tokens(_JAVADOC.sub("", text_of)),
            )
        )
    return infos


def decide(info: JavaClassInfo, tests: list[TestMethod], passing: set[str]) -> Decision:
    """Whether *info* is shortlisted, with its directives (the passing test methods that reference it)."""
    if info.parse_error:
        return Decision(False, DOES_NOT_PARSE, info.parse_error)
    if info.kind in ("interface", "@interface"):
        return Decision(False, NOT_A_CLASS, info.kind)
    if not info.methods:
        return Decision(False, NO_METHODS)
    referencing = referencing_tests(info, tests, passing)
    if not referencing:
        return Decision(False, NO_PASSING_TEST)
    mentioned = set().union(*(t.identifiers for t in referencing))
    methods = set(info.methods)
    covered = methods & mentioned
    if len(covered) < METHOD_SHARE * len(methods):
        return Decision(False, TOO_FEW_METHODS_TESTED, f"{len(covered)} of {len(methods)} methods")
    if not info.external_references:
        return Decision(False, NO_EXTERNAL_REFERENCE)
    if info.tokens > MAX_TOKENS:
        return Decision(False, TOO_LONG, f"{info.tokens} tokens")
    return Decision(True, directives=sorted(t.name for t in referencing))


def referencing_tests(info: JavaClassInfo, tests: list[TestMethod], passing: set[str]) -> list[TestMethod]:
    """The passing test methods that reference the class."""
    return [t for t in tests if info.name in t.identifiers and t.name in passing]


def relatives(qualified: str, parents: dict[str, str]) -> list[str]:
    """The RepoClassBench paper's relatives (5.3.2): the descendants of the class's grandparent other than its parent
    (and itself)."""
    parent = parents.get(qualified, "")
    grandparent = parents.get(parent, "") if parent else ""
    if not grandparent:
        return []

    def descends(name: str) -> bool:
        seen = set()
        while name and name not in seen:
            seen.add(name)
            name = parents.get(name, "")
            if name == grandparent:
                return True
        return False

    return sorted(n for n in parents if n not in (qualified, parent) and descends(n))
