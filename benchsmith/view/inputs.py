"""What ``benchsmith view`` reads, matched up: each results file with its candidates, dataset, ranking and transcripts.

A file that cannot be read, or a dataset or ranking that does not belong to the results, is a one-line error naming
it. What a run merely lacks (the logs folder left behind, no candidates file, a transcript cut short at its last line)
is not: it becomes a notice the page shows where the missing thing would have been.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchsmith.benchmarks import benchmark_of
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import Candidate, RankedCandidate, Result, read_candidates, read_records, read_stamp

# What a candidate's code is diffed against, per dataset record: the field, what the page calls it, and whether it is a
# ground truth (shown only when the reader opted in: a page that shows it spoils the benchmark for whoever reads it).
REFERENCES: dict[str, tuple[str, str, bool]] = {
    "NL2FixInstance": ("buggy_method", "the buggy method", False),
    "ClassBenchTask": ("ground_truth_class", "the ground truth class", True),
}

Key = tuple[str, str]  # (instance_id, candidate_id)


@dataclass
class Run:
    """One results file and everything matched to it."""

    name: str  # the results file's stem: the run's label on the page
    path: Path
    benchmark: str  # from the results' stamp ("nl2fix", "classbench"); "" when unstamped
    results: list[Result]
    code: dict[tuple[str, str, str, str], str] = field(default_factory=dict)  # (instance, candidate, model, strategy)
    references: dict[str, str] = field(default_factory=dict)  # instance_id -> what its candidates are diffed against
    reference_label: str = ""
    instances: dict[str, Any] = field(default_factory=dict)  # instance_id -> its dataset record
    ranking: dict[Key, RankedCandidate] | None = None
    transcripts: list[dict[str, Any]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # what is missing, as the page says it


@dataclass
class Inputs:
    runs: list[Run]
    notices: list[str]  # about the whole site (a transcript line cut short, a candidates file that matched nothing)


def candidate_key(row: Result | Candidate) -> tuple[str, str, str, str]:
    return (row.instance_id, row.candidate_id, row.model, row.strategy)


def read_run(path: Path) -> Run:
    stamp = read_stamp(path)
    results = read_records(path, Result)
    if not results:
        raise BenchsmithError(f"{path}: holds no results")
    return Run(path.name.removesuffix(".parquet"), path, stamp.benchmark if stamp else "", results)


def read_transcripts(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """An agent run's transcripts; a last line cut short (an agent stopped mid-write) is a notice, any other line
    that is not a transcript an error."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BenchsmithError(f"{path}: no such transcripts file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchsmithError(f"{path}: cannot read transcripts file: {exc}") from None
    lines = text.splitlines()
    last = max((n for n, line in enumerate(lines, start=1) if line.strip()), default=0)
    transcripts, notices = [], []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            if number == last and not text.endswith("\n"):
                notices.append(
                    f"{path}:{number}: the last line is cut short ({exc}); that transcript is missing from this "
                    f"site, the {len(transcripts)} before it are here"
                )
                continue
            raise BenchsmithError(f"{path}:{number}: not JSON: {exc}") from None
        if (
            not isinstance(row, dict)
            or not isinstance(row.get("task_id"), str)
            or not isinstance(row.get("events"), list)
        ):
            raise BenchsmithError(f"{path}:{number}: not an agent transcript (no task_id and events)")
        transcripts.append(row)
    return transcripts, notices


def _attach_candidates(runs: list[Run], paths: list[Path], notices: list[str]) -> None:
    wanted: dict[tuple[str, str, str, str], list[Run]] = defaultdict(list)  # two evaluations of one candidates file
    for run in runs:
        for key in {candidate_key(r) for r in run.results}:
            wanted[key].append(run)
    for path in paths:
        matched = 0
        for candidate in read_candidates(path):
            for run in wanted.get(candidate_key(candidate), []):
                run.code[candidate_key(candidate)] = candidate.code
                matched += 1
        if not matched:
            notices.append(f"{path}: none of its candidates is among the results; its code is not shown")
    for run in runs:
        if not paths:
            run.notices.append("no --candidates given: the candidates' code is not shown")
        elif len(run.code) < len(run.results):
            run.notices.append(
                f"{len(run.results) - len(run.code)} of {len(run.results)} candidates have no code in the "
                f"--candidates files; their pages say so"
            )


def _attach_datasets(runs: list[Run], paths: list[Path], ground_truth: bool) -> None:
    records_by_kind: dict[str, dict[str, Any]] = defaultdict(dict)
    kind_of: dict[str, str] = {}
    for path in paths:
        benchmark = benchmark_of(path)
        records = read_records(path, benchmark.record_type)
        kind_of[str(path)] = benchmark.name
        for record in records:
            records_by_kind[benchmark.name][benchmark.instance_id(record)] = record
    for run in runs:
        wanted = {r.instance_id for r in run.results}
        if not paths:
            run.notices.append("no --dataset given: code is shown without a diff, and instances without their text")
            continue
        kinds = [run.benchmark] if run.benchmark else list(records_by_kind)
        held = {i: rec for kind in kinds for i, rec in records_by_kind.get(kind, {}).items() if i in wanted}
        if not held:
            offered = ", ".join(f"{p} ({kind_of[str(p)]})" for p in paths)
            raise BenchsmithError(
                f"--dataset {offered} does not match {run.path}: none of its {len(wanted)} instances (such as "
                f"{min(wanted)!r}) is in it"
            )
        missing = sorted(wanted - set(held))
        if missing:
            raise BenchsmithError(
                f"--dataset does not match {run.path}: {len(missing)} of its {len(wanted)} instances are in no "
                f"dataset given, such as {missing[0]!r}"
            )
        run.instances = held
        kind = type(next(iter(held.values()))).__name__
        if kind in REFERENCES:
            name, label, spoils = REFERENCES[kind]
            if spoils and not ground_truth:
                run.notices.append(f"{label} is hidden (pass --ground-truth to diff against it)")
            else:
                run.references = {i: getattr(rec, name) for i, rec in held.items()}
                run.reference_label = label


def _attach_rankings(runs: list[Run], paths: list[Path]) -> None:
    for path in paths:
        ranking = {(r.instance_id, r.candidate_id): r for r in read_records(path, RankedCandidate)}
        owners = [run for run in runs if all((r.instance_id, r.candidate_id) in ranking for r in run.results)]
        if not owners:
            raise BenchsmithError(
                f"--ranking {path} does not match the results: no results file has all its candidates ranked in it"
            )
        for run in owners:
            run.ranking = ranking


def _attach_transcripts(runs: list[Run], paths: list[Path], notices: list[str]) -> None:
    for path in paths:
        transcripts, cut = read_transcripts(path)
        notices.extend(cut)
        attached = 0
        for transcript in transcripts:
            for run in runs:
                if any(
                    r.instance_id == transcript["task_id"]
                    and r.strategy == transcript.get("agent", r.strategy)
                    and r.model == transcript.get("model", r.model)
                    for r in run.results
                ):
                    run.transcripts.append(transcript)
                    attached += 1
                    break
        if transcripts and not attached:
            raise BenchsmithError(
                f"--transcripts {path} does not match the results: none of its {len(transcripts)} tasks (such as "
                f"{transcripts[0]['task_id']!r}, agent {transcripts[0].get('agent')!r}) has results given"
            )


def read_inputs(
    results: list[Path],
    candidates: list[Path] | None = None,
    datasets: list[Path] | None = None,
    rankings: list[Path] | None = None,
    transcripts: list[Path] | None = None,
    ground_truth: bool = False,
) -> Inputs:
    """Every file read and matched to its results file; raises :class:`BenchsmithError` on the first that does not
    fit."""
    runs = [read_run(Path(p)) for p in results]
    names = [run.name for run in runs]
    if len(set(names)) != len(names):
        raise BenchsmithError(f"--results: two files share a name ({names}); the page tells runs apart by file name")
    notices: list[str] = []
    _attach_candidates(runs, [Path(p) for p in candidates or []], notices)
    _attach_datasets(runs, [Path(p) for p in datasets or []], ground_truth)
    _attach_rankings(runs, [Path(p) for p in rankings or []])
    _attach_transcripts(runs, [Path(p) for p in transcripts or []], notices)
    return Inputs(runs, notices)
