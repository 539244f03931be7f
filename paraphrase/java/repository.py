"""Paraphrase a Java repository: flip the identifiers declared in given classes, token-exact, everywhere.

javac binds every occurrence (see :mod:`benchsmith.paraphrase.java.resolve`), so a name
changes exactly where it refers to a declaration of a target class or to a
method of the same override family elsewhere in the repository; a library's
``foo`` or another class's ``foo`` keeps its spelling. The decision is still
made per name, as on the Python side: a name is flipped at all its target
declarations or at none, and :data:`RULES` says why one was kept. Only
identifier letters change; a flipped top-level class moves its file
(``Options.java`` -> ``OPtions.java``) since javac requires the two to agree.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

from benchsmith.core.errors import BenchsmithError
from benchsmith.paraphrase.flip import build_mapping, flippable_positions
from benchsmith.paraphrase.java.resolve import Declaration, Resolution, resolve
from benchsmith.paraphrase.java.source import (
    IDENTIFIER,
    JAVA_RESERVED,
    find_identifier_after,
    is_identifier_at,
    java_sources,
    python_index,
    resource_files,
    skipped,
)
from benchsmith.paraphrase.report import Exclusion, ParaphraseReport, check_paths

#: Rule name -> what it protects (the report's legend), in the order they are tried.
RULES: dict[str, str] = {
    "reserved": "a name without an ASCII letter to flip",
    "library-override": "a method overriding one declared outside the repository (equals, toString, run, compareTo, "
    "an external interface's method), with every repository method of its override family",
    "entry-point": "a main method, started by its name",
    "serialization": "looked up by name by Java serialization (serialVersionUID, readObject, readResolve...)",
    "native": "a native method, bound to native code by its name",
    "enum-constant": "an enum constant: its name is data through name(), toString() and valueOf()",
    "external-annotation": "a member annotated by another library's annotation (frameworks look such members up by "
    "name)",
    "string": "a member name spelled by a string literal that is exactly a (dotted) name: reflection, Class.forName",
    "resource": "a member name spelled in a resource file (src/main/resources, src/test/resources)",
    "runtime-name": "a class name spelled in a string literal while the repository reads class names "
    "(getName, getSimpleName)",
    "unresolved": "a reference javac could not bind is spelled like it (incomplete class path or broken code)",
    "spelling": "an occurrence not spelled plainly where javac puts it (a unicode escape, or a file not in UTF-8)",
    "collision": "every case variant is already an identifier of the repository",
}
_TEST_PREFIXES = ("test", "Test")
_DOTTED = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:[.#/][A-Za-z_$][A-Za-z0-9_$]*)*")
_TYPE_KINDS = frozenset({"CLASS", "INTERFACE", "ENUM", "ANNOTATION_TYPE", "RECORD"})


def is_valid_java_flip(original: str, flipped: str) -> bool:
    """A usable variant: another spelling, not a keyword, and ``test`` prefixes (JUnit 3 discovery) kept as they
    were."""
    if flipped == original or flipped in JAVA_RESERVED:
        return False
    return flipped.startswith(_TEST_PREFIXES) == original.startswith(_TEST_PREFIXES)


def _string_names(resolution: Resolution) -> dict[str, str]:
    """Identifiers of literals that are exactly a (dotted) name: ``"parse"``, ``"org.x.Options"``."""
    names: dict[str, str] = {}
    for where, value in resolution.strings:
        if _DOTTED.fullmatch(value):
            for name in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", value):
                names.setdefault(name, f"string literal {value!r} at {where}")
    return names


def _resource_words(root: Path) -> dict[str, str]:
    words: dict[str, str] = {}
    for path in resource_files(root):
        rel = path.relative_to(root).as_posix()
        for word in IDENTIFIER.findall(path.read_text(encoding="utf-8", errors="replace")):
            for part in word.split("$"):
                words.setdefault(part, rel)
    return words


class _Located:
    """Each occurrence's index in its file's text, or why it could not be placed."""

    def __init__(self, root: Path, resolution: Resolution) -> None:
        self.texts: dict[str, str] = {}
        self.positions: dict[str, dict[int, str]] = defaultdict(dict)  # file -> index -> declaration id
        self.failures: dict[str, str] = {}  # declaration id -> why
        for occurrence in resolution.occurrences:
            declaration = resolution.declarations.get(occurrence.id)
            if declaration is None:
                continue
            text = self._text(root, occurrence.file)
            if text is None:
                self.failures.setdefault(occurrence.id, f"{occurrence.file} is not UTF-8")
                continue
            index = python_index(text, occurrence.offset)
            if occurrence.exact:
                found = index if is_identifier_at(text, index, declaration.name) else None
            else:
                found = find_identifier_after(text, index, declaration.name)
            if found is None:
                line = text.count("\n", 0, index) + 1
                self.failures.setdefault(occurrence.id, f"not spelled plainly at {occurrence.file}:{line}")
            else:
                self.positions[occurrence.file][found] = occurrence.id

    def _text(self, root: Path, rel: str) -> str | None:
        if rel not in self.texts:
            try:
                self.texts[rel] = (root / rel).read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                return None
        return self.texts[rel]


def _exclusions(root: Path, resolution: Resolution, located: _Located) -> dict[str, Exclusion]:
    """The first rule of :data:`RULES` that keeps each name (over all its declarations)."""
    strings = _string_names(resolution)
    resources = _resource_words(root)
    string_words = {w: where for where, value in resolution.strings for w in IDENTIFIER.findall(value)}
    found: dict[str, list[tuple[str, str]]] = defaultdict(list)  # name -> (rule, detail)

    def keep(declaration: Declaration, rule: str, detail: str) -> None:
        found[declaration.name].append((rule, f"{declaration.kind.lower()} at {declaration.where}: {detail}"))

    for declaration in resolution.declarations.values():
        name = declaration.name
        if not flippable_positions(name) or all(not c.isascii() for c in name):
            keep(declaration, "reserved", "no ASCII letter to flip")
        if declaration.rule:
            keep(declaration, declaration.rule, declaration.detail)
        if declaration.is_member and name in strings:
            keep(declaration, "string", strings[name])
        if declaration.is_member and name in resources:
            keep(declaration, "resource", f"spelled in {resources[name]}")
        if declaration.kind in _TYPE_KINDS and resolution.reads_names and name in string_words:
            keep(
                declaration,
                "runtime-name",
                f"in text at {string_words[name]}; class names read at {resolution.reads_names}",
            )
        if name in resolution.unresolved:
            keep(declaration, "unresolved", f"unbound reference at {resolution.unresolved[name]}")
        if declaration.id in located.failures:
            keep(declaration, "spelling", located.failures[declaration.id])
    order = list(RULES)
    excluded: dict[str, Exclusion] = {}
    for name, reasons in found.items():
        rule, detail = min(reasons, key=lambda r: (order.index(r[0]), r[1]))
        excluded[name] = Exclusion(name, rule, detail)
    return excluded


def _taken(root: Path, sources: Iterable[str], located: _Located) -> set[str]:
    """Every identifier spelled in the sources (comments included: harmless) and Java's reserved words."""
    taken = set(JAVA_RESERVED)
    for rel in sources:
        text = located.texts.get(rel)
        if text is None:
            text = (root / rel).read_bytes().decode("utf-8", errors="replace")
        taken.update(IDENTIFIER.findall(text))
    return taken


def _renamed_path(rel: str, resolution: Resolution, mapping: dict[str, str]) -> str:
    """A flipped public top-level class moves its file along (``Foo.java`` holds ``public class Foo``)."""
    path = PurePosixPath(rel)
    for qualified, file in resolution.targets.items():
        simple = qualified.rsplit(".", 1)[-1]
        if file == rel and path.stem == simple and simple in mapping:
            return path.with_name(mapping[simple] + path.suffix).as_posix()
    return rel


def paraphrase_java_repository(
    root: Path,
    classes: Sequence[str],
    out: Path,
    seed: int = 0,
    *,
    classpath: Sequence[Path] = (),
    release: str | None = None,
) -> ParaphraseReport:
    """Copy *root* to *out* with the identifiers declared in *classes* case-flipped in every Java file.

    *classes* are fully qualified names of top-level classes; *classpath* holds the jars the main
    and test sources compile against (without them javac cannot bind library calls, and names
    spelled like an unbound reference are kept). The report lists every declared name either in
    ``mapping`` or in ``excluded`` with its rule, the files changed and renamed.
    """
    root, out = Path(root), Path(out)
    check_paths(root, out)
    if not classes:
        raise BenchsmithError(f"{root}: no classes to paraphrase")
    sources = java_sources(root)
    if not sources:
        raise BenchsmithError(f"{root}: no Java sources (expected src/main/java, src/test/java)")
    resolution = resolve(root, sources, list(classes), classpath, release)
    if resolution.missing:
        raise BenchsmithError(f"{root}: no top-level class {', '.join(resolution.missing)} in the Java sources")
    located = _Located(root, resolution)
    excluded = _exclusions(root, resolution, located)
    names = {d.name for d in resolution.declarations.values()}
    mapping, failed = build_mapping(names - excluded.keys(), seed, _taken(root, sources, located), is_valid_java_flip)
    for name in failed:
        excluded[name] = Exclusion(name, "collision", "every case variant is taken")

    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    changed: list[str] = []
    renamed_files: dict[str, str] = {}
    occurrences = 0
    try:
        resolved_root = root.resolve()
        shutil.copytree(
            root,
            staging,
            symlinks=True,
            dirs_exist_ok=True,
            ignore=lambda folder, names: [n for n in names if skipped(Path(folder).resolve(), resolved_root, n)],
        )
        for rel, positions in sorted(located.positions.items()):
            text = located.texts[rel]
            pieces, last, count = [], 0, 0
            for index in sorted(positions):
                name = resolution.declarations[positions[index]].name
                if name not in mapping:
                    continue
                pieces += [text[last:index], mapping[name]]
                last, count = index + len(name), count + 1
            if not count:
                continue
            pieces.append(text[last:])
            target = _renamed_path(rel, resolution, mapping)
            if target != rel:
                (staging / rel).unlink()
                renamed_files[rel] = target
            (staging / target).write_bytes("".join(pieces).encode("utf-8"))
            changed.append(rel)
            occurrences += count
        if out.exists():
            out.rmdir()
        os.replace(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return ParaphraseReport(
        repo=str(root),
        out=str(out),
        seed=seed,
        strict=False,
        requested=len(names),
        mapping=dict(sorted(mapping.items())),
        excluded=dict(sorted(excluded.items())),
        files_scanned=len(sources),
        files_changed=sorted(changed),
        renamed_occurrences=occurrences,
        classes=list(classes),
        language="java",
        rules=RULES,
        files_renamed=renamed_files,
    )
