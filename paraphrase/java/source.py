"""The Java side's view of a repository's files: sources, resources, and exact text positions.

Files are read as bytes and decoded as UTF-8 without newline translation, so a
rewrite that swaps identifier letters leaves every other byte (``\\r\\n``, tabs,
unicode escapes, comments) as it was. javac reports positions in UTF-16 units;
:func:`python_index` maps them onto the decoded text when a file holds
characters outside the Basic Multilingual Plane.
"""

from __future__ import annotations

import re
from pathlib import Path

SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".idea", ".gradle", "node_modules"})
TOP_SKIP_DIRS = frozenset({"target", "build", "out"})

#: Keywords, literals and the contextual names a flip must not produce.
JAVA_RESERVED = frozenset(
    """
abstract assert boolean break byte case catch char class const continue default do double else enum extends
final finally float for goto if implements import instanceof int interface long native new package private
protected public return short static strictfp super switch synchronized this throw throws transient try void
volatile while true false null var yield record sealed permits non-sealed module open requires exports opens
uses provides to with transitive _
""".split()
)  #  # noqa: SIM905

IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_IDENTIFIER_PART = re.compile(r"[\w$]")


def skipped(folder: Path, root: Path, name: str) -> bool:
    return name in SKIP_DIRS or (name in TOP_SKIP_DIRS and folder == root)


def _walk(root: Path, suffix: str | None = None) -> list[Path]:
    found: list[Path] = []
    for path in sorted(root.rglob("*")):
        rel_parts = path.relative_to(root).parts
        if any(part in SKIP_DIRS for part in rel_parts) or rel_parts[0] in TOP_SKIP_DIRS:
            continue
        if path.is_file() and not path.is_symlink() and (suffix is None or path.name.endswith(suffix)):
            found.append(path)
    return found


def java_sources(root: Path) -> list[str]:
    """The ``.java`` files of ``src/*/java`` (Maven layout), else every ``.java`` file; POSIX paths relative to
    *root*."""
    maven = [
        p
        for p in _walk(root, ".java")
        if len(p.relative_to(root).parts) > 3
        and p.relative_to(root).parts[0] == "src"
        and p.relative_to(root).parts[2] == "java"
    ]
    chosen = maven or _walk(root, ".java")
    return [p.relative_to(root).as_posix() for p in chosen if p.name != "module-info.java"]


def resource_files(root: Path) -> list[Path]:
    """Text files under ``src/main/resources`` and ``src/test/resources``: the class path sees them at run time.

    (``src/site/resources`` is the web site's and stays out.)
    """
    found = []
    for folder in (root / "src/main/resources", root / "src/test/resources"):
        for path in _walk(folder) if folder.is_dir() else ():
            head = path.read_bytes()[:8192]
            if b"\0" not in head:
                found.append(path)
    return found


def python_index(text: str, utf16_offset: int) -> int:
    """The index in *text* of javac's UTF-16 offset."""
    if text.isascii() or max(text, default="\0") <= "\uffff":
        return utf16_offset
    units = 0
    for index, char in enumerate(text):
        if units >= utf16_offset:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(text)


def is_identifier_at(text: str, index: int, name: str) -> bool:
    """*name* spelled plainly at *index*, a whole identifier token."""
    if text[index : index + len(name)] != name:
        return False
    before = text[index - 1] if index > 0 else " "
    after = text[index + len(name)] if index + len(name) < len(text) else " "
    return not _IDENTIFIER_PART.match(before) and not _IDENTIFIER_PART.match(after) and before != "\\"


def find_identifier_after(text: str, index: int, name: str, limit: int = 20000) -> int | None:
    """The first identifier token *name* at or after *index*, skipping comments; None if another token set ends
    first."""
    end = min(len(text), index + limit)
    i = index
    while i < end:
        c = text[i]
        if text.startswith("//", i):
            newline = text.find("\n", i)
            i = end if newline < 0 else newline + 1
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = end if close < 0 else close + 2
        elif c in "\"'":
            return None  # a literal: the declaration's name was passed
        elif _IDENTIFIER_PART.match(c):
            match = IDENTIFIER.match(text, i) or re.compile(r"[\w$]+").match(text, i)
            if match.group(0) == name:
                return i
            i = match.end()
        elif c in "{;=(":
            return None
        else:
            i += 1
    return None
