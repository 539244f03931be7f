"""A deterministic writer of class descriptions from DETAILED / SKETCHY metadata: the offline ``describe`` default.

The RepoClassBench paper (stage 4) asks GPT-4 to describe a class from its metadata; this
backend writes the same kind of description without a model: what the class
is, its parents and decorators, its member variables, and for each method what
it takes, returns and does (its signature and the first paragraph of its
docstring). DETAILED descriptions add what each method's body calls, which
member variables it uses, which names from outside the method it refers to and
what it raises — names only, never the body itself — and the members' initial
values; SKETCHY descriptions have neither.

The metadata is read with :meth:`benchsmith.core.metadata.ClassMetadata.parse`, the format's one owner, for both
languages: a class signature without Python's closing colon is Java's, and its members and methods are described by
:mod:`benchsmith.generation.models.template_java`.
"""

from __future__ import annotations

import ast
import builtins
import re
import textwrap
from dataclasses import dataclass

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.metadata import ClassMetadata, MethodMetadata
from benchsmith.generation.models.base import BackendBase, ChatRequest, ChatResponse

MODEL = "template-v1"
_PURPOSES = {"describe/detailed": True, "describe/sketchy": False}
_KINDS = {"@property": "property", "@staticmethod": "static method", "@classmethod": "class method"}
_BUILTINS = frozenset(dir(builtins))
_LIST_CAP, _VALUE_CAP = 10, 80


@dataclass(frozen=True)
class BodyFacts:
    """Names a method's body uses, in source order: all a DETAILED description reveals of it."""

    calls: list[str]
    self_attributes: list[str]
    external_names: list[str]
    raises: list[str]


class TemplateBackend(BackendBase):
    name = "template"
    model = MODEL

    def complete(self, request: ChatRequest) -> ChatResponse:
        where = request.item_id or "request"
        if request.purpose not in _PURPOSES:
            raise BenchsmithError(f"{where}: the template backend only writes descriptions, not {request.purpose!r}")
        metadata = request.context.get("metadata")
        if not metadata:
            raise BenchsmithError(f"{where}: the template backend needs the class metadata in the request's context")
        parsed = parse_metadata(metadata, where)
        text = describe(parsed, _PURPOSES[request.purpose], request.context.get("class_name", ""))
        return ChatResponse(texts=[text] * request.n, model=MODEL)


def create() -> TemplateBackend:
    """The registry's factory: the template takes no options, and is its own model (template-v1)."""
    return TemplateBackend()


def parse_metadata(text: str, where: str) -> ClassMetadata:
    return ClassMetadata.parse(text, where)


def describe(metadata: ClassMetadata, detailed: bool, class_name: str = "") -> str:
    """The description of one class, in paragraphs."""
    name = class_name or metadata.qualified_name.rsplit(".", 1)[-1]
    module = metadata.qualified_name.rsplit(".", 1)[0] if "." in metadata.qualified_name else ""
    if metadata.java:
        return _describe_java(metadata, detailed, name, module)
    intro = f"`{name}` is a class defined in `{metadata.file_path}`" + (f" (module `{module}`)." if module else ".")
    intro += f" It inherits from {_join(metadata.parents)}." if metadata.parents else " It has no parent classes."
    if metadata.decorators:
        intro += f" It is decorated with {_join(metadata.decorators)}."
    paragraphs = [intro]
    if metadata.members:
        paragraphs.append(_describe_members(metadata.members, detailed))
    count = len(metadata.methods)
    paragraphs.append(f"It defines {count} method{_plural(count)}." if count else "It defines no methods.")
    paragraphs += [_describe_method(method, detailed, name) for method in metadata.methods]
    return "\n\n".join(paragraphs) + "\n"


def _describe_java(metadata: ClassMetadata, detailed: bool, name: str, package: str) -> str:
    """A Java class, interface or enum: what it extends and implements, its fields, constructors and methods."""
    from benchsmith.generation.models import template_java  # javalang is loaded for Java metadata only

    kind = template_java.class_kind(metadata.signature)
    intro = f"`{name}` is a Java {kind} defined in `{metadata.file_path}`" + (
        f" (package `{package}`)." if package else "."
    )
    intro += template_java.parents_sentence(metadata.signature, metadata.parents, _join)
    if metadata.decorators:
        intro += f" It is annotated with {_join(metadata.decorators)}."
    paragraphs = [intro]
    if metadata.members:
        paragraphs.append(template_java.members_sentence(metadata.members, detailed, _join, _cap, kind))
    constructors = sum(template_java.is_constructor(m.signature, m.name, name) for m in metadata.methods)
    methods = len(metadata.methods) - constructors
    counted = [f"{constructors} constructor{_plural(constructors)}"] if constructors else []
    counted += [f"{methods} method{_plural(methods)}"] if methods or not constructors else []
    paragraphs.append(f"It declares {' and '.join(counted).replace('0 methods', 'no methods')}.")
    for method in metadata.methods:
        sentence = template_java.method_sentence(
            method.name, method.signature, method.body, detailed, name, _join, kind
        )
        if method.decorators:
            sentence += f" It is annotated with {_join(method.decorators)}."
        summary = _collapse(re.split(r"\n\s*\n", method.docstring, maxsplit=1)[0])
        if summary:
            sentence += f' Its Javadoc says: "{summary}"'
        paragraphs.append(sentence)
    return "\n\n".join(paragraphs) + "\n"


def _describe_members(members: list[str], detailed: bool) -> str:
    instance, klass = [], []
    for raw in members:
        statement = _parse_statement(raw)
        target = statement.targets[0] if isinstance(statement, ast.Assign) else getattr(statement, "target", None)
        on_instance = isinstance(target, ast.Attribute) and getattr(target.value, "id", "") == "self"
        if not on_instance and not isinstance(target, ast.Name):  # a, b = …, self.x.y = …: quoted as written
            (instance if raw.startswith("self.") else klass).append(f"`{_cap(raw)}`")
            continue
        phrase = f"`{target.attr if on_instance else target.id}`"
        extras = [f"of type `{_segment(raw, statement.annotation)}`"] if isinstance(statement, ast.AnnAssign) else []
        if detailed and statement.value is not None:
            extras.append(f"initialised to `{_cap(_segment(raw, statement.value))}`")
        (instance if on_instance else klass).append(phrase + (f" ({', '.join(extras)})" if extras else ""))
    instance, klass, sentences = _unique(instance), _unique(klass), []  # __init__ may set a member twice
    if klass:
        verb = "are" if len(klass) > 1 else "is"
        sentences.append(f"Its class attribute{_plural(len(klass))} {verb} {_join(klass, quote=False, cap=False)}.")
    if instance:
        members = _join(instance, quote=False, cap=False)
        sentences.append(f"Its instances keep the member variable{_plural(len(instance))} {members}.")
    return " ".join(sentences)


def _describe_method(method: MethodMetadata, detailed: bool, class_name: str) -> str:
    kinds = [_KINDS[d] for d in method.decorators if d in _KINDS]
    kind = "constructor" if method.name == "__init__" else kinds[0] if kinds else "method"
    subject = f"The constructor of `{class_name}`" if kind == "constructor" else f"The {kind} `{method.name}`"
    signature = _parse_function(method.signature + "\n    pass")
    if signature is None:
        sentence = f"{subject} has the signature `{_collapse(method.signature)}`."
    else:
        returns = _describe_return(signature, method.signature, kind)
        if kind == "property":
            sentence = f"{subject} {returns or 'gives a value'}."
        else:
            parameters = _describe_parameters(signature, method.signature, skip_first=kind != "static method")
            sentence = f"{subject} takes {parameters}" + (f" and {returns}." if returns else ".")
    others = [d for d in method.decorators if d not in _KINDS]
    if others:
        sentence += f" It is decorated with {_join(others)}."
    summary = _collapse(re.split(r"\n\s*\n", method.docstring, maxsplit=1)[0])
    if summary:
        sentence += f' Its docstring says: "{summary}"'
    facts = _body_facts(method.body) if detailed and method.body else None
    if facts is not None:
        parts = [
            f"calls {_join(facts.calls)}" if facts.calls else "",
            f"uses the member variable{_plural(len(facts.self_attributes))} {_join(facts.self_attributes)}"
            if facts.self_attributes
            else "",
            f"refers to {_join(facts.external_names)} from outside the method" if facts.external_names else "",
            f"may raise {_join(facts.raises)}" if facts.raises else "",
        ]
        if any(parts):
            sentence += " In its body it " + "; it ".join(p for p in parts if p) + "."
    return sentence


def _describe_parameters(signature: ast.FunctionDef | ast.AsyncFunctionDef, text: str, skip_first: bool) -> str:
    args = signature.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    pairs = list(zip(positional, defaults))[1 if skip_first and positional else 0 :]
    phrases = [_parameter(arg, default, text) for arg, default in pairs]
    if args.vararg:
        phrases.append(f"any further positional arguments as `*{args.vararg.arg}`")
    phrases += [_parameter(arg, default, text) for arg, default in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg:
        phrases.append(f"any further keyword arguments as `**{args.kwarg.arg}`")
    return _join(phrases, quote=False, cap=False) if phrases else "no arguments"


def _parameter(arg: ast.arg, default: ast.expr | None, text: str) -> str:
    extras = [f"`{_annotation(text, arg.annotation)}`"] if arg.annotation is not None else []
    if default is not None:
        extras.append(f"default `{_cap(_segment(text, default))}`")
    return f"`{arg.arg}`" + (f" ({', '.join(extras)})" if extras else "")


def _describe_return(signature: ast.FunctionDef | ast.AsyncFunctionDef, text: str, kind: str) -> str:
    if signature.returns is None:
        return "returns nothing" if kind == "constructor" else ""
    annotation = _annotation(text, signature.returns)
    return "returns nothing" if annotation == "None" else f"returns `{annotation}`"


def _body_facts(body: str) -> BodyFacts | None:
    function = _parse_function(body) or _parse_function(textwrap.dedent(body))
    if function is None:
        return None
    statements = function.body
    if statements and isinstance(statements[0], ast.Expr) and isinstance(statements[0].value, ast.Constant):
        statements = statements[1:]  # the docstring is described already
    nodes = sorted(
        (node for statement in statements for node in ast.walk(statement) if hasattr(node, "lineno")),
        key=lambda node: (node.lineno, node.col_offset),
    )
    local = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            local.add(node.id)
        elif isinstance(node, ast.arg):
            local.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler)):
            local.add(node.name or "")
        elif isinstance(node, ast.alias):
            local.add((node.asname or node.name).split(".")[0])
    raised = [node.exc for node in nodes if isinstance(node, ast.Raise) and node.exc is not None]
    raised_calls = {id(exc) for exc in raised if isinstance(exc, ast.Call)}
    calls = [node for node in nodes if isinstance(node, ast.Call) and id(node) not in raised_calls]
    methods = {id(call.func) for call in calls}
    return BodyFacts(
        calls=_unique(_dotted(call.func) for call in calls if _dotted(call.func) != "super"),
        self_attributes=_unique(
            node.attr
            for node in nodes
            if isinstance(node, ast.Attribute)
            and id(node) not in methods
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ),
        external_names=_unique(
            node.id
            for node in nodes
            if isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)
            and node.id not in local
            and node.id not in _BUILTINS
            and node.id not in ("self", "cls")
        ),
        raises=_unique(_dotted(exc.func if isinstance(exc, ast.Call) else exc) for exc in raised),
    )


def _dotted(node: ast.expr) -> str:
    """``a.b.c`` or ``super().f`` for a call target; "" for anything more involved."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super":
        return "super()"
    return ""


def _parse_statement(text: str) -> ast.stmt | None:
    try:
        module = ast.parse(text)
    except SyntaxError:
        return None
    return module.body[0] if len(module.body) == 1 else None


def _parse_function(text: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    statement = _parse_statement(text)
    return statement if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _segment(text: str, node: ast.AST) -> str:
    """The code of *node* as written, on one line: "[ (a, b), ]" over three lines reads "[(a, b)]"."""
    code = _collapse(ast.get_source_segment(text, node) or ast.unparse(node))
    return re.sub(r"([\[({]) | ?,? ([\])}])", lambda m: m[1] or m[2], code)


def _annotation(text: str, node: ast.expr) -> str:
    """A string annotation ("Book") reads as the name it holds."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _collapse(node.value)
    return _segment(text, node)


def _unique(names) -> list[str]:
    return list(dict.fromkeys(name for name in names if name))


def _plural(count: int) -> str:
    return "" if count == 1 else "s"


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _cap(text: str) -> str:
    text = _collapse(text)
    return text if len(text) <= _VALUE_CAP else text[: _VALUE_CAP - 3] + "..."


def _join(items: list[str], quote: bool = True, cap: bool = True) -> str:
    """ "`a`, `b` and `c`"; phrases already written (quote=False) are joined as they are."""
    shown = [f"`{item}`" if quote else item for item in items]
    if cap and len(shown) > _LIST_CAP:
        return ", ".join(shown[:_LIST_CAP]) + f" and {len(shown) - _LIST_CAP} more"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
