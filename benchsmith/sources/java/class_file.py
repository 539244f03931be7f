"""A Java file as a whole-class task sees it: its package, its top-level types, the class reduced to an empty shell.

Token-based (javalang's tokenizer, which reads every Java release's tokens well
enough for this), not parser-based: candidates and repositories written for
Java 11 and later (``var``, records, text blocks) must not be rejected because
the parser knows Java 8 only.
"""

from __future__ import annotations

from dataclasses import dataclass

from javalang.tokenizer import JavaToken, LexerError, tokenize

from benchsmith.core.errors import BenchsmithError

_TYPE_KEYWORDS = ("class", "interface", "enum")


@dataclass(frozen=True)
class TopLevelType:
    name: str
    kind: str  # class, interface, enum, @interface, record
    start: int  # character offset of its first modifier or annotation
    open_brace: int  # character offset of its body's "{"
    end: int  # character offset just past its body's "}"


@dataclass(frozen=True)
class JavaUnit:
    package: str
    types: list[TopLevelType]


def _tokens(code: str, where: str) -> list[JavaToken]:
    try:
        return list(tokenize(code))
    except (LexerError, TypeError, ValueError) as exc:
        raise BenchsmithError(f"{where}: cannot read the Java tokens: {exc}") from None


def _offsets(code: str) -> list[int]:
    starts, at = [0], 0
    for line in code.splitlines(keepends=True):
        at += len(line)
        starts.append(at)
    return starts


def java_unit(code: str, where: str = "<source>") -> JavaUnit:
    """The package and the top-level types of a Java file (an error naming *where* when it cannot be tokenized)."""
    tokens = _tokens(code, where)
    lines = _offsets(code)

    def offset(token: JavaToken) -> int:
        return lines[token.position.line - 1] + token.position.column - 1

    package, types, depth, i, declaration_start = "", [], 0, 0, None
    parentheses = 0
    while i < len(tokens):
        token = tokens[i]
        value = token.value
        if depth == 0 and parentheses == 0:
            if value == "package" and not package:
                j = i + 1
                parts = []
                while j < len(tokens) and tokens[j].value != ";":
                    parts.append(tokens[j].value)
                    j += 1
                package = "".join(parts)
                i = j + 1
                continue
            if declaration_start is None and value not in (";",) and value != "import":
                declaration_start = offset(token)
            if value == "import":
                while i < len(tokens) and tokens[i].value != ";":
                    i += 1
                i += 1
                declaration_start = None
                continue
            kind = None
            if value in _TYPE_KEYWORDS and i + 1 < len(tokens) and type(tokens[i + 1]).__name__ == "Identifier":
                kind = "@interface" if i > 0 and tokens[i - 1].value == "@" else value
            elif (
                value == "record"
                and i + 2 < len(tokens)
                and type(tokens[i + 1]).__name__ == "Identifier"
                and tokens[i + 2].value in ("(", "<")
            ):
                kind = "record"
            if kind is not None:
                name = tokens[i + 1].value
                j = i + 2
                while j < len(tokens) and tokens[j].value != "{":
                    j += 1
                if j == len(tokens):
                    raise BenchsmithError(f"{where}: the body of {name} never opens")
                close = _matching(tokens, j, where)
                types.append(
                    TopLevelType(
                        name,
                        kind,
                        declaration_start if declaration_start is not None else offset(token),
                        offset(tokens[j]),
                        offset(tokens[close]) + 1,
                    )
                )
                declaration_start = None
                i = close + 1
                continue
        if value == "(":
            parentheses += 1
        elif value == ")":
            parentheses -= 1
        elif value == "{":
            depth += 1
        elif value == "}":
            depth -= 1
        i += 1
    return JavaUnit(package, types)


def _matching(tokens: list[JavaToken], open_index: int, where: str) -> int:
    depth = 0
    for index in range(open_index, len(tokens)):
        if tokens[index].value == "{":
            depth += 1
        elif tokens[index].value == "}":
            depth -= 1
            if depth == 0:
                return index
    raise BenchsmithError(f"{where}: a '{{' at line {tokens[open_index].position.line} is never closed")


def empty_shell(code: str, class_name: str, where: str = "<source>") -> str:
    """The file with the class *class_name* emptied: package, imports, comments, the declaration, no members.

    The other top-level types of the file are left as they are."""
    unit = java_unit(code, where)
    found = next((t for t in unit.types if t.name == class_name), None)
    if found is None:
        raise BenchsmithError(f"{where}: declares no top-level type {class_name}")
    body = "{\n    ;\n}" if found.kind == "enum" else "{\n}"
    return code[: found.open_brace] + body + code[found.end :]
