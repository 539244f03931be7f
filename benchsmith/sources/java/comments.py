"""Remove every comment from Java source without touching literals.

The Defects4J-NL2Fix paper strips comments from the buggy method because Defects4J's patching
leaves the fix's comments in the buggy version. The lexer knows string, char
and text-block literals, so ``"//"`` and ``'/'`` survive, and braces inside
comments go with them. Lines that held only comments disappear; a block
comment between two tokens leaves one space so they do not fuse.
"""

from __future__ import annotations


def strip_comments(source: str) -> str:
    """Return *source* with all Java comments removed."""
    out: list[str] = []
    touched_lines: set[int] = set()
    line = 0
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end == -1 else end
            touched_lines.add(line)
            i = end
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end == -1 else end + 2
            touched_lines.add(line)
            newlines = source.count("\n", i, end)
            for k in range(newlines):
                touched_lines.add(line + k + 1)
            line += newlines
            before = out[-1] if out else "\n"
            after = source[end] if end < n else "\n"
            if newlines:
                out.append("\n" * newlines)
            elif before[-1] in " \t":
                while end < n and source[end] in " \t":
                    end += 1
            elif not after.isspace():
                out.append(" ")
            i = end
        elif source.startswith('"""', i):
            end = _literal_end(source, i + 3, '"""')
            line += source.count("\n", i, end)
            out.append(source[i:end])
            i = end
        elif c in "\"'":
            end = _literal_end(source, i + 1, c)
            out.append(source[i:end])
            i = end
        else:
            if c == "\n":
                line += 1
            out.append(c)
            i += 1
    return _drop_emptied_lines("".join(out), touched_lines)


def _literal_end(source: str, i: int, quote: str) -> int:
    """Index just past the literal whose body starts at *i*; tolerates unterminated literals."""
    n = len(source)
    while i < n:
        if source[i] == "\\":
            i += 2
            continue
        if source.startswith(quote, i):
            return i + len(quote)
        if len(quote) == 1 and source[i] == "\n":
            return i
        i += 1
    return n


def _drop_emptied_lines(text: str, touched_lines: set[int]) -> str:
    kept = []
    for index, line in enumerate(text.split("\n")):
        if index in touched_lines:
            if not line.strip():
                continue
            line = line.rstrip()
        kept.append(line)
    return "\n".join(kept)
