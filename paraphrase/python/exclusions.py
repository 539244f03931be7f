"""Which requested names must keep their spelling, and why.

Renaming is by spelling: a flipped name changes at every definition,
reference, attribute access and keyword argument in the repository. That is
consistent as long as nothing outside the repository spells the name too, so
a name is excluded (never partially renamed) as soon as one occurrence may
belong to another package or be looked up by its spelling at run time.
Keyword arguments are the one place decided per occurrence: a keyword passed
to an external callable keeps its spelling (``open(path, encoding=encoding)``
renames the variable, not the keyword); the analysis returns those.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import libcst as cst

from benchsmith.paraphrase.flip import BUILTIN_NAMES, KEYWORDS, is_dunder
from benchsmith.paraphrase.python import syntax
from benchsmith.paraphrase.python.inference import Inference
from benchsmith.paraphrase.python.kinds import EXTERNAL, REPO, UNKNOWN
from benchsmith.paraphrase.python.protocols import (
    COMMON_ATTRIBUTES,
    CONVENTIONAL_NAMES,
    FORWARDING_CALLS,
    is_protocol_name,
    stdlib_module_attributes,
)
from benchsmith.paraphrase.python.records import KeywordUse, RepoIndex
from benchsmith.paraphrase.report import Exclusion

#: Rule name -> what it protects (the report's legend).
RULES: dict[str, str] = {
    "reserved": "a keyword, builtin or dunder name, or a name without an ASCII letter to flip",
    "absent": "not an identifier of the repository's code",
    "convention": "a conventional receiver name (self, cls)",
    "protocol": "looked up by its spelling by test runners or tools (setUp, pytest_* hooks, main)",
    "module": "the name of a repository module or package (files are not renamed)",
    "external-import": "bound by an import from another package",
    "string": "spelled by a string literal (getattr/patch targets, **kwargs keys, field lists)",
    "dynamic": "contains the literal part of a computed attribute lookup (getattr(x, 'visit_' + kind))",
    "external-decorator": "a function, or its parameter, wrapped by a decorator of another package",
    "fixture": "a test parameter naming a pytest fixture the repository does not define",
    "star-import": "unbound in a module that star-imports another package",
    "common-attribute": "an attribute name of builtin types (items, get, append...) used as an attribute",
    "external-attribute": "read or written as an attribute of an object of another package",
    "stdlib-attribute": "read on an object of unknown type, and classes of an imported stdlib module have it",
    "external-base": "defined in a class whose base class from another package may use it",
    "keyword": "a keyword argument whose receiving function is unknown, or that is forwarded",
    "runtime-name": "a class or function name spelled in a string while the repository reads __name__",
    "unknown-receiver": "(strict) an attribute of an object whose type is unknown",
    "collision": "every case variant is already an identifier of the repository",
}
_RUN = re.compile(r"[A-Za-z0-9_]{2,}")


Excluder = Callable[[str, str, str], None]


@dataclass
class Analysis:
    excluded: dict[str, Exclusion]
    keep_keywords: set[cst.Arg]  # keyword arguments of external calls: never renamed


def is_reserved(name: str) -> bool:
    return (
        not name.isidentifier()
        or name in KEYWORDS
        or name in BUILTIN_NAMES
        or is_dunder(name)
        or not any(c.isascii() and c.isalpha() for c in name)
    )


def find_exclusions(index: RepoIndex, inference: Inference, names: Iterable[str]) -> Analysis:
    """Every requested name that must keep its spelling (first rule that applies), and the kept keywords."""
    requested = sorted(set(names))
    excluded: dict[str, Exclusion] = {}

    def exclude(name: str, rule: str, detail: str) -> None:
        excluded.setdefault(name, Exclusion(name, rule, detail))

    class_attrs = {n for ci in index.classes for n in (*ci.body_names, *ci.self_attrs)}
    for name in requested:
        rule = _name_rule(index, name, class_attrs)
        if rule is not None:
            exclude(name, *rule)
    runs = sorted({(run, where) for text, where in index.fragments for run in _RUN.findall(text) if run.strip("_")})
    for name in requested:
        for run, where in runs:
            if run in name:
                exclude(name, "dynamic", f"computed lookup with {run!r} at {where}")
    _attribute_rules(index, inference, [n for n in requested if n not in excluded], exclude)
    _base_rules(index, inference, set(requested), exclude)
    keep = _keyword_rules(index, inference, requested, exclude)
    return Analysis(excluded, keep)


def _attribute_rules(index: RepoIndex, inference: Inference, names: list[str], exclude: Excluder) -> None:
    """Names read or written as attributes of objects that are, or may be, another package's."""
    stdlib = {m: stdlib_module_attributes(m) for m in sorted(index.external_modules)}
    for name in names:
        for use in index.attr_uses.get(name, ()):
            kind = inference.receiver(use.receiver, use.sf, name, use.instance_of)
            where = use.sf.where(use.node)
            if kind.tag == EXTERNAL:
                exclude(name, "external-attribute", f"attribute of an external object at {where}")
                break
            if kind.tag == UNKNOWN and inference.strict:
                exclude(name, "unknown-receiver", f"receiver of unknown type at {where}")
                break
            if kind.tag == UNKNOWN and (module := next((m for m, a in stdlib.items() if name in a), None)):
                exclude(name, "stdlib-attribute", f"receiver of unknown type at {where}; classes of {module} have it")
                break


def _base_rules(index: RepoIndex, inference: Inference, wanted: set[str], exclude: Excluder) -> None:
    """Names a class defines that its external base classes may look up."""
    for ci in index.classes:
        hierarchy = inference.hierarchy(ci)
        if hierarchy.pure or ci.sf.rel.endswith(".pyi"):  # stubs declare, they do not run
            continue
        where = ci.sf.where(ci.node)
        for name in sorted((ci.body_names | ci.self_attrs) & wanted):
            if name in hierarchy.external_attrs:
                exclude(
                    name, "external-base", f"{ci.name} at {where} redefines it from {', '.join(hierarchy.external)}"
                )
            elif name.startswith("_") and not name.startswith("__") and hierarchy.external:
                # private hooks such as functools.partial's _partialmethod (``__x`` is mangled: safe)
                bases = ", ".join(hierarchy.external)
                exclude(name, "external-base", f"private name of {ci.name} at {where}, based on {bases}")
            elif hierarchy.opaque:
                bases = ", ".join(hierarchy.opaque)
                exclude(name, "external-base", f"defined in {ci.name} at {where}, based on {bases}")


def _keyword_rules(index: RepoIndex, inference: Inference, names: list[str], exclude: Excluder) -> set[cst.Arg]:
    """Exclude keywords that cannot follow their parameter; return those of external calls (kept)."""
    keep: set[cst.Arg] = set()
    for name in names:
        for use in index.keyword_uses.get(name, ()):
            verdict = _keyword_verdict(inference, use, name)
            if verdict is None:
                keep.add(use.arg)
                if _forwards(index, inference, use):
                    exclude(name, "keyword", f"forwarded by an external call at {use.sf.where(use.arg)}")
            elif verdict:
                exclude(name, "keyword", verdict)
    return keep


def _name_rule(index: RepoIndex, name: str, class_attrs: set[str]) -> tuple[str, str] | None:
    if is_reserved(name):
        return "reserved", "keyword, builtin, dunder or no letter"
    if name not in index.identifiers:
        return "absent", "not spelled anywhere in the repository's code"
    if name in CONVENTIONAL_NAMES:
        return "convention", "receiver name"
    if is_protocol_name(name):
        return "protocol", "looked up by its spelling"
    if name in index.repo.module_parts:
        return "module", "names a repository module"
    for rule, table in (
        ("external-import", index.external_imports),
        ("string", index.string_names),
        ("external-decorator", index.wrapped),
        ("fixture", index.external_fixtures),
        ("star-import", index.unresolved),
    ):
        if name in table:
            return rule, table[name]
    if name in COMMON_ATTRIBUTES and (name in index.attr_uses or name in class_attrs):
        return "common-attribute", "also an attribute of builtin types"
    if (
        index.reads_names
        and name in index.string_words
        and (name in index.classes_by_name or name in index.functions_by_name)
    ):
        return "runtime-name", f"in text at {index.string_words[name]}; __name__ read at {index.reads_names}"
    return None


def _keyword_verdict(inference: Inference, use: KeywordUse, name: str) -> str | None:
    """None: an external callee's keyword (kept); "": renamed with the parameter; else why to exclude."""
    where = use.sf.where(use.arg)
    if use.call is None:
        return f"class statement keyword at {where}"
    callee = inference.callee(use.call.func, use.sf)
    if callee.tag == EXTERNAL:
        return None
    if callee.tag == UNKNOWN:
        return f"call of an unresolved callable at {where}"
    assert callee.tag == REPO
    if callee.functions is None:
        return ""
    takers = [fi for fi in callee.functions if name in syntax.keyword_params(fi.node)]
    for fi in callee.functions:
        if fi not in takers and syntax.takes_star_kwargs(fi.node):
            return f"collected by **{fi.node.params.star_kwarg.name.value} of {fi.node.name.value} at {where}"
    if not takers:
        return f"no repository function called at {where} takes it"
    return ""


def _forwards(index: RepoIndex, inference: Inference, use: KeywordUse) -> bool:
    """An external call that may call repository code with its keywords (partial, replace, submit)."""
    if use.sf.qualified(use.call.func) & FORWARDING_CALLS:
        return True
    for arg in use.call.args:
        value = arg.value
        if isinstance(value, cst.Name):
            callee = inference.callee(value, use.sf)
            if callee.tag == REPO or callee.cls is not None:
                return True
        if isinstance(value, cst.Attribute) and any(
            fi.owner is not None for fi in index.functions_by_name.get(value.attr.value, ())
        ):
            return True
    return False
