"""`benchsmith view` on 100,000 candidates, made by replicating a real run's result rows: seconds to write the site,
then, in Debian's headless Chromium, seconds until the instance table is interactive, seconds to filter and search
it, and the tab's memory (its JavaScript heap, from the DevTools protocol, and its renderer processes' resident set).

Each replica of an instance gets an id of its own (``Ledger-1.0007``), with its dataset record copied under it, so
the table holds as many instances as a run of that size would; every replica keeps its row's log, code and verdict.

    python bench/view_scale.py --run data/runs/<ts> --datasets data/datasets [--total 100000] [--out DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchsmith.benchmarks import benchmark_of  # noqa: E402
from benchsmith.core.export import write_records  # noqa: E402
from benchsmith.core.schema import Result, read_candidates, read_records, read_stamp  # noqa: E402


def replicate(run: Path, dataset: Path, out: Path, total: int, name: str = "nl2fix") -> dict[str, Path]:
    """``<out>/<name>-results.parquet``, its candidates and its dataset with *total* rows, copied from *run*'s."""
    out.mkdir(parents=True, exist_ok=True)
    results = read_records(run / f"{name}-results.parquet", Result)
    stamp = read_stamp(run / f"{name}-results.parquet")
    candidates = {(c.instance_id, c.candidate_id): c for c in read_candidates(run / f"{name}-candidates.jsonl")}
    benchmark = benchmark_of(dataset)
    records = {benchmark.instance_id(r): r for r in read_records(dataset, benchmark.record_type)}
    copies = math.ceil(total / len(results))
    answered = {r.instance_id for r in results}
    replicas = [
        dataclasses.replace(record, instance_id=f"{iid}.{k:04d}")
        for k in range(copies)
        for iid, record in records.items()
        if iid in answered
    ]
    rows = []
    with open(out / f"{name}-candidates.jsonl", "w", encoding="utf-8") as lines:
        for k in range(copies):
            for result in results[: total - len(rows)]:
                replica = f"{result.instance_id}.{k:04d}"
                rows.append(dataclasses.replace(result, instance_id=replica))
                candidate = candidates.get((result.instance_id, result.candidate_id))
                if candidate is not None:
                    lines.write(json.dumps({**dataclasses.asdict(candidate), "instance_id": replica}) + "\n")
    written = out / f"{name}-results.parquet"
    write_records(written, rows, Result, stamp.benchmark if stamp else "")
    replicated_dataset = out / dataset.name
    write_records(replicated_dataset, replicas, benchmark.record_type, benchmark.name)
    return {"results": written, "candidates": out / f"{name}-candidates.jsonl", "dataset": replicated_dataset}


def write_site(files: dict[str, Path], site: Path) -> float:
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-m", "benchsmith.cli", "view", "--results", str(files["results"]), "--candidates",
         str(files["candidates"]), "--dataset", str(files["dataset"]), "--k", "1,5,10", "--out", str(site)],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    if completed.returncode != 0:
        raise SystemExit(completed.stderr)
    return time.perf_counter() - started


def _renderer_rss(profile: str) -> tuple[int, int]:
    """Bytes resident in the renderer processes of the Chromium that uses *profile*, and how many there are."""
    parents, commands = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            commands[entry.name] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = (entry / "stat").read_text()
            parents[entry.name] = stat[stat.rindex(")") + 2 :].split()[1]
        except OSError:
            continue
    ours = {pid for pid, command in commands.items() if f"--user-data-dir={profile}" in command}
    total = count = 0
    for pid, command in commands.items():
        ancestor = pid
        while ancestor in parents and ancestor not in ours and ancestor != "1":
            ancestor = parents[ancestor]
        if ancestor in ours and "--type=renderer" in command:
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            total += next(int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmRSS:"))
            count += 1
    return total, count


def measure(site: Path) -> dict[str, float]:
    """Seconds to an interactive table, to filter and to search it, and the tab's memory, in headless Chromium."""
    from playwright.sync_api import sync_playwright

    from tests.helpers.browser import ARGS, CHROMIUM

    profile = tempfile.mkdtemp(prefix="benchsmith-chromium-")
    figures: dict[str, float] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=ARGS, viewport={"width": 1400, "height": 900}
        )
        page = browser.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        cdp = browser.new_cdp_session(page)
        cdp.send("Performance.enable")
        page.goto("about:blank")
        figures["blank_renderer_rss_mb"] = _renderer_rss(profile)[0] / 2**20  # the same tab before the site
        started = time.perf_counter()
        page.goto(f"{site.as_uri()}/index.html#/instances", wait_until="commit")
        page.wait_for_selector("#rows tbody tr", timeout=120_000)
        figures["interactive_s"] = time.perf_counter() - started
        figures["interactive_in_page_s"] = page.evaluate("window.BS_READY_MS") / 1000
        figures["rows"] = page.evaluate("document.querySelector('#count').textContent")
        started = time.perf_counter()
        page.select_option("#filter-status", "wrong")
        page.wait_for_function("document.querySelector('#count').textContent.includes('filtered')")
        figures["filter_wrong_s"] = time.perf_counter() - started
        figures["wrong"] = page.inner_text("#count")
        started = time.perf_counter()
        page.fill("#filter-q", "Ledger-2.07")  # a replica's id: 250 ms of it is the box's wait for typing to stop
        page.wait_for_function("location.hash.includes('q=Ledger-2.07')")
        page.wait_for_selector("#rows tbody tr")
        figures["search_s"] = time.perf_counter() - started
        started = time.perf_counter()
        page.click("#rows th[data-col='t']")
        page.wait_for_function("location.hash.includes('sort=t')")
        figures["sort_s"] = time.perf_counter() - started
        page.click("#rows tbody tr >> nth=0")
        page.wait_for_selector("#log, #log-missing")
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        figures["js_heap_used_mb"] = metrics["JSHeapUsedSize"] / 2**20
        figures["js_heap_total_mb"] = metrics["JSHeapTotalSize"] / 2**20
        rss, processes = _renderer_rss(profile)
        figures["renderer_rss_mb"] = rss / 2**20
        figures["renderer_processes"] = processes
        figures["console_errors"] = len(errors)
        browser.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, required=True, help="a run folder: <name>-results.parquet, its logs, ...")
    parser.add_argument("--datasets", type=Path, required=True, help="the folder holding the run's datasets")
    parser.add_argument("--name", default="nl2fix", help="which results file of the run: <name>-results.parquet")
    parser.add_argument("--total", type=int, default=100_000)
    parser.add_argument("--out", type=Path, help="keep the replicated run and the site here")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="view-scale-"))
    dataset = args.datasets / ("nl2fix.parquet" if args.name == "nl2fix" else "classbench.parquet")
    started = time.perf_counter()
    files = replicate(args.run, dataset, out / "run", args.total, args.name)
    print(f"replicated {args.total} rows in {time.perf_counter() - started:.1f} s")
    print(f"view wrote the site in {write_site(files, out / 'site'):.1f} s")
    size = sum(p.stat().st_size for p in (out / "site").rglob("*") if p.is_file())
    print(f"site: {size / 2**20:.1f} MB")
    for name, value in measure(out / "site").items():
        print(f"{name}: {value:.3f}" if isinstance(value, float) else f"{name}: {value}")
    if not os.environ.get("KEEP") and not args.out:
        print(f"(the replicated run and site are in {out})")


if __name__ == "__main__":
    main()
