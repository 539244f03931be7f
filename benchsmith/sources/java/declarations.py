"""A Java class's declarations, read from its source: what RepoClassBench's metadata of a Java class is made of.

:func:`analyse_java_class` gives a :class:`JavaClass`: its signature, full name,
annotations, parents from ``extends`` and ``implements``, member variables with
their initialisations, and each method's signature, annotations, Javadoc and
declaration. :mod:`benchsmith.builders.classbench.metadata` renders it, as it renders a
Python class, into DETAILED and SKETCHY metadata (RepoClassBench paper, Table 14).

Every piece is sliced from the source as written, by the positions of
javalang's tokens: the class body is cut into its members at the separators
of nesting depth zero, so comments, formatting and generics come out exactly
as the author wrote them. Constructors count as methods (Java has no
``__init__``); enum constants are listed with the member variables; nested
types and initialiser blocks are not methods and are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import javalang
from javalang.tokenizer import JavaToken, LexerError

from benchsmith.core.errors import BenchsmithError

_TYPE_KEYWORDS = {"class", "interface", "enum"}
_OPENERS, _CLOSERS = "({[", ")}]"
_JAVADOC = re.compile(r"/\*\*(?!/)(.*?)\*/", re.DOTALL)


@dataclass(frozen=True)
class JavaMethod:
    name: str
    signature: str  # modifiers, type parameters, return type, name, parameters, throws; on one line
    annotations: list[str]
    javadoc: str  # the comment's text, without its /** */ and leading stars
    declaration: str  # the method as written (without annotations and Javadoc): DETAILED's "Function body"


@dataclass(frozen=True)
class JavaClass:
    name: str
    kind: str  # class, interface, enum, @interface
    qualified_name: str
    signature: str
    annotations: list[str]
    parents: list[str]
    members: list[str]  # fields with their initialisations, enum constants; each as written
    methods: list[JavaMethod]


# --- the source, cut into declarations ------------------------------------------------------------------------------


class _Source:
    """The text and its tokens, each token with its offset into the text."""

    def __init__(self, text: str, where: str) -> None:
        self.text, self.where = text, where
        try:
            self.tokens: list[JavaToken] = list(javalang.tokenizer.tokenize(text))
            javalang.parser.Parser(list(self.tokens)).parse_compilation_unit()
        except (LexerError, javalang.parser.JavaSyntaxError) as exc:
            token = getattr(exc, "at", None)
            at = f" at line {token.position.line}, near {token.value!r}" if getattr(token, "position", None) else ""
            why = getattr(exc, "description", None) or str(exc) or type(exc).__name__
            raise BenchsmithError(f"{where}: not Java that javalang 0.13 parses{at} ({why})") from None
        line_starts = [0]
        for match in re.finditer("\n", text):
            line_starts.append(match.end())
        self.starts = [line_starts[t.position.line - 1] + t.position.column - 1 for t in self.tokens]

    def start(self, index: int) -> int:
        return self.starts[index]

    def end(self, index: int) -> int:
        return self.starts[index] + len(self.tokens[index].value)

    def value(self, index: int) -> str:
        return self.tokens[index].value

    def slice(self, first: int, last: int) -> str:
        """The text from token *first* to token *last*, both included."""
        return self.text[self.start(first) : self.end(last)]


def _matching(src: _Source, index: int) -> int:
    """The index of the bracket closing the one at *index*."""
    depth = 0
    for i in range(index, len(src.tokens)):
        value = src.value(i)
        if isinstance(src.tokens[i], javalang.tokenizer.Separator):
            depth += (value in _OPENERS) - (value in _CLOSERS)
            if depth == 0:
                return i
    raise BenchsmithError(f"{src.where}: unbalanced {src.value(index)!r} at line {src.tokens[index].position.line}")


def _segments(src: _Source, first: int, stop: int) -> list[tuple[int, int]]:
    """The declarations between tokens *first* and *stop* (exclusive), as (first, last) token ranges.

    A declaration ends at a ``;`` of depth zero, or at the ``}`` closing its
    first block unless an ``=`` came before that block (a field initialised
    with an array or an anonymous class, which goes on to its ``;``; so does
    an annotation element's ``default {…}``).
    """
    segments, start, i, assigned = [], first, first, False
    while i < stop:
        value, separator = src.value(i), isinstance(src.tokens[i], javalang.tokenizer.Separator)
        if separator and value in "({[":
            close = _matching(src, i)
            if value == "{" and not assigned:
                segments.append((start, close))
                start, i, assigned = close + 1, close + 1, False
                continue
            i = close + 1
            continue
        if separator and value in (";", ","):
            if value == ";" or _in_enum_constants(src, start):
                if value == "," or i > start or not segments:
                    segments.append((start, i))
                start, assigned = i + 1, False
        elif value == "=" and isinstance(src.tokens[i], javalang.tokenizer.Operator):
            assigned = True
        elif value == "default" and i > first and src.value(i - 1) == ")":
            assigned = True  # an annotation element's default value, {1, 2} included, goes on to its ";"
        i += 1
    if start < stop:
        segments.append((start, stop - 1))
    return [(a, b) for a, b in segments if not (a == b and src.value(a) == ";")]


def _in_enum_constants(src: _Source, start: int) -> bool:
    return getattr(src, "enum_constants_until", -1) > start


@dataclass
class _TypeDeclaration:
    first: int  # its first token (annotations included)
    keyword: int  # class / interface / enum / @ of @interface
    name: int
    body_open: int
    body_close: int


def _type_declaration(src: _Source, first: int, last: int) -> _TypeDeclaration | None:
    """The type declared by the tokens first..last, if they declare one."""
    i = first
    while i <= last:
        value = src.value(i)
        if value == "@" and i + 1 <= last and src.value(i + 1) == "interface":
            keyword, i = i, i + 1
            break
        if value == "@":
            i = _skip_annotation(src, i)
            continue
        if value in _TYPE_KEYWORDS and isinstance(src.tokens[i], javalang.tokenizer.Keyword):
            keyword = i
            break
        if not isinstance(src.tokens[i], javalang.tokenizer.Modifier):
            return None
        i += 1
    else:
        return None
    name = i + 1
    body_open = name
    while src.value(body_open) != "{":
        body_open = _matching(src, body_open) if src.value(body_open) == "(" else body_open + 1
    return _TypeDeclaration(first, keyword, name, body_open, _matching(src, body_open))


def _skip_annotation(src: _Source, at: int) -> int:
    """The index after the annotation starting with the ``@`` at *at*: its dotted name and arguments."""
    i = at + 1
    while i + 2 < len(src.tokens) and src.value(i + 1) == ".":
        i += 2
    i += 1
    if i < len(src.tokens) and src.value(i) == "(":
        i = _matching(src, i) + 1
    return i


def _find_type(src: _Source, first: int, stop: int, name: str) -> _TypeDeclaration | None:
    """The declaration of *name* among the segments first..stop, top level first, then nested ones."""
    nested = []
    for a, b in _segments(src, first, stop):
        declaration = _type_declaration(src, a, b)
        if declaration is None:
            continue
        if src.value(declaration.name) == name:
            return declaration
        nested.append(declaration)
    for declaration in nested:
        found = _find_type(src, declaration.body_open + 1, declaration.body_close, name)
        if found is not None:
            return found
    return None


# --- one class ------------------------------------------------------------------------------------------------------


def analyse_java_class(source: str, class_name: str, where: str = "<source>") -> JavaClass:
    """The metadata facts of *class_name* in *source*; an error names *where* when it is not declared there."""
    src = _Source(source, where)
    declaration = _find_type(src, 0, len(src.tokens), class_name)
    if declaration is None:
        raise BenchsmithError(f"{where}: declares no class, interface or enum named {class_name!r}")
    kind = "@interface" if src.value(declaration.keyword) == "@" else src.value(declaration.keyword)
    annotations, modifiers_at = _leading_annotations(src, declaration.first, declaration.keyword)
    signature = _one_line(src.text[src.start(modifiers_at) : src.start(declaration.body_open)])
    body_first, members, methods = declaration.body_open + 1, [], []
    if kind == "enum":
        constants_end = _enum_constants_end(src, body_first, declaration.body_close)
        src.enum_constants_until = constants_end  # type: ignore[attr-defined]
        for a, b in _segments(src, body_first, constants_end):
            if src.value(b) == ",":
                b -= 1
            if b >= a:
                members.append(_member_text(src, a, b))
        body_first = constants_end + 1
        src.enum_constants_until = -1  # type: ignore[attr-defined]
    previous_end = src.end(body_first - 1)
    for a, b in _segments(src, body_first, declaration.body_close):
        javadoc = _javadoc_before(src, previous_end, src.start(a))
        previous_end = src.end(b)
        if _type_declaration(src, a, b) is not None or _is_initialiser(src, a):
            continue
        parenthesis = _method_parenthesis(src, a, b)
        if parenthesis is None:
            members.append(_member_text(src, a, b))
            continue
        method_annotations, start = _leading_annotations(src, a, parenthesis)
        body = _method_body_open(src, parenthesis, b)
        signature_end = src.start(body) if body is not None else src.start(b)
        methods.append(
            JavaMethod(
                name=src.value(parenthesis - 1),
                signature=_one_line(src.text[src.start(start) : signature_end]),
                annotations=method_annotations,
                javadoc=javadoc,
                declaration=_dedented(src, start, b),
            )
        )
    package = _package(src)
    outer = _enclosing_names(src, declaration)
    qualified = ".".join(part for part in (package, *outer, class_name) if part)
    return JavaClass(class_name, kind, qualified, signature, annotations, _parents(src, declaration), members, methods)


def _leading_annotations(src: _Source, first: int, stop: int) -> tuple[list[str], int]:
    """The annotations written before the first modifier or type (as written), and the index after them."""
    annotations, i = [], first
    while i < stop and src.value(i) == "@" and src.value(i + 1) != "interface":
        after = _skip_annotation(src, i)
        annotations.append(_one_line(src.slice(i, after - 1)))
        i = after
    return annotations, i


def _enum_constants_end(src: _Source, first: int, close: int) -> int:
    """The index of the ``;`` ending an enum's constants (or of its closing brace when there is none)."""
    i = first
    while i < close:
        value = src.value(i)
        if value in ("(", "{"):
            i = _matching(src, i) + 1
            continue
        if value == ";":
            return i
        i += 1
    return close


def _is_initialiser(src: _Source, first: int) -> bool:
    return src.value(first) == "{" or (src.value(first) == "static" and src.value(first + 1) == "{")


def _method_parenthesis(src: _Source, first: int, last: int) -> int | None:
    """The ``(`` opening a method's parameters: the first of depth zero, before any ``=``; None for a field."""
    i = first
    while i <= last:
        value = src.value(i)
        if value == "@":
            i = _skip_annotation(src, i)
            continue
        if value == "=":
            return None
        if value == "(":
            return i if isinstance(src.tokens[i - 1], javalang.tokenizer.Identifier) else None
        if value in ("{", "["):
            i = _matching(src, i) + 1
            continue
        i += 1
    return None


def _method_body_open(src: _Source, parenthesis: int, last: int) -> int | None:
    """The ``{`` of the method's body after its parameters and ``throws``; None for an abstract method."""
    i = _matching(src, parenthesis) + 1
    while i <= last:
        if src.value(i) == "default":
            return None  # an annotation element: what follows is its default value
        if src.value(i) == "{":
            return i
        if src.value(i) == "@":
            i = _skip_annotation(src, i)
            continue
        i += 1
    return None


def _member_text(src: _Source, first: int, last: int) -> str:
    """A field or enum constant as written, its annotations on its first line, its further lines indented deeper.

    Deeper indentation is what tells a reader of the metadata (``benchsmith.generation.models.template``) where one
    member ends.
    """
    annotations, start = _leading_annotations(src, first, last)
    lines = _dedented(src, start, last).split("\n")
    head = " ".join([*annotations, lines[0]])
    return "\n".join([head, *(f"        {line}" if line.strip() else "" for line in lines[1:])])


def _dedented(src: _Source, first: int, last: int) -> str:
    """Tokens first..last as written, less the indentation of the line the first one starts on."""
    text = src.slice(first, last)
    indent = src.tokens[first].position.column - 1
    line_start = src.start(first) - indent
    prefix = src.text[line_start : src.start(first)]
    lines = text.split("\n")
    if prefix.strip():  # the declaration shares its line with other code: keep the lines as they are
        return text
    return "\n".join([lines[0], *(_drop_indent(line, prefix) for line in lines[1:])])


def _drop_indent(line: str, prefix: str) -> str:
    if line.startswith(prefix):
        return line[len(prefix) :]
    return line.lstrip(" \t") if not line[: len(prefix)].strip() else line


def _javadoc_before(src: _Source, start: int, end: int) -> str:
    """The text of the last Javadoc comment between offsets *start* and *end*, stars and tags kept as lines."""
    comments = list(_JAVADOC.finditer(src.text, start, end))
    if not comments:
        return ""
    lines = [re.sub(r"^\s*\*? ?", "", line).rstrip() for line in comments[-1].group(1).split("\n")]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def _parents(src: _Source, declaration: _TypeDeclaration) -> list[str]:
    """The types after ``extends`` and ``implements``, as written, split at the commas outside ``<>``."""
    parents, current, depth, collecting = [], [], 0, False
    for i in range(declaration.name + 1, declaration.body_open):
        value = src.value(i)
        if value in ("extends", "implements") and depth == 0:
            collecting = True
            if current:
                parents.append(current)
            current = []
            continue
        if value == "<":
            depth += 1
        elif value in (">", ">>", ">>>"):
            depth -= len(value)
        if not collecting:
            continue
        if value == "," and depth == 0:
            parents.append(current)
            current = []
        else:
            current.append(i)
    if current:
        parents.append(current)
    return [_one_line(src.slice(p[0], p[-1])) for p in parents if p]


def _package(src: _Source) -> str:
    for i, token in enumerate(src.tokens):
        if token.value == "package" and isinstance(token, javalang.tokenizer.Keyword):
            end = i
            while src.value(end) != ";":
                end += 1
            return "".join(src.value(j) for j in range(i + 1, end))
        if token.value in _TYPE_KEYWORDS or token.value == "import":
            return ""
    return ""


def _enclosing_names(src: _Source, declaration: _TypeDeclaration) -> list[str]:
    """The names of the types enclosing a nested declaration, outermost first."""
    names: list[str] = []
    first, stop = 0, len(src.tokens)
    while True:
        for a, b in _segments(src, first, stop):
            outer = _type_declaration(src, a, b)
            if outer is None or not (outer.body_open < declaration.first and declaration.body_close < outer.body_close):
                continue
            names.append(src.value(outer.name))
            first, stop = outer.body_open + 1, outer.body_close
            break
        else:
            return names


def _one_line(text: str) -> str:
    """Line breaks and the indentation after them become one space; other spacing is kept as written."""
    return re.sub(r"\s*\n\s*", " ", text.strip())
