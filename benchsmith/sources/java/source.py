"""Java source analysis: method spans, code lines, and comment stripping.

javalang's declaration positions are not consistent (sometimes the name,
sometimes the first modifier; annotations sit apart), so spans are computed
on its token stream instead: a declaration starts at the first token after
the previous member's boundary (``;``, ``{`` or ``}`` outside parentheses),
which takes annotations and modifiers in and leaves the Javadoc out, and ends
at the brace that closes its body.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import javalang
from javalang import tree as jtree
from javalang.tokenizer import Position

from benchsmith.core.errors import JavaParseError

_NAMED_TYPES = (
    jtree.ClassDeclaration,
    jtree.InterfaceDeclaration,
    jtree.EnumDeclaration,
    jtree.AnnotationDeclaration,
)
_CALLABLES = (jtree.MethodDeclaration, jtree.ConstructorDeclaration)
# A callable below one of these is part of the enclosing method's body.
_BODY_SCOPES = (jtree.MethodDeclaration, jtree.ConstructorDeclaration, jtree.ClassCreator, jtree.LambdaExpression)


def lines_with_ends(text: str) -> list[str]:
    """Lines as javalang counts them: broken at ``\\n`` only (``str.splitlines`` also breaks at form feeds)."""
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


@dataclass(frozen=True)
class MethodUnit:
    """A method or constructor that is a member of a named type."""

    type_path: str  # "Outer.Inner"; enum constant bodies appear as "E.CONSTANT"
    name: str
    parameter_types: tuple[str, ...]
    start_line: int  # first annotation or modifier, Javadoc excluded
    start_column: int
    end_line: int  # the closing brace (or ';' for a bodiless declaration)
    end_column: int

    @property
    def signature(self) -> str:
        return f"{self.type_path}.{self.name}({', '.join(self.parameter_types)})"

    @property
    def identity(self) -> tuple[str, str, tuple[str, ...]]:
        return (self.type_path, self.name, self.parameter_types)

    def contains(self, line: int) -> bool:
        return self.start_line <= line <= self.end_line

    def text(self, source: str) -> str:
        """The declaration's source, first token to closing brace, dedented, with newline line ends."""
        lines = lines_with_ends(source)[self.start_line - 1 : self.end_line]
        if not lines:
            return ""
        lines[-1] = lines[-1][: self.end_column].rstrip("\r\n")
        lead = lines[0][: self.start_column - 1]
        lines[0] = (lead if not lead.strip() else "") + lines[0][self.start_column - 1 :]
        return textwrap.dedent("".join(lines).replace("\r\n", "\n"))


@dataclass(frozen=True)
class DeclarationSpan:
    """A declaration other than a method: a field (``kind`` "field") or a named type ("type")."""

    kind: str
    type_path: str  # the enclosing named type of a field; the type itself for a type
    names: tuple[str, ...]  # a field's variables; a type's simple name
    start_line: int  # first annotation or modifier, Javadoc excluded
    end_line: int  # the field's ';' or the type's closing brace

    @property
    def name(self) -> str:
        return self.type_path if self.kind == "type" else f"{self.type_path}.{', '.join(self.names)}"

    def contains(self, line: int) -> bool:
        return self.start_line <= line <= self.end_line


@dataclass(frozen=True)
class JavaFile:
    """What the single-method filter needs to know about one Java file."""

    units: tuple[MethodUnit, ...]
    code_lines: frozenset[int]  # lines holding at least one token (not blank, not comment-only)
    import_lines: frozenset[int]  # lines holding only import or package declaration tokens
    fields: tuple[DeclarationSpan, ...] = ()  # fields of named types (not of anonymous or local classes)
    types: tuple[DeclarationSpan, ...] = ()  # named types, outermost first

    def unit_at(self, line: int) -> MethodUnit | None:
        for unit in self.units:
            if unit.contains(line):
                return unit
        return None

    def declaration_at(self, line: int) -> DeclarationSpan | None:
        """The field holding *line*, else the innermost named type holding it (its header, initializers, constants)."""
        for span in self.fields:
            if span.contains(line):
                return span
        return next((span for span in reversed(self.types) if span.contains(line)), None)


def analyse_java(source: str, name: str = "<source>") -> JavaFile:
    """Tokenize and parse *source*; raise JavaParseError naming *name* on failure."""
    try:
        tokens = list(javalang.tokenizer.tokenize(source))
        compilation_unit = javalang.parser.Parser(tokens).parse()
    except (javalang.tokenizer.LexerError, javalang.parser.JavaSyntaxError, TypeError, IndexError) as exc:
        detail = getattr(exc, "description", None) or str(exc) or type(exc).__name__
        at = getattr(exc, "at", None)
        where = f" at line {at.position.line}" if getattr(at, "position", None) else ""
        raise JavaParseError(f"{name}: Java does not parse{where}: {detail}") from exc

    code_lines = frozenset(tok.position.line for tok in tokens)
    declaration_lines, other_lines = _split_declaration_lines(tokens, ("import", "package"))
    import_lines = declaration_lines - other_lines
    index_at = {(tok.position.line, tok.position.column): i for i, tok in enumerate(tokens)}
    units = []
    fields = []
    types = []
    for path, node in compilation_unit:
        if isinstance(node, _CALLABLES):
            type_path = _member_type_path(path)
            if type_path is not None:
                units.append(_unit_for(node, type_path, tokens, index_at, name))
        elif isinstance(node, jtree.FieldDeclaration):
            type_path = _member_type_path(path)
            if type_path is not None:
                fields.append(_field_span(node, type_path, tokens, index_at, name))
        elif isinstance(node, _NAMED_TYPES):
            outer = _member_type_path(path)
            if outer is not None or not any(isinstance(a, _BODY_SCOPES) for a in path if not isinstance(a, list)):
                types.append(_type_span(node, f"{outer}.{node.name}" if outer else node.name, tokens, index_at, name))
    units.sort(key=lambda u: (u.start_line, u.start_column))
    fields.sort(key=lambda f: f.start_line)
    types.sort(key=lambda t: (t.start_line, -t.end_line))
    return JavaFile(tuple(units), code_lines, import_lines, tuple(fields), tuple(types))


def _token_index(node, tokens: list, index_at: dict, file_name: str) -> int:
    position: Position | None = node.position
    i = index_at.get((position.line, position.column)) if position else None
    if i is None:
        raise JavaParseError(f"{file_name}: no token at {position} for a {type(node).__name__}")
    return i


def _field_span(node, type_path: str, tokens: list, index_at: dict, file_name: str) -> DeclarationSpan:
    i = _token_index(node, tokens, index_at, file_name)
    start = _declaration_start(tokens, i)
    depth = 0
    end = i
    while end < len(tokens):
        value = tokens[end].value
        if value in ("(", "{", "["):
            depth += 1
        elif value in (")", "}", "]"):
            depth -= 1
        elif depth == 0 and value == ";":
            break
        end += 1
    else:
        raise JavaParseError(f"{file_name}: the field at line {tokens[i].position.line} never ends")
    names = tuple(d.name for d in node.declarators)
    return DeclarationSpan("field", type_path, names, tokens[start].position.line, tokens[end].position.line)


def _type_span(node, type_path: str, tokens: list, index_at: dict, file_name: str) -> DeclarationSpan:
    i = _token_index(node, tokens, index_at, file_name)
    start = _declaration_start(tokens, i)
    j = i
    while j < len(tokens) and tokens[j].value != "{":
        j += 1
    if j == len(tokens):
        raise JavaParseError(f"{file_name}: type {node.name} at line {tokens[i].position.line} has no body")
    end = _matching_brace(tokens, j, file_name)
    return DeclarationSpan("type", type_path, (node.name,), tokens[start].position.line, tokens[end].position.line)


def _member_type_path(path: tuple) -> str | None:
    """The dotted named-type path of a member, or None when it sits inside a body."""
    names: list[str] = []
    for ancestor in path:
        if isinstance(ancestor, list):
            continue
        if isinstance(ancestor, _BODY_SCOPES):
            return None
        if isinstance(ancestor, _NAMED_TYPES):
            names.append(ancestor.name)
        elif isinstance(ancestor, jtree.EnumConstantDeclaration):
            names.append(ancestor.name)
    return ".".join(names) if names else None


def _parameter_type(parameter: jtree.FormalParameter) -> str:
    kind = parameter.type
    parts = [kind.name]
    sub = getattr(kind, "sub_type", None)
    while sub is not None:
        parts.append(sub.name)
        sub = getattr(sub, "sub_type", None)
    rendered = ".".join(parts) + "[]" * len(kind.dimensions or [])
    return rendered + "..." if parameter.varargs else rendered


def callable_span(node, tokens: list, index_at: dict, file_name: str) -> tuple[int, int]:
    """The first and last token (indexes into *tokens*, the file's, from which it was parsed; *index_at*: (line,
    column) → index) of the method or constructor *node*: its first annotation or modifier to its closing brace.
    javalang's tree leaves some of a body out (the selectors after a parenthesised cast); its tokens do not."""
    position: Position = node.position
    i = index_at.get((position.line, position.column))
    if i is None:
        raise JavaParseError(f"{file_name}: no token at {position.line}:{position.column} for {node.name}")
    name_index = _find_name(tokens, i, node.name, file_name)
    return _declaration_start(tokens, name_index), _declaration_end(tokens, name_index, file_name)


def _unit_for(node, type_path: str, tokens: list, index_at: dict, file_name: str) -> MethodUnit:
    start, end = callable_span(node, tokens, index_at, file_name)
    first, last = tokens[start], tokens[end]
    return MethodUnit(
        type_path=type_path,
        name=node.name,
        parameter_types=tuple(_parameter_type(p) for p in node.parameters),
        start_line=first.position.line,
        start_column=first.position.column,
        end_line=last.position.line,
        end_column=last.position.column + len(last.value) - 1,
    )


def _find_name(tokens: list, i: int, name: str, file_name: str) -> int:
    for j in range(i, len(tokens) - 1):
        if (
            isinstance(tokens[j], javalang.tokenizer.Identifier)
            and tokens[j].value == name
            and tokens[j + 1].value == "("
        ):
            return j
    raise JavaParseError(f"{file_name}: declaration of {name} not found in the token stream")


def _declaration_start(tokens: list, name_index: int) -> int:
    depth = 0
    j = name_index - 1
    while j >= 0:
        value = tokens[j].value
        if value == ")":
            depth += 1
        elif value == "(":
            depth -= 1
        elif depth == 0 and value in (";", "{", "}"):
            break
        j -= 1
    return j + 1


def _declaration_end(tokens: list, name_index: int, file_name: str) -> int:
    depth = 0
    j = name_index + 1
    while j < len(tokens):
        value = tokens[j].value
        if value == "(":
            depth += 1
        elif value == ")":
            depth -= 1
        elif depth == 0 and value == ";":
            return j
        elif depth == 0 and value == "{":
            return _matching_brace(tokens, j, file_name)
        j += 1
    raise JavaParseError(
        f"{file_name}: body of the declaration at line {tokens[name_index].position.line} never closes"
    )


def _matching_brace(tokens: list, open_index: int, file_name: str) -> int:
    depth = 0
    for j in range(open_index, len(tokens)):
        if tokens[j].value == "{":
            depth += 1
        elif tokens[j].value == "}":
            depth -= 1
            if depth == 0:
                return j
    raise JavaParseError(f"{file_name}: unbalanced braces from line {tokens[open_index].position.line}")


def _split_declaration_lines(tokens: list, keywords: tuple[str, ...]) -> tuple[frozenset[int], frozenset[int]]:
    """Lines holding tokens of declarations that start with *keywords* (to their ';'), and lines holding any other
    token."""
    declaration: set[int] = set()
    other: set[int] = set()
    inside = False
    for tok in tokens:
        if not inside and isinstance(tok, javalang.tokenizer.Keyword) and tok.value in keywords:
            inside = True
        (declaration if inside else other).add(tok.position.line)
        if inside and tok.value == ";":
            inside = False
    return frozenset(declaration), frozenset(other)
