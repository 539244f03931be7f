"""The template describer's Java sentences: members, constructors and methods read from Java metadata.

:mod:`benchsmith.generation.models.template` parses the metadata (one format for both
languages, ``benchsmith.sources.java.declarations`` writes the Java one) and
hands a Java class here. The same rule holds as for Python: DETAILED names
what a method's body calls, which fields it uses and what it throws, and the
fields' initial values; SKETCHY has neither; the body itself is never shown.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import javalang

from benchsmith.core.metadata import split_top_level

_MODIFIERS = (
    "public",
    "protected",
    "private",
    "static",
    "final",
    "abstract",
    "default",
    "synchronized",
    "native",
    "strictfp",
    "transient",
    "volatile",
)
_SIGNATURE = re.compile(r"(?P<before>.*?)\b(?P<name>[A-Za-z_$][\w$]*)\s*\((?P<rest>.*)", re.DOTALL)
_KIND = re.compile(r"(@interface|\bclass|\binterface|\benum)\s+[A-Za-z_$]")


@dataclass(frozen=True)
class JavaSignature:
    modifiers: list[str]
    type_parameters: str
    returns: str  # "" for a constructor
    parameters: list[str]
    throws: list[str]


def class_kind(signature: str) -> str:
    """class, interface, enum or annotation type, from the class signature."""
    found = _KIND.search(signature)
    kind = found[1] if found else "class"
    return "annotation type" if kind == "@interface" else kind


def parents_sentence(signature: str, parents: list[str], join: Callable[[list[str]], str]) -> str:
    """ "It extends `A` and implements `B`", as the signature says; nothing when it has no parents."""
    if not parents:
        return ""
    implements = signature.split(" implements ", 1)[1] if " implements " in signature else ""
    implemented = [p for p in parents if p in split_types(implements)]
    extended = [p for p in parents if p not in implemented]
    parts = ([f"extends {join(extended)}"] if extended else []) + (
        [f"implements {join(implemented)}"] if implemented else []
    )
    return " It " + " and ".join(parts) + "."


def members_sentence(
    members: list[str], detailed: bool, join: Callable[..., str], cap: Callable[[str], str], kind: str = "class"
) -> str:
    constants, static, instance = [], [], []
    for member in members:
        text = " ".join(member.split())
        field = _field(text)
        if field is None:
            constant = re.match(r"[A-Za-z_$][\w$]*", text)
            constants.append(f"`{constant[0] if constant else cap(text)}`")
            continue
        modifiers, type_name, declarators = field
        for name, value in declarators:
            extras = [f"of type `{type_name}`"]
            if detailed and value:
                extras.append(f"initialised to `{cap(value)}`")
            phrase = f"`{name}` ({', '.join(extras)})"
            # an interface's fields are static whatever they say
            (static if "static" in modifiers or kind in ("interface", "annotation type") else instance).append(phrase)
    sentences = []
    if constants:
        sentences.append(f"Its constant{'s are' if len(constants) > 1 else ' is'} {join(constants, quote=False)}.")
    if static:
        sentences.append(
            f"Its static field{'s are' if len(static) > 1 else ' is'} {join(static, quote=False, cap=False)}."
        )
    if instance:
        sentences.append(
            f"Its instances keep the field{'s' if len(instance) > 1 else ''} {join(instance, quote=False, cap=False)}."
        )
    return " ".join(sentences)


def _field(text: str) -> tuple[list[str], str, list[tuple[str, str]]] | None:
    """(modifiers, type, [(name, initial value or "")]) of a field declaration; None for an enum constant."""
    text = re.sub(r"^(@[\w.]+(\([^)]*\))?\s+)+", "", text).rstrip(";").strip()
    first, *others = split_types(text)
    head, _, value = first.partition("=")
    words = head.split()
    modifiers = [w for w in words if w in _MODIFIERS]
    rest = " ".join(w for w in words if w not in _MODIFIERS)
    found = re.fullmatch(r"(?P<type>.+?)\s+(?P<name>[A-Za-z_$][\w$]*)", rest)
    if found is None or "(" in head:
        return None
    declarators = [(found["name"], value.strip())]
    for other in others:
        name, _, value = other.partition("=")
        declarators.append((name.strip(), value.strip()))
    return modifiers, found["type"], declarators


def is_constructor(signature: str, name: str, class_name: str) -> bool:
    parsed = parse_signature(signature, name, class_name)
    return parsed is not None and not parsed.returns


def parse_signature(signature: str, name: str, class_name: str) -> JavaSignature | None:
    found = re.search(rf"(?P<before>.*?)\b{re.escape(name)}\s*\((?P<rest>.*)", signature, re.DOTALL)
    if found is None:
        return None
    words = found["before"].split()
    modifiers = [w for w in words if w in _MODIFIERS]
    rest = " ".join(w for w in words if w not in _MODIFIERS and not w.startswith("@"))
    type_parameters = ""
    if rest.startswith("<"):
        depth = 0
        for index, char in enumerate(rest):
            depth += (char == "<") - (char == ">")
            if depth == 0:
                type_parameters, rest = rest[: index + 1], rest[index + 1 :].strip()
                break
    inside, depth, after = "", 1, ""
    for index, char in enumerate(found["rest"]):
        depth += (char == "(") - (char == ")")
        if depth == 0:
            after = found["rest"][index + 1 :]
            break
        inside += char
    throws = after.split("throws", 1)[1] if "throws" in after else ""
    return JavaSignature(
        modifiers, type_parameters, "" if name == class_name else rest, split_types(inside), split_types(throws)
    )


def split_types(text: str) -> list[str]:
    """Split "A, B<C, D>" at the commas outside brackets and generics."""
    return split_top_level(text, "(<[{", ")>]}")


def method_sentence(
    name: str,
    signature: str,
    body: str | None,
    detailed: bool,
    class_name: str,
    join: Callable[..., str],
    class_kind: str = "class",
) -> str:
    parsed = parse_signature(signature, name, class_name)
    if parsed is None:
        return f"The method `{name}` has the signature `{' '.join(signature.split())}`."
    interface = class_kind in ("interface", "annotation type")
    if not parsed.returns:
        subject = f"The constructor of `{class_name}`"
    else:
        implemented_here = any(m in parsed.modifiers for m in ("default", "static", "private"))
        abstract = "abstract" in parsed.modifiers or (interface and not implemented_here)
        kind = "static method" if "static" in parsed.modifiers else "abstract method" if abstract else "method"
        subject = f"The {kind} `{name}`"
    implicit = "public" if interface else "package-private"
    access = next((m for m in parsed.modifiers if m in ("public", "protected", "private")), implicit)
    takes = join([f"`{p}`" for p in parsed.parameters], quote=False, cap=False) if parsed.parameters else "no arguments"
    sentence = f"{subject} ({access}) takes {takes}"
    if parsed.returns:
        sentence += " and returns nothing" if parsed.returns == "void" else f" and returns `{parsed.returns}`"
    sentence += "."
    if parsed.throws:
        sentence += f" It declares that it throws {join(parsed.throws)}."
    facts = body_facts(body) if detailed and body else None
    if facts:
        calls, fields, thrown = facts
        parts = [
            f"calls {join(calls)}" if calls else "",
            f"uses the field{'s' if len(fields) > 1 else ''} {join(fields)}" if fields else "",
            f"may throw {join(thrown)}" if thrown else "",
        ]
        if any(parts):
            sentence += " In its body it " + "; it ".join(p for p in parts if p) + "."
    return sentence


def body_facts(declaration: str) -> tuple[list[str], list[str], list[str]] | None:
    """(calls, fields reached through ``this``, exceptions thrown) of one method's declaration, in source order."""
    try:
        tokens = list(javalang.tokenizer.tokenize("class __Described {\n" + declaration + "\n}"))
        tree = javalang.parser.Parser(tokens).parse_compilation_unit()
    except (javalang.tokenizer.LexerError, javalang.parser.JavaSyntaxError, TypeError, IndexError):
        return None
    calls, fields, thrown = [], [], []
    for _, node in tree:
        if isinstance(node, javalang.tree.MethodInvocation):
            calls.append(f"{node.qualifier}.{node.member}" if node.qualifier else node.member)
        elif isinstance(node, javalang.tree.This) and node.selectors:
            first = node.selectors[0]
            if isinstance(first, javalang.tree.MemberReference):
                fields.append(first.member)
        elif isinstance(node, javalang.tree.ThrowStatement):
            creator = node.expression
            if isinstance(creator, javalang.tree.ClassCreator):
                thrown.append(creator.type.name)
    return list(dict.fromkeys(calls)), list(dict.fromkeys(fields)), list(dict.fromkeys(thrown))
