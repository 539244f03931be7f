"""Verdicts about the candidate, never about the machine: the same candidates idle and under load, and 10,000 at once.

Two measurements on the fixtures' real candidates (the Ledger NL2Fix fixture's gold, buggy and mutated methods, the
geometry classbench fixture's gold, empty and wrong classes; see bench/serve_load.py):

* **idle vs loaded**: `eval` judges them on an idle machine, then again (fresh results, same code) while
  --load-factor × cores other processes spin on the CPU; every status must be the same.
* **at scale**: --total candidates (the real ones replicated across models, so that each run's duplicates are
  shared as in any large run) with --degenerate of them (1% by default) parser bombs in each language, five
  shapes each, plus empty, binary and oversized text; `eval` must finish with one verdict for every candidate,
  every honest gold plausible, no bomb plausible.

    python bench/verdicts_at_scale.py [--mutants 8] [--workers 2] [--load-factor 5] [--total 10000]
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.serve_load import build_fixtures, candidates_of, run_eval  # noqa: E402
from benchsmith.core.progress import setup_logging  # noqa: E402
from tests.harness.test_parser_bombs import java_bombs, python_bombs  # noqa: E402

SPIN = "while True:\n    pass\n"


def is_classbench(instance_id: str) -> bool:
    """The geometry classbench fixture's task, not one of the Ledger NL2Fix fixture's bugs."""
    return not instance_id.startswith("Ledger-")


def statuses(results: dict) -> dict:
    return {key: result.status for key, result in results.items()}


def idle_vs_loaded(work: Path, rows: list[dict], nl2fix: Path, geometry: Path, repos: Path, args) -> bool:
    by_dataset = {
        nl2fix: [r for r in rows if not is_classbench(r["instance_id"])],
        geometry: [r for r in rows if is_classbench(r["instance_id"])],
    }
    runs: dict[str, dict] = {"idle": {}, "loaded": {}}
    seconds: dict[str, float] = {"idle": 0.0, "loaded": 0.0}
    spinners = []
    for phase in ("idle", "loaded"):
        if phase == "loaded":
            count = args.load_factor * (os.cpu_count() or 1)
            spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(count)]
            time.sleep(2)
        try:
            for number, (dataset, its_rows) in enumerate(by_dataset.items()):
                results, took, _ = run_eval(dataset, its_rows, work / f"{phase}-{number}", repos, args.workers)
                runs[phase].update(statuses(results))
                seconds[phase] += took
            load = os.getloadavg()[0]
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
        print(f"{phase:>7}: {len(runs[phase])} candidates judged in {seconds[phase]:.1f} s, load average {load:.1f}")
    differ = sorted(k for k in runs["idle"] if runs["idle"][k] != runs["loaded"].get(k))
    counts = collections.Counter(runs["idle"].values())
    print(f"statuses idle: {dict(sorted(counts.items()))}")
    print(f"candidates whose status differs idle vs loaded: {len(differ)} of {len(runs['idle'])}")
    for key in differ:
        print(f"  {key}: idle {runs['idle'][key]}, loaded {runs['loaded'].get(key)}")
    return not differ and set(runs["idle"]) == set(runs["loaded"])


def degenerate(rows: list[dict]) -> list[dict]:
    """Bombs around code that is wrong on purpose, as tests/harness/test_parser_bombs.py builds them: for Java at the
    start of the buggy method's body, for Python as the body of an empty class; a plausible bomb is a defence
    failing."""
    made = []
    for instance_id in sorted({r["instance_id"] for r in rows}):
        gold = next(r["code"] for r in rows if r["instance_id"] == instance_id and r["candidate_id"] == "gold")
        if is_classbench(instance_id):
            head = gold[gold.index("class ") :].partition(":")[0].partition("(")[0]
            shapes = {name: f"{head}:\n{bomb}" for name, bomb in python_bombs().items()}
        else:
            buggy = next(r["code"] for r in rows if r["instance_id"] == instance_id and r["candidate_id"] == "buggy")
            head, _, body = buggy.partition("{")
            shapes = {name: f"{head}{{\n{bomb}\n{body}" for name, bomb in java_bombs().items()}
        shapes.update(
            {"empty": "", "binary": "\x00\xff\ufffd" * 1000, "oversized": "x = 1\n" * 400_000, "prose": "I cannot."}
        )
        made += [{"instance_id": instance_id, "candidate_id": f"bomb-{name}", "code": c} for name, c in shapes.items()]
    return made


def at_scale(work: Path, rows: list[dict], nl2fix: Path, geometry: Path, repos: Path, args) -> bool:
    bombs = degenerate(rows)
    want_bombs = max(1, round(args.total * args.degenerate))
    bombs = [
        dict(b, candidate_id=f"{b['candidate_id']}-{n}") for n, b in enumerate(bombs * (want_bombs // len(bombs) + 1))
    ]
    bombs = bombs[:want_bombs]
    honest: list[dict] = []
    model = 0
    while len(honest) + len(bombs) < args.total:
        honest += [dict(r, candidate_id=f"{r['candidate_id']}@m{model}", model=f"m{model}") for r in rows]
        model += 1
    honest = honest[: args.total - len(bombs)]
    every = honest + bombs
    every = [every[i] for i in sorted(range(len(every)), key=lambda i: (i * 7919) % len(every))]  # bombs spread out
    print(f"at scale: {len(every)} candidates, {len(bombs)} degenerate ({len(bombs) / len(every):.1%}), {model} models")
    ok = True
    started = time.perf_counter()
    judged: dict = {}
    for number, dataset in enumerate((nl2fix, geometry)):
        mine = [r for r in every if is_classbench(r["instance_id"]) == (dataset == geometry)]
        results, took, _ = run_eval(dataset, mine, work / f"scale-{number}", repos, args.workers)
        judged.update(results)
        print(f"  {dataset.name}: {len(mine)} candidates, {len(results)} verdicts in {took:.1f} s")
    seconds = time.perf_counter() - started
    keys = {(r["instance_id"], r["candidate_id"]) for r in every}
    missing = keys - set(judged)
    counts = collections.Counter(result.status for result in judged.values())
    golds = [judged[k] for k in keys if k[1].startswith("gold@")]
    bomb_passed = [k for k in keys if k[1].startswith("bomb-") and judged.get(k) and judged[k].status == "plausible"]
    print(
        f"  {len(judged)} verdicts for {len(keys)} candidates in {seconds:.1f} s; "
        f"statuses {dict(sorted(counts.items()))}"
    )
    print(
        f"  missing verdicts: {len(missing)}; golds plausible: {sum(g.status == 'plausible' for g in golds)} of "
        f"{len(golds)}; bombs plausible: {len(bomb_passed)}"
    )
    harness_errors = [r for r in judged.values() if r.status == "error"]
    print(
        f"  harness errors: {len(harness_errors)}"
        + (f", first: {harness_errors[0].reason[:200]}" if harness_errors else "")
    )
    ok = not missing and all(g.status == "plausible" for g in golds) and not bomb_passed
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--load-factor", type=int, default=5)
    parser.add_argument("--total", type=int, default=10_000)
    parser.add_argument("--degenerate", type=float, default=0.01)
    parser.add_argument("--skip", choices=("load", "scale"), default=None)
    args = parser.parse_args()
    setup_logging(False)
    with tempfile.TemporaryDirectory(prefix="verdicts-at-scale-", dir=os.environ.get("BENCHSMITH_CACHE")) as folder:
        work = Path(folder)
        nl2fix, geometry, repos = build_fixtures(work)
        rows = candidates_of(nl2fix, geometry, args.mutants)
        ok = True
        if args.skip != "load":
            ok &= idle_vs_loaded(work, rows, nl2fix, geometry, repos, args)
        if args.skip != "scale":
            ok &= at_scale(work, rows, nl2fix, geometry, repos, args)
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
