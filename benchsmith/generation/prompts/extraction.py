"""The code in a model's answer: one Java method for NL2Fix, one Python class (with its imports) for RepoClassBench.

Chat models wrap code in prose, fences (labelled or not, sometimes several),
whole classes and explanations. Fences and line patterns only say where to
look; the final boundaries come from a parser (javalang for Java, ``ast``
for Python), so a brace in a string or a ``}`` in an explanation cannot cut
a method short. When nothing plausible is found the answer itself is
returned, stripped, and the harness reports it as uncompilable.
"""

from __future__ import annotations

import ast
import functools
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

import javalang

from benchsmith.core.bounds import PARSER_LIMITS, unreadable
from benchsmith.core.errors import BenchsmithError, JavaParseError
from benchsmith.sources.java.class_file import java_unit
from benchsmith.sources.java.source import MethodUnit, analyse_java

# Possessive: the info string and the rest of the line overlap, and a backtracking match of a long line that ends
# in a backtick took time quadratic in its length (red team round 6: 16 KB, 2 s; 1 MB, hours).
_FENCE = re.compile(r"^[ \t]{0,3}((?>`{3,}|~{3,}))[ \t]*+([^\s`]*+)[^`]*+$")
_WRAPPER = "class BenchsmithExtractionWrapper {\n%s\n}\n"
SCAN_READS, SCAN_SLACK = 2, 65_536  # what the declaration scan reads at most: twice the text, and 64 KB
_JAVA_ERRORS = (JavaParseError, javalang.tokenizer.LexerError, javalang.parser.JavaSyntaxError, TypeError, IndexError)


@dataclass(frozen=True)
class Extraction:
    code: str
    found: bool  # False: nothing plausible, ``code`` is the stripped answer
    reason: str  # where the code came from, or why nothing was found


@dataclass(frozen=True)
class _Region:
    text: str
    where: str  # "fenced block 2 of 3", "the answer"


def _regions(answer: str) -> list[_Region]:
    """Fenced blocks in order (an unclosed last fence runs to the end), then the whole answer without fence lines."""
    text = answer.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    blocks: list[str] = []
    opening: str | None = None
    body: list[str] = []
    for line in lines:
        fence = _FENCE.match(line)
        if opening is None and fence:
            opening, body = fence.group(1), []
        elif (
            opening is not None
            and fence
            and fence.group(1)[0] == opening[0]
            and len(fence.group(1)) >= len(opening)
            and not fence.group(2)
        ):
            blocks.append("\n".join(body))
            opening = None
        elif opening is not None:
            body.append(line)
    if opening is not None and body:
        blocks.append("\n".join(body))
    found = [_Region(b, f"fenced block {n} of {len(blocks)}") for n, b in enumerate(blocks, start=1)]
    unfenced = "\n".join(line for line in lines if not _FENCE.match(line))
    return found + [_Region(unfenced, "the answer" if not blocks else "the answer outside fences")]


# ---------------------------------------------------------------- Java


@dataclass(frozen=True)
class _Found:
    unit: MethodUnit
    source: str  # the text the unit's positions refer to
    where: str


def _bounded(extract: Callable[..., Extraction]) -> Callable[..., Extraction]:
    """*extract*, refusing an answer the harness's parsers do not read (:mod:`benchsmith.core.bounds`): the answer
    gets an extraction that found nothing, with the reason, and generation goes on with the next."""

    @functools.wraps(extract)
    def bounded(answer: str, *args, **kwargs) -> Extraction:
        if too_much := unreadable(answer):
            return Extraction(answer.strip(), False, f"not read: {too_much}")
        try:
            return extract(answer, *args, **kwargs)
        except PARSER_LIMITS as exc:
            return Extraction(answer.strip(), False, f"not read: the harness's parser gave up ({type(exc).__name__})")

    return bounded


@_bounded
def extract_java_method(answer: str, method_name: str, buggy_method: str = "") -> Extraction:
    """Exactly one method (or constructor) declaration named *method_name* from *answer*.

    When the answer overloads the name, the declaration whose parameter types
    are those of *buggy_method* wins; among equals the last one does, since
    chatty answers quote the original before the fix.
    """
    *fenced, whole = _regions(answer)
    found = [
        _Found(unit, source, region.where)
        for region in fenced
        for unit, source in _java_units(region.text, method_name)
    ]
    if not any(f.unit.name == method_name for f in found):
        # No fence holds the method: look in the answer as a whole (no fences at all, or a fence left unclosed).
        found += [_Found(unit, source, whole.where) for unit, source in _java_units(whole.text, method_name)]
    named = [f for f in found if f.unit.name == method_name]
    if named:
        return _choose_overload(named, method_name, _parameter_types(buggy_method, method_name))
    others = {f.unit.signature: f for f in found}
    if len(others) == 1:
        (only,) = others.values()
        reason = f"no method named {method_name}; took the only method, {only.unit.name}, from {only.where}"
        return Extraction(only.unit.text(only.source), True, reason)
    if others:
        names = ", ".join(sorted({f.unit.name for f in others.values()}))
        return Extraction(answer.strip(), False, f"no method named {method_name} among the methods found ({names})")
    return Extraction(answer.strip(), False, "no Java method declaration in the answer")


def _choose_overload(named: list[_Found], method_name: str, wanted: tuple[str, ...] | None) -> Extraction:
    matching = [f for f in named if f.unit.parameter_types == wanted]
    chosen = (matching or named)[-1]
    notes = []
    if len(named) > 1:
        notes.append(
            f"{len(named)} declarations of {method_name}, took the last{' with matching parameters' * bool(matching)}"
        )
    if wanted is not None and not matching:
        notes.append(f"parameters ({', '.join(chosen.unit.parameter_types)}) differ from the buggy method's")
    reason = f"method {method_name} from {chosen.where}" + (f" ({'; '.join(notes)})" if notes else "")
    return Extraction(chosen.unit.text(chosen.source), True, reason)


def _java_units(text: str, method_name: str) -> list[tuple[MethodUnit, str]]:
    """Method declarations in *text*: as a compilation unit, as class members, or scanned out of prose."""
    for source in (text, _WRAPPER % text):
        try:
            units = analyse_java(source).units
        except _JAVA_ERRORS:
            continue
        if units:
            return [(unit, source) for unit in units]
    return _scan_declarations(text, method_name)


def _scan_declarations(text: str, method_name: str) -> list[tuple[MethodUnit, str]]:
    """Declarations of *method_name* in text that does not parse as a whole (prose around the code).

    A line naming the method starts a try; javalang tokenizes lazily from there
    and the declaration ends at the brace that closes its body, before any prose
    that would not tokenize. The tries share a budget (:data:`SCAN_READS` times
    the text, and :data:`SCAN_SLACK`) of what they read: lines naming the method
    one after another made each try tokenize the rest of the text again, time
    quadratic in its length (red team round 6: 32 KB of ``compute()`` lines took
    over 20 s, 1 MB days). Past the budget, declarations further down are not
    looked for.
    """
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    call = re.compile(rf"\b{re.escape(method_name)}\s*\(")
    found: list[tuple[MethodUnit, str]] = []
    covered_until = -1
    budget = SCAN_READS * len(text) + SCAN_SLACK
    for index, line in enumerate(lines):
        if index <= covered_until or not call.search(line):
            continue
        # The header may begin a line early ("public static <T> List<T>\n    name(...) {"); try that first,
        # since javalang reads a bare "name(...) {...}" as a constructor.
        for start in (index - 1, index):
            if start < 0 or not lines[start].strip():
                continue
            while start > 0 and lines[start - 1].lstrip().startswith("@"):
                start -= 1
            start = max(start, 0)
            if budget <= 0:
                return found
            declared, read = _declaration_at(text[offsets[start] :], start, offsets)
            budget -= read
            if declared is not None:
                found.append(declared[:2])
                covered_until = declared[2]
                break
    return found


def _declaration_at(rest: str, start: int, offsets: list[int]) -> tuple[tuple[MethodUnit, str, int] | None, int]:
    """The one declaration at the head of *rest* (the text from line *start* on, *offsets* the text's line offsets):
    its wrapped source and its last line index, or None; and about how many characters javalang read for it (its
    decoding of the whole of *rest* counted at a sixty-fourth: it is that much cheaper than tokenizing)."""
    piece, read = _declaration_text(rest, lambda line, column: offsets[start + line - 1] - offsets[start] + column)
    read += len(rest) // 64
    if piece is None:
        return None, read
    source = _WRAPPER % textwrap.dedent(piece)
    read += 2 * len(source)
    try:
        units = analyse_java(source).units
    except _JAVA_ERRORS:
        return None, read
    return ((units[0], source, start + piece.count("\n")) if len(units) == 1 else None), read


def _declaration_text(text: str, offset: Callable[[int, int], int]) -> tuple[str | None, int]:
    """*text* up to the brace closing the first body opened outside parentheses, None when a ``;`` comes first;
    and how far into *text* the tokenizer read (*offset* maps a token's line and column to a character offset)."""
    parens = braces = 0
    position = None
    try:
        for token in javalang.tokenizer.tokenize(text):
            position = token.position
            value = token.value
            if value == "(":
                parens += 1
            elif value == ")":
                parens -= 1
            elif value == ";" and parens == 0 and braces == 0:
                return None, offset(position.line, position.column)
            elif value == "{":
                braces += 1
            elif value == "}":
                braces -= 1
                if braces == 0:
                    return _cut_after(text, position.line, position.column), offset(position.line, position.column)
    except _JAVA_ERRORS as exc:
        if str(exc).startswith("Unterminated"):  # a literal or comment left open: read to the end
            return None, len(text)
        return None, offset(position.line, position.column) if position is not None else 0
    return None, len(text)


def _cut_after(text: str, line: int, column: int) -> str:
    lines = text.split("\n")
    return "\n".join(lines[: line - 1] + [lines[line - 1][:column]])


def _parameter_types(method: str, method_name: str) -> tuple[str, ...] | None:
    if not method.strip():
        return None
    try:
        units = analyse_java(_WRAPPER % method).units
    except _JAVA_ERRORS:
        return None
    named = [u for u in units if u.name == method_name] or list(units)
    return named[0].parameter_types if named else None


# ---------------------------------------------------------------- Python


@_bounded
def extract_python_class(answer: str, class_name: str) -> Extraction:
    """The module-level class *class_name* from *answer*, preceded by the import lines the answer put above it."""
    *fenced, whole = _regions(answer)
    earlier_imports: list[str] = []
    chosen: tuple[str, list[str], list[str], str] | None = None
    for region in fenced:
        module = _python_module(region.text, class_name)
        if module is None:
            continue
        imports, class_text, left_out = module
        if class_text is not None:  # a later fence with the class wins: answers show the final version last
            chosen = (class_text, earlier_imports + imports, left_out, region.where)
        earlier_imports.extend(imports)  # imports may come in a fence of their own before the class
    if chosen is None:
        module = _python_module(whole.text, class_name)
        if module is not None and module[1] is not None:
            imports, class_text, left_out = module
            chosen = (class_text, earlier_imports + imports, left_out, whole.where)
    if chosen is None:
        return Extraction(answer.strip(), False, f"no class {class_name} in the answer")
    class_text, imports, left_out, where = chosen
    imports = list(dict.fromkeys(imports))
    code = "\n".join(imports) + ("\n\n" if imports else "") + class_text
    reason = f"class {class_name} from {where} with {len(imports)} import line{'s' if len(imports) != 1 else ''}"
    if left_out:
        reason += f" (left out: {', '.join(left_out)})"
    return Extraction(code, True, reason)


def _python_module(text: str, class_name: str) -> tuple[list[str], str | None, list[str]] | None:
    """(imports above the class, the class's source or None, other definitions left out), or None when unusable."""
    try:
        module = ast.parse(text)
        lines = text.split("\n")
    except SyntaxError:
        text = _class_region(text, class_name)
        if text is None:
            return None
        try:
            module = ast.parse(text)
        except SyntaxError:
            return None
        lines = text.split("\n")
    imports: list[str] = []
    class_text = None
    left_out: list[str] = []
    for node in module.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name and class_text is None:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            class_text = "\n".join(lines[start - 1 : node.end_lineno])
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and class_text is None:
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                left_out.append("a __future__ import (only legal at the top of a module)")
            else:
                imports.append("\n".join(lines[node.lineno - 1 : node.end_lineno]))
        elif isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            left_out.append(f"{'class' if isinstance(node, ast.ClassDef) else 'def'} {node.name}")
    return imports, class_text, left_out


def _class_region(text: str, class_name: str) -> str | None:
    """Import lines and the class, cut out of prose by indentation, dedented; None without such a class."""
    lines = text.split("\n")
    header = re.compile(rf"^(\s*)class\s+{re.escape(class_name)}\b")
    for index, line in enumerate(lines):
        match = header.match(line)
        if not match:
            continue
        indent = len(match.group(1))
        start = index
        while start > 0 and lines[start - 1].startswith(" " * indent + "@"):
            start -= 1
        end = index + 1
        while end < len(lines) and _inside(lines[end], indent):
            end += 1
        body = lines[start:end]
        while body and not body[-1].strip():
            body.pop()
        imports = _import_lines(lines[:start], indent)
        class_text = textwrap.dedent("\n".join(body))
        return "\n".join(imports + ["", class_text]) if imports else class_text
    return None


def _inside(line: str, indent: int) -> bool:
    stripped = line.strip()
    if not stripped:
        return True
    depth = len(line) - len(line.lstrip())
    return depth > indent or (depth == indent and stripped[0] in ")]}")


def _import_lines(lines: list[str], indent: int) -> list[str]:
    """Import statements (parenthesised ones over several lines too) at *indent*, each checked by ``ast``."""
    found: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        index += 1
        if len(line) - len(line.lstrip()) != indent or not re.match(
            r"(import\s+\w|from\s+\.*[\w.]*\s+import\s)", stripped
        ):
            continue
        statement = [line]
        closed = ")" in line  # noted line by line: joining the statement again for each line was quadratic
        while "(" in stripped and not closed and index < len(lines):
            statement.append(lines[index])
            closed = ")" in lines[index]
            index += 1
        candidate = textwrap.dedent("\n".join(statement))
        try:
            ast.parse(candidate)
        except SyntaxError:
            continue
        found.append(candidate)
    return found


@_bounded
def extract_java_class(answer: str, class_name: str) -> Extraction:
    """A whole Java file declaring the top-level class *class_name* (package, imports, the class), from the last
    fenced block that holds one, else from the answer outside fences."""
    *fenced, whole = _regions(answer)
    for region in [*reversed(fenced), whole]:
        try:
            unit = java_unit(region.text, region.where)
        except BenchsmithError:
            continue
        if any(t.name == class_name for t in unit.types):
            return Extraction(region.text.strip() + "\n", True, f"file declaring {class_name} from {region.where}")
    return Extraction(answer.strip(), False, f"no top-level class {class_name} in the answer")
