"""What Defects4J does to a revision's files when it checks a bug out, done here to a tree exported from the upstream
history: the diffs of its ``compile-errors/`` folder applied, as its ``Vcs`` applies them, and commons-lang 2's
``enum`` packages renamed as ``Project/Lang.pm`` renames them. Also the Java release a folder of classes was compiled
for, which a workspace records for the plain path."""

from __future__ import annotations

import logging
import os
import re
import subprocess
from pathlib import Path

from benchsmith.core.errors import BenchsmithError
from benchsmith.sources.defects4j import Bug, Defects4JRoot

log = logging.getLogger(__name__)

# Defects4J 3 mends these tests for Java 11's locale data (CLDR); with Java 8's (Java 8 itself, or a later Java told
# to read it, as defects4j_runtime's is) they are right as they were written.
_FOR_CLDR = re.compile(r"^locale-")


def for_locale_data(diff_name: str, locale_data: str) -> bool:
    """Whether Defects4J's diff named *diff_name* belongs to a checkout whose tests see *locale_data* ("java8" or
    "cldr", :meth:`JavaRuntime.locale_data`)."""
    return locale_data == "cldr" or not _FOR_CLDR.search(diff_name)


def adapt_as_defects4j(d4j: Defects4JRoot, bug: Bug, tree: Path) -> tuple[str, ...]:
    """Apply the diffs Defects4J applies to its checkout of *bug* (:meth:`Defects4JRoot.compile_error_diffs`) to the
    revision's files under *tree*, as ``git apply`` with the first of ``-p1``, ``-p0``, ``-p2`` that applies (its
    ``Vcs::_apply_cmd``); the names of those applied. One that is not optional and applies no way is an error."""
    from benchsmith.runners.java.toolchain import defects4j_runtime

    applied = []
    for diff, optional in d4j.compile_error_diffs(bug):
        if not for_locale_data(diff.name, defects4j_runtime().locale_data()):
            continue
        targets = _diff_targets(diff)
        if targets and not any((tree / path).exists() for path in targets):
            # nothing to mend: the files it changes are not in this history (Chart's git conversion keeps the 1.0.x
            # branch, whose experimental/ lacks demos that Defects4J's trunk checkout had)
            log.info("%s-%s: Defects4J's %s changes no file this tree has", bug.project, bug.bug_id, diff.name)
            continue
        environment = {**os.environ, "GIT_CEILING_DIRECTORIES": str(tree.parent)}
        refusals = []
        for strip in ("1", "0", "2"):
            check = ["git", "apply", f"-p{strip}", "--whitespace=nowarn", str(diff)]
            tried = subprocess.run([*check[:3], "--check", *check[3:]], cwd=tree, capture_output=True, env=environment)
            if tried.returncode == 0:
                subprocess.run(check, cwd=tree, capture_output=True, env=environment, check=True)
                applied.append(diff.name)
                break
            refusals.append((tried.stderr.decode(errors="replace").strip().splitlines() or ["git apply failed"])[0])
        else:
            if not optional:  # git's reason with -p1, the way such diffs are written
                raise BenchsmithError(f"{bug.project}-{bug.bug_id}: Defects4J's {diff} does not apply: {refusals[0]}")
    if applied:
        log.info("%s-%s: applied Defects4J's %s", bug.project, bug.bug_id, ", ".join(applied))
    return tuple(applied)


def classes_release(folder: Path) -> str:
    """The Java release of the first class file under *folder* (its major version less 44); "" without one."""
    for path in sorted(folder.rglob("*.class")) if folder.is_dir() else []:
        header = path.read_bytes()[:8]
        if len(header) == 8 and header[:4] == b"\xca\xfe\xba\xbe":
            return str(int.from_bytes(header[6:8], "big") - 44)
    return ""


def _diff_targets(diff: Path) -> set[str]:
    """The paths a diff changes as each of ``-p0``, ``-p1`` and ``-p2`` would read them (files it creates left out)."""
    found = set()
    for line in diff.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("--- ") and not line.startswith("--- /dev/null"):
            path = line[4:].split("\t")[0].strip()
            parts = path.split("/")
            found.update("/".join(parts[strip:]) for strip in range(3) if len(parts) > strip)
    return found


def rename_enum_packages(tree: Path, folders: tuple[str, ...]) -> list[str]:
    """Packages named ``enum``, which Java 1.4 allowed and Java 5 made a keyword, renamed ``oldenum`` as Defects4J
    renames them (``Project/Lang.pm``: commons-lang 2's ``org.apache.commons.lang.enum``): the folder, and the package
    line of each file in it. The packages renamed."""
    renamed = []
    for folder in folders:
        for found in sorted((tree / folder).rglob("enum"), reverse=True):  # deepest first
            if not found.is_dir():
                continue
            for path in found.rglob("*.java"):
                data = path.read_bytes()
                path.write_bytes(re.sub(rb"\.enum([.;])", rb".oldenum\1", data))
            found.rename(found.with_name("oldenum"))
            renamed.append(found.relative_to(tree / folder).as_posix().replace("/", "."))
    if renamed:
        log.info("%s: packages named enum, a keyword since Java 5, renamed oldenum: %s", tree, ", ".join(renamed))
    return renamed
