"""The test methods of a Java classbench build, as the suite run reported them, each with the names its body mentions.

The runner's report is what says which tests exist and passed: a JUnit 3 method
inherited through any base class, the tests a suite class (``TestAll.suite()``)
gathers, a JUnit 4 runner's (``Parameterized``, ``Theories``), a JUnit 5
meta-annotation's, ``@Nested`` classes (``Outer$Inner``), dynamic and
parameterized tests (each as its method). Each reported ``pkg.Class::method`` is
found in the sources by name: the class it ran under, then up its superclasses
and interfaces to the first that declares the method (a test an abstract base
class declares runs under each subclass's name). What the test references is
that body's names, the declared types of the fields it uses (of the class's
hierarchy and, for an inner class, of its enclosing ones), and, followed
transitively, the bodies of the methods of that hierarchy it calls, dispatched
from the class it ran under as the JVM dispatches them: an inherited
``testPut`` that calls ``makeObject()`` references what the subclass's
``makeObject`` creates. A reported test whose body is not found keeps its reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import javalang
from javalang import tree as jtree

from benchsmith.builders.classbench.java.shortlist import TestMethod, names_in
from benchsmith.core.errors import JavaParseError
from benchsmith.sources.java.source import callable_span

_TYPES = (jtree.ClassDeclaration, jtree.InterfaceDeclaration, jtree.EnumDeclaration)
# Reasons a reported test's body is not found, one meaning each.
NO_CLASS_SOURCE = "its class is not in the repository's sources"
NOT_DECLARED = "no class of its hierarchy in the sources declares the method"
UNATTRIBUTED = "the runner reported it with no method (a runner's own name): no directive can name it"
UNPARSED = "its class's file does not parse"


@dataclass
class _Body:
    names: set[str] = field(default_factory=set)
    calls: set[str] = field(default_factory=set)  # unqualified (or this.) invocations: dispatched from the run class
    super_calls: set[str] = field(default_factory=set)  # super.x(): dispatched from the declaring class's parents


@dataclass
class SourceClass:
    """A class of the test (or main) sources as the mapping needs it."""

    binary: str  # pkg.Outer$Inner
    file: str
    enclosing: str  # the binary name of the class it is declared in, "" for a top-level one
    supertypes: list[str]  # binary names in the sources: the superclass first, then the interfaces
    outside: list[str]  # supertypes as written that are not in the sources (TestCase, a library's base class)
    fields: dict[str, str]  # field name → its declared type's simple name
    methods: dict[str, _Body]  # every overload of a name merged


@dataclass(frozen=True)
class ReportedTests:
    """The reported tests mapped to their bodies (*found*) and the others with their reasons (*missing*)."""

    found: list[TestMethod]
    missing: dict[str, str]  # test as reported → why its body was not found

    def counts(self, reported: int) -> dict[str, int]:
        return {"reported": reported, "source found": len(self.found), "source not found": len(self.missing)}


def index_sources(files: Iterable[tuple[str, str]]) -> tuple[dict[str, SourceClass], dict[str, str]]:
    """Every class, interface and enum of *files* (path, text), nested ones included, by binary name; and the files
    that do not parse, with javalang's error."""
    declared: list[tuple[str, object, list[str], str, dict]] = []  # binary, declaration, scope, file, unit facts
    unparsed: dict[str, str] = {}
    for path, text in files:
        try:
            tokens = list(javalang.tokenizer.tokenize(text))
            tree = javalang.parser.Parser(tokens).parse()
        except (javalang.parser.JavaSyntaxError, javalang.tokenizer.LexerError, TypeError, IndexError) as exc:
            unparsed[path] = f"javalang: {type(exc).__name__}"
            continue
        package = tree.package.name if tree.package else ""
        unit = {
            "tokens": tokens,
            "index_at": {(t.position.line, t.position.column): i for i, t in enumerate(tokens)},
            "path": path,
            "package": package,
            "imports": {i.path.rsplit(".", 1)[-1]: i.path for i in tree.imports if not i.static and not i.wildcard},
            "wildcards": [i.path for i in tree.imports if i.wildcard and not i.static],
        }

        def collect(declaration, binary: str, scope: list[str]) -> None:
            declared.append((binary, declaration, scope, path, unit))
            for member in _members(declaration):
                if isinstance(member, _TYPES):
                    collect(member, f"{binary}${member.name}", [binary, *scope])

        for declaration in tree.types:
            if isinstance(declaration, _TYPES):
                collect(declaration, f"{package}.{declaration.name}" if package else declaration.name, [])
    canonical = {binary.replace("$", "."): binary for binary, *_ in declared}
    index = {}
    for binary, declaration, scope, path, unit in declared:
        written = _supertypes_written(declaration)
        resolved = [(w, _resolve(w, [binary, *scope], unit, canonical)) for w in written]
        index[binary] = SourceClass(
            binary,
            path,
            scope[0] if scope else "",
            [r for _, r in resolved if r],
            [w for w, r in resolved if not r],
            {v.name: m.type.name.rsplit(".", 1)[-1] for m in declaration.fields for v in m.declarators},
            _bodies(declaration, unit),
        )
    return index, unparsed


def map_reported(
    outcomes: dict[str, str], unattributed: list[dict[str, str]], index: dict[str, SourceClass], unparsed: dict
) -> ReportedTests:
    """Each test of the suite's report with its body's names, or the reason it has none."""
    found, missing = [], {}
    for name in sorted(outcomes):
        cls, _, method = name.partition("::")
        if cls not in index:
            top = cls.split("$", 1)[0]
            file = next((f for f in unparsed if f.removesuffix(".java").replace("/", ".").endswith(top)), "")
            missing[name] = f"{UNPARSED} ({file}: {unparsed[file]})" if file else NO_CLASS_SOURCE
            continue
        order = _linearised(cls, index)
        if not any(method in index[c].methods for c in order):
            outside = [w for c in order for w in index[c].outside]
            beyond = f"; beyond: {', '.join(outside)}" if outside else ""
            missing[name] = f"{NOT_DECLARED} ({' < '.join(order)}{beyond})"
            continue
        found.append(TestMethod(name, frozenset(_referenced(cls, method, index))))
    for test in unattributed:
        missing[f"{test['class']}::{test['name']}"] = f"{UNATTRIBUTED} ({test['outcome']})"
    return ReportedTests(found, missing)


def _members(declaration) -> list:
    body = declaration.body
    return list(body.declarations or []) if isinstance(body, jtree.EnumBody) else list(body or [])


def _supertypes_written(declaration) -> list[str]:
    extends = getattr(declaration, "extends", None)
    parents = extends if isinstance(extends, list) else [extends] if extends is not None else []  # interfaces: a list
    return [_written(t) for t in [*parents, *(getattr(declaration, "implements", None) or [])]]


def _written(reference) -> str:
    parts = []
    while reference is not None:
        parts.append(reference.name)
        reference = getattr(reference, "sub_type", None)
    return ".".join(parts)


def _resolve(written: str, scope: list[str], unit: dict, canonical: dict[str, str]) -> str:
    """The binary name of the type *written* names in *scope* (the class itself and its enclosing ones), "" when it
    is not in the sources: member types of the enclosing classes, single imports, the package, the wildcard imports,
    a qualified name."""
    first, _, rest = written.partition(".")
    tail = f".{rest}" if rest else ""
    candidates = [f"{c.replace('$', '.')}.{written}" for c in scope]
    if first in unit["imports"]:
        candidates.append(unit["imports"][first] + tail)
    candidates.append(f"{unit['package']}.{written}" if unit["package"] else written)
    candidates += [f"{w}.{written}" for w in unit["wildcards"]]
    candidates.append(written)
    return next((canonical[c] for c in candidates if c in canonical), "")


def _bodies(declaration, unit: dict) -> dict[str, _Body]:
    bodies: dict[str, _Body] = {}
    tokens = unit["tokens"]
    for method in declaration.methods:
        body = bodies.setdefault(method.name, _Body())
        try:
            first, last = callable_span(method, tokens, unit["index_at"], unit["path"])
        except JavaParseError:  # the tree's names alone
            first, last = 0, -1
        written = {t.value for t in tokens[first : last + 1] if isinstance(t, javalang.tokenizer.Identifier)}
        body.names |= names_in(method) | (written - {method.name})  # its own name is no reference
        for _, node in method:
            if isinstance(node, jtree.SuperMethodInvocation):
                body.super_calls.add(node.member)
            elif isinstance(node, jtree.MethodInvocation) and not node.qualifier:
                body.calls.add(node.member)
    return bodies


def _linearised(binary: str, index: dict[str, SourceClass]) -> list[str]:
    """*binary* and its supertypes in the sources, in the order a method is looked up: the superclass chain first,
    then the interfaces (their default methods)."""
    order: list[str] = []

    def visit(name: str) -> None:
        if name in order or name not in index:
            return
        order.append(name)
        for parent in index[name].supertypes:
            visit(parent)

    visit(binary)
    return order


def _dispatch(name: str, order: list[str], index: dict[str, SourceClass]) -> str:
    return next((c for c in order if name in index[c].methods), "")


def _referenced(cls: str, method: str, index: dict[str, SourceClass]) -> set[str]:
    """The names the body of *method*, run under *cls*, mentions, with what it reaches through its hierarchy's
    methods and fields, and those of the classes *cls* is nested in."""
    scopes = []  # the run class's hierarchy, then each enclosing class's
    at = cls
    while at in index:
        scopes.append(_linearised(at, index))
        at = index[at].enclosing
    names: set[str] = set()
    start = _dispatch(method, scopes[0], index)
    pending, seen = [(start, method)], set()
    while pending:
        owner, name = pending.pop()
        if (owner, name) in seen:
            continue
        seen.add((owner, name))
        body = index[owner].methods[name]
        names |= body.names
        for call in body.calls:
            target = next((t for order in scopes if (t := _dispatch(call, order, index))), "")
            if target:
                pending.append((target, call))
        for call in body.super_calls:
            target = _dispatch(call, _linearised(owner, index)[1:], index)
            if target:
                pending.append((target, call))
    fields: dict[str, str] = {}
    for order in reversed(scopes):  # the nearest declaration of a name wins
        for c in reversed(order):
            fields.update(index[c].fields)
    names |= {fields[n] for n in names if n in fields}
    return names
