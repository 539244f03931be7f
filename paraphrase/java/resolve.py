"""Run javac's attribution over a repository's Java sources and read what it binds to the target classes.

``ParaphraseResolver.java`` (beside this module, compiled at first use and cached by
its hash) parses and attributes every source file together, so each identifier is
bound to the symbol javac itself would call, overloads and inheritance included.
It reports the declarations of the target classes (with the rule that keeps a
declaration's name, if one does), every occurrence bound to one of them, the
references it could not bind, and the string literals.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError

RESOLVER_SOURCE = Path(__file__).with_name("ParaphraseResolver.java")
_RESOLVER_MEMORY = "-Xmx1g"


@dataclass(frozen=True)
class Declaration:
    id: str
    kind: str  # javac's ElementKind: CLASS, METHOD, FIELD, LOCAL_VARIABLE, PARAMETER, ...
    name: str
    where: str
    rule: str | None  # an exclusion rule decided from the symbol (library-override, serialization...)
    detail: str

    @property
    def is_member(self) -> bool:
        """Reachable from outside its body by name: a type, field, method or enum constant."""
        return self.kind in _MEMBER_KINDS


_MEMBER_KINDS = frozenset(
    {"CLASS", "INTERFACE", "ENUM", "ANNOTATION_TYPE", "RECORD", "FIELD", "METHOD", "ENUM_CONSTANT"}
)


@dataclass(frozen=True)
class Occurrence:
    id: str
    file: str  # relative to the repository root
    offset: int  # javac char offset (UTF-16 units)
    exact: bool  # True: the name starts at offset; False: it is the first such identifier token after it


@dataclass
class Resolution:
    targets: dict[str, str] = field(default_factory=dict)  # fully qualified class -> file
    missing: list[str] = field(default_factory=list)
    declarations: dict[str, Declaration] = field(default_factory=dict)
    occurrences: list[Occurrence] = field(default_factory=list)
    unresolved: dict[str, str] = field(default_factory=dict)  # name -> first place javac could not bind it
    strings: list[tuple[str, str]] = field(default_factory=list)  # (where, value) of every string literal
    reads_names: str | None = None  # first call of Class.getName/getSimpleName/...
    errors: list[str] = field(default_factory=list)


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and text[i + 1 : i + 2] == "u" and len(text) >= i + 6:
            out.append(chr(int(text[i + 2 : i + 6], 16)))
            i += 6
        elif c == "\\" and i + 1 < len(text):
            out.append({"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}.get(text[i + 1], text[i + 1]))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse_output(text: str) -> Resolution:
    result = Resolution()
    for line in text.split("\n"):  # not splitlines: \x1c or \u2028 inside a field is no line break
        kind, _, rest = line.partition("\t")
        fields = rest.split("\t")
        if kind == "TARGET":
            result.targets[fields[0]] = fields[1]
        elif kind == "MISSING":
            result.missing.append(fields[0])
        elif kind == "ELEM":
            ident, element_kind, name, where, rule, detail = fields
            result.declarations[ident] = Declaration(
                ident, element_kind, name, where, None if rule == "-" else rule, _unescape(detail)
            )
        elif kind == "OCC":
            ident, file, offset, mode = fields
            result.occurrences.append(Occurrence(ident, file, int(offset), mode == "at"))
        elif kind == "UNRES":
            result.unresolved.setdefault(fields[0], fields[1])
        elif kind == "STR":
            result.strings.append((fields[0], _unescape(fields[1]) if len(fields) > 1 else ""))
        elif kind == "READSNAME":
            result.reads_names = result.reads_names or fields[0]
        elif kind == "ERR":
            result.errors.append(f"{fields[0]}: {_unescape(fields[1])}")
    return result


def _tool(name: str) -> str:
    home = os.environ.get("JAVA_HOME")
    found = str(Path(home) / "bin" / name) if home and (Path(home) / "bin" / name).is_file() else shutil.which(name)
    if not found:
        raise BenchsmithError(f"{name}: not found on PATH or in JAVA_HOME; paraphrasing Java needs a JDK (11 or later)")
    return found


@cache
def resolver_classes() -> Path:
    """The compiled resolver, built once per source hash under the cache."""
    digest = hashlib.sha256(RESOLVER_SOURCE.read_bytes()).hexdigest()[:16]
    target = cache_dir("paraphrase-java") / digest
    if (target / "ParaphraseResolver.class").is_file():
        return target
    building = Path(tempfile.mkdtemp(prefix=f"{digest}.", dir=target.parent))
    completed = subprocess.run(
        [_tool("javac"), "-nowarn", "-d", str(building), str(RESOLVER_SOURCE)],
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        shutil.rmtree(building, ignore_errors=True)
        raise BenchsmithError(f"{RESOLVER_SOURCE}: does not compile: {completed.stderr.strip()[:500]}")
    try:
        os.replace(building, target)
    except OSError:  # another process finished first
        shutil.rmtree(building, ignore_errors=True)
    return target


def resolve(
    root: Path,
    sources: Sequence[str],
    targets: Sequence[str],
    classpath: Sequence[Path] = (),
    release: str | None = None,
) -> Resolution:
    """Attribute *sources* (paths relative to *root*) together and report what binds to *targets*."""
    with tempfile.TemporaryDirectory(prefix="benchsmith-javaparaphrase.") as scratch:
        listing, output = Path(scratch) / "sources.txt", Path(scratch) / "resolved.tsv"
        listing.write_text("\n".join(sources) + "\n", encoding="utf-8")
        options = ["-cp", os.pathsep.join(str(Path(p).resolve()) for p in classpath) or "."]
        if release:
            options += ["--release", release]
        command = [
            _tool("java"),
            _RESOLVER_MEMORY,
            "-cp",
            str(resolver_classes()),
            "ParaphraseResolver",
            str(output),
            ",".join(targets),
            str(listing),
            *options,
        ]
        completed = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=3600, check=False)
        if completed.returncode != 0 or not output.is_file():
            raise BenchsmithError(f"{root}: the Java resolver failed: {completed.stderr.strip()[-800:]}")
        return parse_output(output.read_text(encoding="utf-8"))
