"""Candidate methods: is it one method declaration, where does it go, and which candidates are the same."""

from __future__ import annotations

import hashlib

import javalang

from benchsmith.errors import BenchsmithError
from benchsmith.schema import NL2FixInstance
from builders.javasrc import analyse_java, lines_with_ends

_WRAPPER = "class BenchsmithCandidate {\n%s\n}\n"


def is_single_method(code: str) -> tuple[bool, str]:
    """Whether *code* is exactly one method or constructor declaration, with the reason when not."""
    try:
        unit = javalang.parse.parse(_WRAPPER % code)
    except (javalang.parser.JavaSyntaxError, javalang.tokenizer.LexerError, TypeError, IndexError) as exc:
        detail = getattr(exc, "description", None) or type(exc).__name__
        return False, f"does not parse as a Java method: {detail}"
    members = unit.types[0].body
    kinds = [type(m).__name__ for m in members]
    if len(members) != 1:
        return False, f"expected one method declaration, found {len(members)} members ({', '.join(kinds) or 'none'})"
    if kinds[0] not in ("MethodDeclaration", "ConstructorDeclaration"):
        return False, f"expected a method declaration, found a {kinds[0]}"
    if kinds[0] == "MethodDeclaration" and members[0].body is None:
        return False, "the method has no body"
    return True, ""


def dedup_key(code: str) -> str:
    """The candidate's token sequence (comments and white space ignored), hashed."""
    try:
        tokens = " ".join(token.value for token in javalang.tokenizer.tokenize(code))
    except (javalang.tokenizer.LexerError, TypeError, IndexError):
        tokens = " ".join(code.split())
    return hashlib.sha256(tokens.encode("utf-8", errors="surrogateescape")).hexdigest()


def add_imports(host_text: str, imports: tuple[str, ...] | list[str]) -> str:
    """*host_text* with *imports* appended to its last import line (no line moves), skipping names it already imports."""
    lines = lines_with_ends(host_text)
    present = {line.strip().rstrip(";").split()[-1].rsplit(".", 1)[-1] for line in lines if line.lstrip().startswith("import ")}
    wanted = [i for i in imports if i.rstrip(";").split()[-1].rsplit(".", 1)[-1] not in present or i.rstrip(";").endswith("*")]
    if not wanted:
        return host_text
    anchor = max((n for n, line in enumerate(lines) if line.lstrip().startswith(("import ", "package "))), default=None)
    if anchor is None:
        return " ".join(wanted) + " " + host_text
    line = lines[anchor]
    ending = line[len(line.rstrip("\r\n")):]
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
