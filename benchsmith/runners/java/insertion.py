"""Candidate methods: is it one method declaration, where does it go, and which candidates are the same."""

from __future__ import annotations

import hashlib
import json

import javalang

from benchsmith.core.bounds import PARSER_LIMITS, unreadable
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import NL2FixInstance
from benchsmith.sources.java.source import analyse_java, lines_with_ends

_WRAPPER = "class BenchsmithCandidate {\n%s\n}\n"
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_JAVA_WHITE_SPACE = frozenset(" \t\f\n")  # JLS 3.6, once every line terminator is "\n"


class UnreadableJava(ValueError):
    """Text that cannot be read the way javac reads it; the message says where and why."""


def javac_text(code: str) -> str:
    """*code* as javac's lexer receives it: Unicode escapes translated (JLS 3.3), every line terminator ``\\n`` (JLS
    3.4).

    The translation is javac 17's (``UnicodeReader``): a backslash begins an
    escape unless an odd number of raw backslashes precede it; a backslash an
    escape produces never begins one itself, nor makes the raw backslash after
    it ineligible; any number of ``u`` then exactly four hexadecimal digits.
    ``\\r\\n``, ``\\r`` and ``\\n``, raw or escaped, all become ``\\n``: javac ends a
    ``//`` comment at any of them, javalang only at ``\\n``. Raises
    :class:`UnreadableJava` for a malformed escape (javac rejects it too) and
    for one written with non-ASCII digits (javac reads those; benchsmith does not).
    """
    out: list[str] = []
    i, n = 0, len(code)
    was_backslash = was_escape = False
    while i < n:
        c = code[i]
        if c == "\\" and (not was_backslash or was_escape):
            j = i + 1
            while j < n and code[j] == "u":
                j += 1
            if j == i + 1:  # a plain backslash
                out.append(c)
                was_escape, was_backslash = False, not was_backslash
                i += 1
                continue
            digits = code[j : j + 4]
            if len(digits) < 4 or not all(d in _HEX_DIGITS for d in digits):
                raise UnreadableJava(f"illegal unicode escape {code[i : j + 4]!r} at character {i + 1}")
            produced = chr(int(digits, 16))
            out.append(produced)
            was_escape, was_backslash = True, produced == "\\" and not was_backslash
            i = j + 4
        else:
            out.append(c)
            was_escape = was_backslash = False
            i += 1
    text = "".join(out).replace("\r\n", "\n").replace("\r", "\n")
    return text.encode("utf-16-le", "surrogatepass").decode(
        "utf-16-le", "surrogatepass"
    )  # escaped surrogate pairs joined


class _JavacTokenizer(javalang.tokenizer.JavaTokenizer):
    """javalang's tokenizer held to javac's terms, on text :func:`javac_text` has already translated."""

    def pre_tokenize(self) -> None:
        # javalang's own escape translation is laxer than javac's (int() takes "+00a") and would translate twice.
        self.length = len(self.data)

    def consume_whitespace(self) -> None:
        start = self.i
        super().consume_whitespace()  # skips whatever Python calls white space
        stray = next((c for c in self.data[start : self.i] if c not in _JAVA_WHITE_SPACE), None)
        if stray is not None:
            raise UnreadableJava(f"U+{ord(stray):04X} between tokens is not white space to javac")


def javac_tokens(code: str) -> list[javalang.tokenizer.JavaToken]:
    """The tokens of *code* as javac reads them (comments and white space dropped), or :class:`UnreadableJava`."""
    try:
        tokens = list(_JavacTokenizer(javac_text(code)).tokenize())
    except (javalang.tokenizer.LexerError, TypeError, IndexError) as exc:
        raise UnreadableJava(str(exc) or type(exc).__name__) from None
    for token in tokens:
        if isinstance(token, javalang.tokenizer.String) and "\n" in token.value:
            raise UnreadableJava(f"a line terminator inside the literal {token.value[:40]!r}")
    return tokens


def is_single_method(code: str) -> tuple[bool, str]:
    """Whether *code* is exactly one method or constructor declaration, with the reason when not.

    Decided on the tokens javac reads (:func:`javac_tokens`), so nothing hides
    from the check in a comment javac ends earlier than javalang would.
    """
    if too_much := unreadable(code):
        return False, f"does not parse as a Java method: {too_much}"
    try:
        tokens = javac_tokens(_WRAPPER % code)
    except UnreadableJava as exc:
        return False, f"does not parse as a Java method: {exc}"
    try:
        unit = javalang.parser.Parser(tokens).parse()
    except (javalang.parser.JavaSyntaxError, TypeError, IndexError) as exc:
        detail = getattr(exc, "description", None) or type(exc).__name__
        return False, f"does not parse as a Java method: {detail}"
    except PARSER_LIMITS as exc:  # a shape the scan does not measure: the parser's own limit, this candidate's alone
        return False, f"does not parse as a Java method: the harness's parser gave up ({type(exc).__name__})"
    if len(unit.types) != 1:  # the candidate closed the wrapper and declared a type of its own
        return False, f"expected one method declaration, found {len(unit.types) - 1} more top-level type(s) after it"
    members = unit.types[0].body
    kinds = [
        "InitializerBlock" if isinstance(m, list) else type(m).__name__ for m in members
    ]  # javalang: a block is a list
    if len(members) != 1:
        return False, f"expected one method declaration, found {len(members)} members ({', '.join(kinds) or 'none'})"
    if kinds[0] not in ("MethodDeclaration", "ConstructorDeclaration"):
        return False, f"expected a method declaration, found a {kinds[0]}"
    if kinds[0] == "MethodDeclaration" and members[0].body is None:
        return False, "the method has no body"
    return True, ""


def dedup_key(code: str) -> str:
    """What makes two candidates the same program: their tokens as javac reads them, hashed.

    Comments and white space do not count; every token counts by its kind and
    text, encoded as a JSON list so no two sequences share an encoding. Text
    that javac cannot read the way benchsmith does is keyed by its exact
    bytes, so only an identical candidate shares its verdict.
    """
    exact = hashlib.sha256(b"java-bytes\0" + code.encode("utf-8", errors="surrogatepass")).hexdigest()
    if unreadable(code):
        return exact
    try:
        tokens = [[type(token).__name__, token.value] for token in javac_tokens(code)]
    except (UnreadableJava, *PARSER_LIMITS):
        return exact
    return hashlib.sha256(b"java-tokens\0" + json.dumps(tokens).encode("ascii")).hexdigest()


def add_imports(host_text: str, imports: tuple[str, ...] | list[str]) -> str:
    """*host_text* with *imports* appended to its last import line (no line moves), skipping names it already
    imports."""
    lines = lines_with_ends(host_text)
    present = {
        line.strip().rstrip(";").split()[-1].rsplit(".", 1)[-1] for line in lines if line.lstrip().startswith("import ")
    }
    wanted = [
        i for i in imports if i.rstrip(";").split()[-1].rsplit(".", 1)[-1] not in present or i.rstrip(";").endswith("*")
    ]
    if not wanted:
        return host_text
    anchor = max((n for n, line in enumerate(lines) if line.lstrip().startswith(("import ", "package "))), default=None)
    if anchor is None:
        return " ".join(wanted) + " " + host_text
    line = lines[anchor]
    ending = line[len(line.rstrip("\r\n")) :]
    lines[anchor] = line.rstrip("\r\n") + " " + " ".join(wanted) + ending
    return "".join(lines)


def split_host(host_text: str, instance: NL2FixInstance) -> tuple[str, str]:
    """The fixed file around its fixed method: the text before the method's first token and after its last.

    The method is found again by its signature and must sit at the recorded span,
    so a candidate replaces exactly the declaration, even where the line also
    holds something else.
    """
    java = analyse_java(host_text, f"{instance.instance_id}:{instance.file_path}")
    for unit in java.units:
        if unit.signature == instance.method_signature and unit.start_line == instance.fixed_method_start_line:
            if unit.end_line != instance.fixed_method_end_line:
                break
            offsets = _line_offsets(host_text)
            start = offsets[unit.start_line - 1] + unit.start_column - 1
            end = offsets[unit.end_line - 1] + unit.end_column
            return host_text[:start], host_text[end:]
    raise BenchsmithError(
        f"{instance.instance_id}: {instance.method_signature} is not at lines "
        f"{instance.fixed_method_start_line}-{instance.fixed_method_end_line} of {instance.file_path}"
    )


def _line_offsets(text: str) -> list[int]:
    offsets = [0]
    for line in lines_with_ends(text):
        offsets.append(offsets[-1] + len(line))
    return offsets
