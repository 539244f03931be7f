"""Tracker markup → clean text.

Code stays verbatim and fenced (```` ```lang ````): Jira's ``{code}`` and ``{noformat}`` blocks, Markdown's
fences (kept as written) and indented blocks, HTML's ``<pre>``. Lines that look like a Java stack trace
are never touched. Everything else loses its markup: emphasis, headings, macros, tags; links keep their
text and URL; inline code keeps its backticks.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from bs4 import BeautifulSoup, Comment, Doctype, NavigableString, ProcessingInstruction, Tag

_STACK_LINE = re.compile(
    r"^\s*(?:at\s+[\w$.<>/\[\]-]+\(|Caused by:|\.\.\.\s*\d+\s+more|Exception in thread|"
    r"[\w$]+(?:\.[\w$]+)+(?:Exception|Error|Throwable)\b)"
)
_SURROGATES = re.compile(r"[\udc80-\udcff]+")


def fence(body: str, language: str = "") -> str:
    """*body* as a fenced block, with a fence longer than any backtick run inside it."""
    body = body.strip("\n")
    ticks = "```"
    while ticks in body:
        ticks += "`"
    return f"{ticks}{language}\n{body}\n{ticks}"


def decode_bytes(data: bytes, declared: str | None = None) -> str:
    """Bytes → text: the declared charset if it fits, else UTF-8 with stray bytes read as Windows-1252."""
    if declared:
        try:
            return data.decode(declared)
        except (LookupError, UnicodeDecodeError):
            pass
    text = data.decode("utf-8", errors="surrogateescape")
    return _SURROGATES.sub(lambda m: bytes(ord(c) - 0xDC00 for c in m.group()).decode("cp1252", errors="replace"), text)


def _normalise(text: str | None) -> str:
    return (text or "").replace("\r\n", "\n").replace("\r", "\n")


class _Verbatim(str):
    """A piece of output (a fenced block) that tidying leaves alone."""


def _tidy(text: str) -> str:
    text = re.sub(r"[ \t]+(?=\n|$)", "", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


def _join(pieces: list[str]) -> str:
    """Prose pieces tidied, verbatim pieces as they are, separated by blank lines."""
    out = [str(p) if isinstance(p, _Verbatim) else _tidy(p) for p in pieces]
    return "\n\n".join(p for p in out if p.strip())


def _outside(pattern: re.Pattern, line: str, convert: Callable[[str], str], keep: Callable[[re.Match], str]) -> str:
    """Apply *convert* to the parts of *line* outside *pattern*'s matches, *keep* to the matches."""
    out, last = [], 0
    for match in pattern.finditer(line):
        out.append(convert(line[last : match.start()]))
        out.append(keep(match))
        last = match.end()
    out.append(convert(line[last:]))
    return "".join(out)


def _protect(pattern: re.Pattern, text: str) -> str:
    """Backslash-escaped characters → private-use stand-ins that no later rule matches (see _restore)."""
    return pattern.sub(lambda m: chr(0xE000 + ord(m.group(1))), text)


def _restore(text: str) -> str:
    return re.sub("[\ue000-\ue07f]", lambda m: chr(ord(m.group()) - 0xE000), text)


def _emphasis(text: str, marks: str) -> str:
    """Drop single-character emphasis marks (``*x*``, ``_x_``) that stand apart from words and paths."""
    for mark in marks:
        m = re.escape(mark)
        text = re.sub(rf"(?<![\w{m}/]){m}(?=[^\s{m}])([^{m}\n]*?[^\s{m}]){m}(?![\w{m}/])", r"\1", text)
    return text


# ---------------------------------------------------------------- Jira wiki markup

_JIRA_BLOCK = re.compile(r"\{(code|noformat)(:[^}\n]*)?\}(.*?)(?:\{\1\}|\Z)", re.S)
_JIRA_MONO = re.compile(r"\{\{(.+?)\}\}")
_JIRA_MACRO = re.compile(r"\{(?:quote|panel|color|anchor|section|column|div|span|center|html)(?::[^}\n]*)?\}")
_JIRA_LINK = re.compile(r"\[([^\[\]|\n]+)\|((?:[a-z][a-z+.-]*:[^\]\s]+)|\^[^\]\n]+|[A-Z][A-Z0-9]+-\d+|#[^\]\n]+)\]")
_JIRA_BARE_LINK = re.compile(r"\[((?:https?|ftp|mailto|file):[^\]\s]+)\]")
_JIRA_USER = re.compile(r"\[~([^\]\n]+)\]")
_JIRA_IMAGE = re.compile(r"!([^!\s|]+\.(?:png|jpe?g|gif|bmp|svg))(?:\|[^!\n]*)?!", re.I)
_JIRA_ESCAPE = re.compile(r"\\([*_{}\[\]!|])")
_JIRA_LIST = re.compile(r"^(\s*)([*#-]+)\s+(?=\S)")


def jira_to_text(text: str | None) -> str:
    """Jira wiki markup → text; ``{code}`` / ``{noformat}`` blocks become verbatim fences."""
    text = _normalise(text)
    pieces, last = [], 0
    for match in _JIRA_BLOCK.finditer(text):
        pieces.append(_jira_prose(text[last : match.start()]))
        params = (match.group(2) or ":")[1:].split("|")[0]
        pieces.append(_Verbatim(fence(match.group(3), "" if "=" in params else params.strip())))
        last = match.end()
    pieces.append(_jira_prose(text[last:]))
    return _join(pieces)


def _jira_prose(text: str) -> str:
    lines, counter = [], 0
    for line in text.split("\n"):
        if _STACK_LINE.match(line):
            lines.append(line)
            counter = 0
            continue
        line = re.sub(r"^\s*h[1-6]\.\s*", "", line)
        line = re.sub(r"^\s*bq\.\s*", "> ", line)
        listed = _JIRA_LIST.match(line)
        if listed:
            depth = len(listed.group(2))
            counter = counter + 1 if listed.group(2)[-1] == "#" else 0
            bullet = f"{counter}." if listed.group(2)[-1] == "#" else "-"
            line = f"{listed.group(1)}{'  ' * (depth - 1)}{bullet} {line[listed.end() :]}"
        elif line.strip():
            counter = 0
        line = _outside(_JIRA_MONO, line, _jira_inline, lambda m: f"`{m.group(1)}`")
        lines.append(line.replace("||", "|"))
    return "\n".join(lines)


def _jira_inline(text: str) -> str:
    text = _protect(_JIRA_ESCAPE, text)
    text = _JIRA_MACRO.sub("", text)
    text = _JIRA_LINK.sub(lambda m: f"{m.group(1)} ({m.group(2).lstrip('^')})", text)
    text = _JIRA_BARE_LINK.sub(r"\1", text)
    text = _JIRA_USER.sub(r"\1", text)
    text = _JIRA_IMAGE.sub(r"\1", text)
    return _restore(_emphasis(text, "*_"))


# ---------------------------------------------------------------- Markdown (GitHub)

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_MD_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_MD_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$")
_MD_IMAGE = re.compile(r"!\[([^\]\n]*)\]\([^)\n]*\)")
_MD_LINK = re.compile(r"\[([^\]\n]+)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"\n]*\")?\s*\)")
_MD_AUTOLINK = re.compile(r"<((?:https?|ftp|mailto):[^>\s]+)>")
_MD_TAG = re.compile(
    r"</?(?:details|summary|p|div|span|b|i|em|strong|sub|sup|kbd|code|ins|del|s|u|img|a|h[1-6]|ul|ol|li|"
    r"table|tr|td|th|thead|tbody|blockquote|hr|picture|source|video)\b[^>\n]*>",
    re.I,
)
_MD_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!<>|~])")
_ENTITIES = re.compile(r"&(?:lt|gt|amp|quot|#39|#x27|nbsp);")


def markdown_to_text(text: str | None) -> str:
    """GitHub Markdown → text; fenced blocks are kept as written, indented ones untouched."""
    lines = _normalise(text).split("\n")
    pieces, prose, i = [], [], 0
    while i < len(lines):
        opening = _FENCE_OPEN.match(lines[i])
        if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            pieces.append(_markdown_prose("\n".join(prose)))
            prose = []
            mark = opening.group(1)
            closing = re.compile(rf"^ {{0,3}}{re.escape(mark[0])}{{{len(mark)},}}\s*$")
            j = i + 1
            while j < len(lines) and not closing.match(lines[j]):
                j += 1
            block = lines[i : j + 1] if j < len(lines) else [*lines[i:], mark]
            pieces.append(_Verbatim("\n".join(block)))
            i = j + 1
        else:
            prose.append(lines[i])
            i += 1
    pieces.append(_markdown_prose("\n".join(prose)))
    return _join(pieces)


def _markdown_prose(text: str) -> str:
    text = re.sub(r"<!--.*?(?:-->|\Z)", "", text, flags=re.S)  # issue-template comments
    text = re.sub(r"<br\s*/?>", "\n", text, flags=re.I)
    out = []
    for line in text.split("\n"):
        if line.startswith(("    ", "\t")) or _STACK_LINE.match(line):
            out.append(line)
            continue
        heading = _MD_HEADING.match(line)
        if heading:
            line = heading.group(1)
        out.append(_outside(_MD_CODE_SPAN, line, _markdown_inline, lambda m: m.group(0)))
    return "\n".join(out)


def _markdown_inline(text: str) -> str:
    text = _protect(_MD_ESCAPE, text)
    text = _MD_TAG.sub("", text)
    text = _MD_IMAGE.sub(r"\1", text)
    text = _MD_LINK.sub(lambda m: m.group(2) if m.group(1) == m.group(2) else f"{m.group(1)} ({m.group(2)})", text)
    text = _MD_AUTOLINK.sub(r"\1", text)
    text = re.sub(r"(?<![\w*])\*\*(?=\S)(.+?)(?<=\S)\*\*(?![\w*])", r"\1", text)
    text = re.sub(r"(?<![\w_])__(?=\S)(.+?)(?<=\S)__(?![\w_])", r"\1", text)
    text = re.sub(r"~~(?=\S)(.+?)(?<=\S)~~", r"\1", text)
    text = _restore(_emphasis(text, "*_"))
    return _ENTITIES.sub(lambda m: html.unescape(m.group()).replace("\xa0", " "), text)


# ---------------------------------------------------------------- HTML (SourceForge, Google Code)

_BLOCKS = {
    "p",
    "div",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "table",
    "tr",
    "dl",
    "dt",
    "dd",
    "hr",
    "section",
    "article",
    "header",
    "footer",
}
_DROPPED = {"script", "style", "noscript", "form", "button", "input", "select", "textarea", "template"}


def html_to_text(node: Tag | str | None) -> str:
    """An HTML fragment (or parsed element) → text; ``<pre>`` becomes a verbatim fence."""
    if node is None:
        return ""
    if isinstance(node, str):
        node = BeautifulSoup(node, "html.parser")
    parts: list[str] = []
    _walk(node, parts)
    pieces, prose = [], []
    for part in parts:
        if isinstance(part, _Verbatim):
            pieces.append(_tidy_html_prose("".join(prose)))
            pieces.append(part)
            prose = []
        else:
            prose.append(part)
    pieces.append(_tidy_html_prose("".join(prose)))
    return _join(pieces)


def _walk(node: Tag, parts: list[str]) -> None:
    for child in node.children:
        if isinstance(child, (Comment, Doctype, ProcessingInstruction)):
            continue
        if isinstance(child, NavigableString):
            parts.append(re.sub(r"\s+", " ", str(child)))
            continue
        name = child.name
        if name in _DROPPED:
            continue
        if name == "pre":
            code = child.find("code")
            classes = (code.get("class") if code else None) or []
            language = next((c[len("language-") :] for c in classes if c.startswith("language-")), "")
            parts.append(_Verbatim(fence(_normalise(child.get_text()), language)))
        elif name == "br":
            parts.append("\n")
        elif name in ("code", "tt", "kbd"):
            parts.append(f"`{child.get_text()}`")
        elif name == "img":
            parts.append(child.get("alt") or "")
        elif name == "a":
            _walk(child, parts)
            href, label = child.get("href") or "", child.get_text().strip()
            if href.startswith(("http://", "https://")) and href != label:
                parts.append(f" ({href})" if label else href)
        else:
            if name == "li":
                parts.append("\n- ")
            elif name in _BLOCKS:
                parts.append("\n\n")
            _walk(child, parts)
            if name in _BLOCKS:
                parts.append("\n\n")


def _tidy_html_prose(text: str) -> str:
    text = re.sub(r"[ \t]*\n[ \t]*", "\n", text)
    text = re.sub(r"\n- \n+", "\n- ", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


_GOOGLECODE_TAGS = re.compile(r"</?(?:b|i|u|a|em|strong|tt|code|br|pre|span|font)\b[^>]*>", re.I)


def googlecode_to_text(text: str | None) -> str:
    """A Google Code issue comment (plain text with a few tags and HTML entities) → text."""
    return html.unescape(_GOOGLECODE_TAGS.sub("", _normalise(text))).strip()
