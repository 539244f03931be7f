"""Real model output judged by the fast and the plain path: RepairLlama's published CodeLlama generations.

The input is one of the evaluation files ASSERT-KTH/repairllama publishes (``results/0_original/
evaluation_defects4j_zero-shot-cloze_codellama-ir4.jsonl.gz``): per Defects4J bug, its buggy function, a cloze
prompt (the function with the buggy lines commented out and ``<FILL_ME>`` where they were) and ten generations, each
the prompt with the hole filled, with the compile and test verdicts the real Defects4J gave it. Every bug of it that
is an NL2Fix instance here (``nl2fix build --no-scrape`` over the file's bugs of the chosen projects) becomes ten
candidates: the whole method, as RepairLlama's evaluation put it in the buggy file (it replaced the function's own
lines, so the annotations above them, which its ``buggy_code`` leaves out, stay; the candidate here is a whole
method, so it gets them back). Every generation that cannot be mapped is counted with its reason.

Then, in one run: ``eval``'s fast path on every candidate (``--workers`` runners, each instance's candidates
deduplicated as ``eval`` does), and the plain path on a seeded sample of them (``--sample``), at the same time
(``--after``: once the fast path is done, so that it has the machine to itself; the total is then longer). Printed:
seconds per candidate per status (median, p90, p99; over every candidate, over those a run judged, and over those
after each instance's first, which pays its runner's start), candidates per second, statuses that are identical
between the two paths on the sample, and agreement with the file's own verdicts, every disagreement listed by class.
Workspaces are prepared (compiled once, cached) before the clock starts; their time is printed apart. The load
average is printed at the start and the end of the timed part.

    python bench/real_output.py --defects4j D4J_ROOT --repos DIR --generations FILE.jsonl.gz [--sample 300]
    [--workers 2] [--seed 40] [--projects P,Q] [--bugs B,C] [--after] [--out DIR]
    python bench/real_output.py --generations FILE.jsonl.gz --summarize DIR   # a run stored under DIR, stopped or not
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from benchsmith.benchmarks import EvalOptions
from benchsmith.builders.nl2fix import BuildOptions, build
from benchsmith.core.journal import Journal
from benchsmith.core.progress import setup_logging
from benchsmith.core.schema import Candidate, NL2FixInstance, Result, read_candidates, read_records
from benchsmith.runners.java.defects4j_workspace import prepare
from benchsmith.runners.java.insertion import dedup_key
from benchsmith.scoring.evaluate import evaluate
from benchsmith.sources.defects4j import PAPER_PROJECTS, Defects4JRoot

STATUSES = ("plausible", "wrong", "uncompilable", "timeout", "error")
HOLE = "<FILL_ME>"


@dataclass(frozen=True)
class Published:
    """One generation of the file, with the verdict the real Defects4J gave it."""

    bug: str
    number: int
    verdict: str  # plausible, wrong or uncompilable
    exact_match: bool = False  # the file's own check; every exact match there is compiled and passing


def published_verdict(evaluation: dict) -> str:
    if not evaluation.get("compile"):
        return "uncompilable"
    return "plausible" if evaluation.get("test") else "wrong"


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def preamble(method: str, function: str) -> str | None:
    """The lines of *method* (an instance's, annotations included) above the text *function* holds, when the rest of
    *method* is *function* up to white space; None when no such split exists."""
    lines = method.splitlines(keepends=True)
    for number in range(len(lines)):
        if _squeezed("".join(lines[number:])) == _squeezed(function):
            return "".join(lines[:number])
    return None


def candidates_from(
    rows: list[dict], instances: dict[str, NL2FixInstance], rejected: dict[str, str]
) -> tuple[list[Candidate], dict[str, Published], Counter]:
    """The whole-method candidates of the file's generations, their published verdicts, and every generation left
    out, counted by reason."""
    candidates: list[Candidate] = []
    published: dict[str, Published] = {}
    unmapped: Counter = Counter()
    for row in rows:
        bug, generations = row["identifier"], row.get("generation") or []
        evaluations = row.get("evaluation") or []
        instance = instances.get(bug)
        if instance is None:
            why = rejected.get(bug, "not asked for (another project)")
            unmapped[f"not an NL2Fix instance: {why}"] += len(generations)
            continue
        prompt = row.get("prompt") or ""
        if prompt.count(HOLE) != 1:
            unmapped[f"the prompt has {prompt.count(HOLE)} holes, not one"] += len(generations)
            continue
        before, _, after = prompt.partition(HOLE)
        above = preamble(instance.buggy_method, row.get("buggy_code") or "")
        if above is None:
            unmapped["the file's buggy function is not the instance's buggy method"] += len(generations)
            continue
        for number, generation in enumerate(generations):
            evaluation = evaluations[number] if number < len(evaluations) else None
            if not isinstance(generation, str):
                unmapped["no generation (null)"] += 1
            elif evaluation is None or evaluation.get("generation") != generation:
                unmapped["no evaluation of this generation"] += 1
            elif not (generation.startswith(before) and generation.endswith(after)):
                unmapped["the generation is not the prompt with its hole filled"] += 1
            else:
                candidate_id = f"codellama-{number}"
                candidates.append(Candidate(bug, candidate_id, above + generation, "codellama-7b", "zero-shot-cloze"))
                published[f"{bug}/{candidate_id}"] = Published(
                    bug, number, published_verdict(evaluation), bool(evaluation.get("exact_match"))
                )
    return candidates, published, unmapped


def inactive_bugs(d4j: Defects4JRoot, bugs: list[str]) -> dict[str, str]:
    """The bugs of the file that are not active bugs of *d4j* (the file was judged on Defects4J 2; version 3
    deprecated Lang-18 and Lang-48, which Java 11 does not reproduce), each with why."""
    found = {}
    for bug in bugs:
        project, _, number = bug.rpartition("-")
        if project not in d4j.available_projects():
            found[bug] = f"{project} is not a project of {d4j.root}"
        elif int(number) not in {b.bug_id for b in d4j.bugs(project)}:
            found[bug] = d4j.deprecated_bugs(project).get(int(number), f"not an active bug of {d4j.root}")
    return found


def read_rows(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def percentiles(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return f"median {statistics.median(ordered):.3f}  p90 {at(0.90):.3f}  p99 {at(0.99):.3f}  (n={len(ordered)})"


def executed_ids(candidates: list[Candidate]) -> set[str]:
    """The candidates ``eval`` runs (the first of each instance's twins by dedup key); the rest share a verdict."""
    seen: set[tuple[str, str]] = set()
    first = set()
    for candidate in candidates:
        key = (candidate.instance_id, dedup_key(candidate.code))
        if key not in seen:
            seen.add(key)
            first.add(f"{candidate.instance_id}/{candidate.candidate_id}")
    return first


def timing_table(name: str, results: list[Result], executed: set[str]) -> None:
    print(f"{name}: seconds per candidate")
    ran = [r for r in results if f"{r.instance_id}/{r.candidate_id}" in executed]
    # The first candidate an instance's runner judges pays the runner's start (the warm compiler, the ground truth's
    # reference run, the first test JVM): eval charges it to that candidate. The candidates after it are apart.
    # A candidate the parser turns away (no path) starts nothing.
    firsts: dict[str, str] = {}
    for r in ran:
        if r.runner:
            firsts.setdefault(r.instance_id, r.candidate_id)
    later = [r for r in ran if firsts.get(r.instance_id) != r.candidate_id]
    starts = [r.seconds for r in ran if firsts.get(r.instance_id) == r.candidate_id]
    rows = (
        ("every candidate (a shared verdict at 0 s)", results),
        ("judged by a run", ran),
        ("judged by a run, after the runner's first", later),
    )
    print(f"  the first candidate of each instance (the runner's start included): {percentiles(starts)}")
    for label, chosen in rows:
        print(f"  {label}: {percentiles([r.seconds for r in chosen])}")
        for status in STATUSES:
            values = [r.seconds for r in chosen if r.status == status]
            if values:
                print(f"    {status:12} {percentiles(values)}")


def ours(status: str) -> str:
    return "wrong" if status == "timeout" else status  # Defects4J's test verdict counts a timeout as a failure


def disagreement_class(result: Result, published: Published, instance: NL2FixInstance) -> str:
    mine, theirs = ours(result.status), published.verdict
    if published.exact_match:  # the file's 130 exact matches all compiled and passed there
        return (
            f"{mine} here; the file took it for an exact match of the fix, so plausible: "
            + re.sub(r"\s+", " ", result.reason)[:70]
        )
    if mine == "uncompilable":
        return f"uncompilable here, {theirs} there: " + re.sub(r"\s+", " ", result.reason)[:90]
    if mine == "error":
        return f"harness error here, {theirs} there: {result.reason[:90]}"
    if theirs == "uncompilable":
        return f"compiles here ({mine}), did not there"
    if mine == "wrong":
        failing = result.failing_tests[:1]
        kind = "a trigger test" if failing and failing[0] in instance.trigger_tests else "a relevant test"
        return f"wrong here ({result.status}, {kind} fails), plausible there"
    return "plausible here (trigger and relevant tests pass), wrong there"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--defects4j", type=Path)
    parser.add_argument("--repos", type=Path)
    parser.add_argument("--generations", type=Path, required=True, help="a RepairLlama evaluation file (.jsonl[.gz])")
    parser.add_argument("--sample", type=int, default=300, help="candidates the plain path judges too")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument(
        "--projects", default=",".join(PAPER_PROJECTS), help="the NL2Fix projects (default: the paper's)"
    )
    parser.add_argument(
        "--after", action="store_true", help="the plain path after the fast path, not beside it (a quieter fast path)"
    )
    parser.add_argument("--summarize", type=Path, metavar="OUT", help="only report on a run stored under OUT")
    parser.add_argument("--bugs", help="only these bugs (Cli-5,Codec-2): a smaller run, for a profile or a try")
    parser.add_argument("--out", type=Path, help="where the dataset, candidates and results go (default: a temp dir)")
    args = parser.parse_args()
    setup_logging(False)
    out = args.out or Path(tempfile.mkdtemp(prefix="real-output-"))
    out.mkdir(parents=True, exist_ok=True)
    if args.summarize:
        return summarize(args.summarize, args.generations)
    if args.defects4j is None or args.repos is None:
        parser.error("--defects4j and --repos are needed, but with --summarize")
    rows = read_rows(args.generations)
    projects = set(args.projects.split(","))
    with_output = [r for r in rows if r.get("generation")]
    asked = [r for r in with_output if r["identifier"].rsplit("-", 1)[0] in projects]
    if args.bugs:
        asked = [r for r in asked if r["identifier"] in args.bugs.split(",")]
    print(f"{args.generations.name}: {len(rows)} bugs, {len(with_output)} with generations, {len(asked)} asked for")
    d4j = Defects4JRoot(args.defects4j)
    inactive = inactive_bugs(d4j, [r["identifier"] for r in asked])
    bug_list = out / "bugs.txt"
    bug_list.write_text("".join(r["identifier"] + "\n" for r in asked if r["identifier"] not in inactive))
    dataset = out / "nl2fix.parquet"
    card = build(BuildOptions(defects4j=args.defects4j, out=dataset, repos=args.repos, scrape=False, bugs=bug_list))
    rejected = {**inactive, **{r["bug"]: f"{r['reason']}" for r in card["rejections"]}}
    instances = {i.instance_id: i for i in read_records(dataset, NL2FixInstance)}
    candidates, published, unmapped = candidates_from(asked, instances, rejected)
    print(
        f"candidates: {len(candidates)} of {sum(len(r['generation']) for r in asked)} generations, from "
        f"{len({c.instance_id for c in candidates})} instances"
    )
    for reason, count in unmapped.most_common():
        print(f"  left out {count:4}: {reason}")
    started = time.monotonic()
    for bug in sorted({c.instance_id for c in candidates}):
        prepare(instances[bug], d4j, args.repos)
    print(f"workspaces ready in {time.monotonic() - started:.0f}s (cached after their first run)")

    everything = out / "candidates.jsonl"
    everything.write_text("".join(json.dumps(asdict(c)) + "\n" for c in candidates))
    sample = random.Random(args.seed).sample(candidates, min(args.sample, len(candidates)))
    sampled = out / "sample.jsonl"
    sampled.write_text("".join(json.dumps(asdict(c)) + "\n" for c in sample))

    def run(path: Path, fast: bool, name: str) -> tuple[list[Result], float]:
        options = EvalOptions(
            dataset=dataset,
            candidates=path,
            out=out / f"{name}.parquet",
            defects4j=args.defects4j,
            repos=args.repos,
            workers=args.workers,
            fast=fast,
        )
        begun = time.monotonic()
        results = evaluate(options)
        return results, time.monotonic() - begun

    load_before = os.getloadavg()
    (out / "started.json").write_text(json.dumps({"at": time.time(), "load": load_before}))
    if args.after:
        fast, fast_wall = run(everything, True, "fast")
        plain, plain_wall = run(sampled, False, "plain")
    else:  # side by side: each path's runners share the machine with the other's
        with ThreadPoolExecutor(2) as pool:
            fast_run, plain_run = pool.submit(run, everything, True, "fast"), pool.submit(run, sampled, False, "plain")
            (fast, fast_wall), (plain, plain_wall) = fast_run.result(), plain_run.result()
    load_after = os.getloadavg()
    how = "the plain path after the fast path" if args.after else "the two paths side by side, at the same time"
    print(
        f"\nload average (1, 5, 15 min): at the start {', '.join(f'{x:.2f}' for x in load_before)}; "
        f"at the end {', '.join(f'{x:.2f}' for x in load_after)}"
    )
    print(f"workers: {args.workers} per path, {how}; results under {out}")
    return report(out, candidates, sample, published, instances, fast, plain, fast_wall, plain_wall)


def stored(out: Path, name: str) -> list[Result]:
    """The results of the run *name* under *out*: its Parquet file, else (a run stopped early) its journal."""
    path = out / f"{name}.parquet"
    if path.exists():
        return read_records(path, Result)
    return Journal(path).read(lambda entry: Result(**entry))


def report(
    out: Path,
    candidates: list[Candidate],
    sample: list[Candidate],
    published: dict[str, Published],
    instances: dict[str, NL2FixInstance],
    fast: list[Result],
    plain: list[Result],
    fast_wall: float | None,
    plain_wall: float | None,
) -> int:
    executed = executed_ids(candidates)
    for name, results, wall, asked in (("fast", fast, fast_wall, candidates), ("plain", plain, plain_wall, sample)):
        rate = f" in {wall:.0f}s: {len(results) / wall:.3f} candidates per second" if wall else " (the wall unknown)"
        print(f"{name} path: {len(results)} of {len(asked)} candidates judged{rate}")
    print("verdicts, fast path: " + ", ".join(f"{s} {sum(r.status == s for r in fast)}" for s in STATUSES))
    timing_table("fast path", fast, executed)
    timing_table("plain path (the sample)", plain, executed_ids(sample))

    by_id = {f"{r.instance_id}/{r.candidate_id}": r for r in fast}
    both = [
        (p, by_id[f"{p.instance_id}/{p.candidate_id}"]) for p in plain if f"{p.instance_id}/{p.candidate_id}" in by_id
    ]
    different = [(p, f) for p, f in both if p.status != f.status]
    print(f"identical statuses, fast and plain, on the sample: {len(both) - len(different)} of {len(both)}")
    for p, f in different:
        print(
            f"  DIFFERENT {p.instance_id} {p.candidate_id}: fast {f.status} ({f.reason[:80]}) / plain {p.status} "
            f"({p.reason[:80]})"
        )
    print(
        "by the file: " + ", ".join(f"{v} {c}" for v, c in Counter(p.verdict for p in published.values()).most_common())
    )
    for name, results in (("fast", fast), ("plain", plain)):
        classes: dict[str, list[str]] = defaultdict(list)
        agreeing = 0
        lines = []
        for result in results:
            key = f"{result.instance_id}/{result.candidate_id}"
            theirs = published[key].verdict
            if ours(result.status) == theirs:
                agreeing += 1
                continue
            what = disagreement_class(result, published[key], instances[result.instance_id])
            classes[what].append(key)
            lines.append(json.dumps({"candidate": key, "class": what, "published": theirs, **asdict(result)}))
        (out / f"disagreements-{name}.jsonl").write_text("".join(line + "\n" for line in lines))
        share = 100 * agreeing / len(results) if results else 0.0
        print(f"agreement with the file's verdicts, {name} path: {agreeing} of {len(results)} ({share:.1f}%)")
        for what, keys in sorted(classes.items(), key=lambda item: -len(item[1])):
            print(f"  {len(keys):4}  {what}")
            print(f"        {', '.join(keys[:12])}{' ...' if len(keys) > 12 else ''}")
    print(f"every disagreement, with its reason: {out}/disagreements-{{fast,plain}}.jsonl")
    return 1 if different else 0


def summarize(out: Path, generations: Path) -> int:
    """The report of a run under *out* from what it stored (a run stopped early: the verdicts its journals hold)."""
    instances = {i.instance_id: i for i in read_records(out / "nl2fix.parquet", NL2FixInstance)}
    candidates, sample = read_candidates(out / "candidates.jsonl"), read_candidates(out / "sample.jsonl")
    wanted = {c.instance_id for c in candidates}
    _, published, _ = candidates_from([r for r in read_rows(generations) if r["identifier"] in wanted], instances, {})
    started = json.loads((out / "started.json").read_text()) if (out / "started.json").exists() else {}
    print(f"a run stored under {out}; load average at its start: {started.get('load')}; now: {os.getloadavg()}")
    return report(out, candidates, sample, published, instances, stored(out, "fast"), stored(out, "plain"), None, None)


if __name__ == "__main__":
    sys.exit(main())
