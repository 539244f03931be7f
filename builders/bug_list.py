"""An explicit bug list for ``nl2fix build --bugs FILE``: ids like ``Cli-5``, one a line.

Blank lines and ``#`` comments are skipped. Every id must name an active bug of
a project the Defects4J root knows; anything else is an error naming the file
and line, so a published list is rebuilt exactly or not at all.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from benchsmith.core.errors import BenchsmithError
from benchsmith.sources.defects4j import Bug, Defects4JRoot

log = logging.getLogger(__name__)

_BUG_ID = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)-([0-9]+)$")


def read_bug_list(path: Path, d4j: Defects4JRoot) -> dict[str, list[Bug]]:
    """The listed bugs per project, projects and bugs in the order they first appear."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BenchsmithError(f"{path}: no such bug list") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchsmithError(f"{path}: cannot read the bug list: {exc}") from None
    available = set(d4j.available_projects())
    active: dict[str, dict[int, Bug]] = {}
    listed: dict[str, list[Bug]] = {}
    seen: set[tuple[str, int]] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{path}:{number}"
        match = _BUG_ID.match(line)
        if match is None:
            raise BenchsmithError(f"{where}: {line!r} is not a bug id like Cli-5")
        project, bug_id = match[1], int(match[2])
        if project not in available:
            raise BenchsmithError(f"{where}: unknown project {project} in {d4j.projects_dir}")
        if project not in active:
            active[project] = {bug.bug_id: bug for bug in d4j.bugs(project)}
        if bug_id not in active[project]:
            raise BenchsmithError(f"{where}: {project}-{bug_id} is not an active bug of {project}")
        if (project, bug_id) in seen:
            log.warning("%s: %s-%d is listed twice; building it once", where, project, bug_id)
            continue
        seen.add((project, bug_id))
        listed.setdefault(project, []).append(active[project][bug_id])
    if not listed:
        raise BenchsmithError(f"{path}: the bug list names no bug")
    return listed
