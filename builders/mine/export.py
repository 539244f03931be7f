"""The mined project as Defects4J lays one out, and its dataset card.

``framework/projects/<Name>/``: ``active-bugs.csv``, ``patches/<id>.src.patch`` (fixed → buggy),
``trigger_tests/<id>``, ``relevant_tests/<id>``, ``modified_classes/<id>.src``, ``dir-layout.csv``,
``failing_tests/<revision>`` (relevant tests failing on the fixed version), ``dependent_tests`` (flaky tests), and
``commit-dates.csv`` (each fix's commit date, which Defects4J does not record). The card (``mine.json``, ``MINE.md``)
states the history scanned, the date range of the instances and every step's fate.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

from benchsmith.builders.mine.scan import MAIN_ROOT, TEST_ROOT
from benchsmith.core.atomic import write_text_atomic

ACTIVE_BUGS_HEADER = ["bug.id", "revision.id.buggy", "revision.id.fixed", "report.id", "report.url"]


@dataclass
class StepOutcome:
    """What became of one history step; ``reason`` is "" for an instance."""

    sha: str
    parent: str
    date: str
    bug_id: int = 0
    report_id: str = ""
    report_url: str = ""
    reason: str = ""
    detail: str = ""
    referenced: bool = False
    strict: bool = False  # kept by the strict single-method rule
    lenient: bool = False  # kept by the lenient rule
    file_path: str = ""
    method: str = ""
    trigger_tests: list[str] = field(default_factory=list)
    relevant_tests: list[str] = field(default_factory=list)
    broken_tests: list[str] = field(default_factory=list)
    flaky_tests: list[str] = field(default_factory=list)
    build_notes: str = ""
    main_root: str = MAIN_ROOT  # the fixed revision's source folders
    test_root: str = TEST_ROOT
    relevant_by: str = (
        ""  # how the relevant tests were found (benchsmith.builders.mine.reproduce.BY_CLASS_LOADING, BY_SOURCE)
    )
    duplicate_of: int = 0  # an instance with the same patch found first (a pull request's commit and its merge)
    issue: str = ""  # "fetched", why the report could not be fetched, or "" (not asked)
    seconds: float = 0.0

    @property
    def instance(self) -> bool:
        return not self.reason and self.bug_id > 0 and not self.duplicate_of

    @classmethod
    def from_json(cls, data: dict) -> StepOutcome:
        return cls(**data)


def mark_duplicates(project_dir: Path, outcomes: list[StepOutcome]) -> None:
    """An instance whose patch (``index`` lines aside) an earlier one has is the same fix reached twice (a pull
    request's commit and its merge): only the first is kept."""
    first: dict[str, int] = {}
    for outcome in outcomes:
        if not outcome.instance:
            continue
        patch = project_dir / "patches" / f"{outcome.bug_id}.src.patch"
        text = "\n".join(
            line for line in patch.read_text(errors="replace").splitlines() if not line.startswith("index ")
        )
        key = hashlib.sha256(text.encode(errors="surrogateescape")).hexdigest()
        if key in first:
            outcome.duplicate_of = first[key]
        else:
            first[key] = outcome.bug_id


def write_project(project_dir: Path, outcomes: list[StepOutcome]) -> None:
    """Every Defects4J file of the project from the instances among *outcomes*; patches of other steps removed."""
    instances = sorted((o for o in outcomes if o.instance), key=lambda o: o.bug_id)
    keep = {f"{o.bug_id}.src.patch" for o in instances}
    for patch in (project_dir / "patches").glob("*.src.patch"):
        if patch.name not in keep:
            patch.unlink()
    rows = [ACTIVE_BUGS_HEADER] + [[str(o.bug_id), o.parent, o.sha, o.report_id, o.report_url] for o in instances]
    write_text_atomic(project_dir / "active-bugs.csv", _csv(rows))
    layout = [[revision, o.main_root, o.test_root] for o in instances for revision in (o.parent, o.sha)]
    write_text_atomic(project_dir / "dir-layout.csv", _csv(layout))
    write_text_atomic(
        project_dir / "commit-dates.csv",
        _csv([["bug.id", "revision.id.fixed", "commit.date"]] + [[str(o.bug_id), o.sha, o.date] for o in instances]),
    )
    flaky: set[str] = set()
    for o in instances:
        write_text_atomic(project_dir / "trigger_tests" / str(o.bug_id), "".join(f"--- {t}\n" for t in o.trigger_tests))
        write_text_atomic(project_dir / "relevant_tests" / str(o.bug_id), "".join(f"{c}\n" for c in o.relevant_tests))
        changed_class = o.file_path.removeprefix(o.main_root + "/").removesuffix(".java").replace("/", ".")
        write_text_atomic(project_dir / "modified_classes" / f"{o.bug_id}.src", changed_class + "\n")
        if o.broken_tests:
            write_text_atomic(project_dir / "failing_tests" / o.sha, "".join(f"--- {t}\n" for t in o.broken_tests))
        flaky.update(o.flaky_tests)
    write_text_atomic(project_dir / "dependent_tests", "".join(f"--- {t}\n" for t in sorted(flaky)))


def _csv(rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def selection_counts(outcomes: list[StepOutcome]) -> dict:
    """The table's columns: steps scanned, referencing an issue, single-method (strict, lenient), reproduced, with
    flaky tests dropped, instances."""
    return {
        "scanned": len(outcomes),
        "referencing_issue": sum(o.referenced for o in outcomes),
        "single_method_strict": sum(o.strict for o in outcomes),
        "single_method_lenient": sum(o.lenient for o in outcomes),
        "reproduced": sum(not o.reason and o.bug_id > 0 for o in outcomes),
        "with_flaky_tests": sum(bool(o.flaky_tests) for o in outcomes if o.lenient),
        "flaky_tests": sum(len(o.flaky_tests) for o in outcomes),
        "instances": sum(o.instance for o in outcomes),
    }


def card(meta: dict, outcomes: list[StepOutcome]) -> dict:
    instances = [o for o in outcomes if o.instance]
    dates = sorted((o.date for o in instances), key=datetime.fromisoformat)  # committers' offsets differ
    return {
        **meta,
        "counts": selection_counts(outcomes),
        "instance_dates": {"first": dates[0], "last": dates[-1]} if dates else None,
        "rejections": dict(
            Counter(o.reason or "duplicate of an earlier instance" for o in outcomes if not o.instance).most_common()
        ),
        "issue_text": dict(Counter(o.issue or "not asked" for o in instances)),
        "relevant_tests_found_by": dict(Counter(o.relevant_by.partition(":")[0] or "not recorded" for o in instances)),
        "steps": [asdict(o) for o in outcomes],
    }


def render_card(data: dict) -> str:
    counts = data["counts"]
    dates = data["instance_dates"]
    lines = [
        f"# {data['project']}: Defects4J-NL2Fix instances mined from git history",
        "",
        f"Mined by {data['tool']} on {data['mined_at']} from `{data['repo']}` (HEAD {data['head'][:12]}), "
        f"commits (each against its first parent) committed {data['since'] or 'from the start'} to "
        f"{data['until'] or 'HEAD'}; "
        f"trackers: {data['trackers']}; `{data['selection']}` single-method rule; each test run {data['runs']} times.",
        "",
        f"{counts['instances']} instances"
        + (f", fixed between {dates['first']} and {dates['last']}." if dates else "."),
        "",
        "| scanned | referencing an issue | single-method strict | lenient | reproduced | with flaky tests | instances "
        "|",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        f"| {counts['scanned']} | {counts['referencing_issue']} | {counts['single_method_strict']} | "
        f"{counts['single_method_lenient']} | {counts['reproduced']} | {counts['with_flaky_tests']} | "
        f"{counts['instances']} |",
        "",
        "## Rejected steps by reason",
        "",
    ]
    lines += [f"- {reason}: {count}" for reason, count in data["rejections"].items()]
    found_by = data.get("relevant_tests_found_by") or {}
    lines += [
        "",
        "Relevant tests (the test classes that load the changed class) found by "
        + (", ".join(f"{way}: {count}" for way, count in found_by.items()) or "no instance")
        + ".",
    ]
    lines += [
        "",
        "## Instances",
        "",
        "| bug | fixed commit | commit date | report | trigger tests | issue text |",
        "| --- | --- | --- | --- | ---: | --- |",
    ]
    for step in data["steps"]:
        if not step["reason"] and step["bug_id"]:
            lines.append(
                f"| {data['project']}-{step['bug_id']} | {step['sha'][:12]} | {step['date']} | "
                f"{step['report_url']} | {len(step['trigger_tests'])} | {step['issue'] or 'not asked'} |"
            )
    lines += [
        "",
        "## Steps that reached reproduction and failed it",
        "",
        "| commit | reason | detail |",
        "| --- | --- | --- |",
    ]
    for step in data["steps"]:
        if step["reason"] and step["lenient"]:
            detail = step["detail"].replace("|", "\\|").replace("\n", " ")[:300]
            lines.append(f"| {step['sha'][:12]} | {step['reason']} | {detail} |")
    return "\n".join(lines) + "\n"
