"""Defects4J source patches: which lines they change, and applying them.

A Defects4J ``<id>.src.patch`` goes from the fixed to the buggy version, so its
removed lines are numbered in the fixed file and its added lines in the buggy
file.
"""

from __future__ import annotations

import difflib
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import unidiff

from benchsmith.core.errors import PatchError


@dataclass(frozen=True)
class HunkLines:
    fixed_lines: tuple[int, ...]  # lines the patch removes, numbered in the fixed file
    buggy_lines: tuple[int, ...]  # lines the patch adds, numbered in the buggy file


@dataclass(frozen=True)
class FilePatch:
    path: str
    in_fixed: bool  # False when the file exists only in the buggy version
    hunks: tuple[HunkLines, ...]


def parse_patch(text: str, name: str) -> list[FilePatch]:
    """Parse a unified diff; *name* is used in error messages."""
    try:
        patch_set = unidiff.PatchSet(text)
    except unidiff.UnidiffParseError as exc:
        raise PatchError(f"{name}: malformed patch: {exc}") from exc
    if not patch_set:
        raise PatchError(f"{name}: the patch changes no file")
    files = []
    for patched in patch_set:
        hunks = tuple(_significant_lines(hunk) for hunk in patched)
        path = patched.target_file if patched.is_added_file else patched.source_file
        files.append(
            FilePatch(
                path=_strip_prefix(path),
                in_fixed=not patched.is_added_file,
                hunks=hunks,
            )
        )
    return files


def _significant_lines(hunk: unidiff.Hunk) -> HunkLines:
    """The hunk's changed lines, re-diffed with trailing white space ignored.

    Both sides of the hunk, context included, are aligned again; a removed or
    added line that aligns with an equal line on the other side is no change
    (a newline added at the end of a file, trailing blanks), while a line that
    moved still is.
    """
    fixed_side = [line for line in hunk if line.is_removed or line.is_context]
    buggy_side = [line for line in hunk if line.is_added or line.is_context]
    matcher = difflib.SequenceMatcher(
        None, [line.value.rstrip() for line in fixed_side], [line.value.rstrip() for line in buggy_side], autojunk=False
    )
    aligned_fixed: set[int] = set()
    aligned_buggy: set[int] = set()
    for block in matcher.get_matching_blocks():
        aligned_fixed.update(range(block.a, block.a + block.size))
        aligned_buggy.update(range(block.b, block.b + block.size))
    return HunkLines(
        fixed_lines=tuple(
            line.source_line_no for i, line in enumerate(fixed_side) if line.is_removed and i not in aligned_fixed
        ),
        buggy_lines=tuple(
            line.target_line_no for i, line in enumerate(buggy_side) if line.is_added and i not in aligned_buggy
        ),
    )


def _strip_prefix(path: str) -> str:
    return path[2:] if path.startswith(("a/", "b/")) else path


def apply_patch(patch_text: str, fixed_files: dict[str, str], name: str) -> dict[str, str | None]:
    """Apply the fixed→buggy patch to *fixed_files* ({path: text}); return the buggy texts.

    A path that the patch deletes maps to None. Runs ``git apply`` in a scratch
    folder outside any repository, so it is as strict as Defects4J itself.
    """
    with tempfile.TemporaryDirectory(prefix="benchsmith-patch-") as scratch:
        root = Path(scratch) / "tree"
        for path, text in fixed_files.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8", errors="surrogateescape"))
        root.mkdir(exist_ok=True)
        patch_file = Path(scratch) / "change.patch"
        patch_file.write_bytes(patch_text.encode("utf-8", errors="surrogateescape"))
        completed = subprocess.run(
            ["git", "apply", "--whitespace=nowarn", str(patch_file)],
            cwd=root,
            capture_output=True,
            text=True,
            env={**os.environ, "GIT_CEILING_DIRECTORIES": scratch},
        )
        if completed.returncode != 0:
            first = next((ln for ln in completed.stderr.splitlines() if ln.strip()), "git apply failed")
            raise PatchError(f"{name}: patch does not apply: {first.removeprefix('error: ')}")
        result: dict[str, str | None] = {}
        for patched in parse_patch(patch_text, name):
            target = root / patched.path
            result[patched.path] = (
                target.read_bytes().decode("utf-8", errors="surrogateescape") if target.exists() else None
            )
        return result


def states_lines_of(patch_text: str, fixed_files: dict[str, str | None], name: str) -> bool:
    """Whether every hunk's fixed side stands at the lines the patch says in *fixed_files*.

    False when the patch applies only at an offset, as Defects4J's Chart patches do to the converted branch
    (benchsmith/sources/svn_history.py): their line numbers are then not those of the files in hand.
    """
    for patched in unidiff.PatchSet(patch_text):
        text = fixed_files.get(_strip_prefix(patched.source_file))
        if patched.is_added_file or text is None:
            continue
        lines = text.split("\n")
        for hunk in patched:
            for line in hunk:
                if line.source_line_no is not None and (
                    line.source_line_no > len(lines)
                    or lines[line.source_line_no - 1].rstrip("\r") != line.value.rstrip("\r\n")
                ):
                    return False
    return True


def rediff(fixed_files: dict[str, str | None], buggy_files: dict[str, str | None]) -> str:
    """A fixed → buggy patch of these very files, numbered as they are."""
    parts = []
    for path, fixed in fixed_files.items():
        buggy = buggy_files.get(path)
        if fixed is None or buggy is None or fixed == buggy:
            continue
        before, after = (t if t.endswith("\n") else t + "\n" for t in (fixed, buggy))
        body = difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}", f"b/{path}", n=3
        )
        parts.append(f"diff --git a/{path} b/{path}\n" + "".join(body))
    return "".join(parts)
