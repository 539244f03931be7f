"""The harness's memory and disk for a candidate that floods every stream it has
(``benchsmith.runners.sandbox.streams``).

One classbench task (the bundled geometry fixture, or --dataset) is judged by
``benchsmith.runners.python.class_runner.TaskRunner`` as ``benchsmith eval`` judges it: first
its gold class, then a wrong class that, on import, writes --megabytes MB to
pytest's saved stdout and to its saved stderr (the descriptors that reach the
harness whatever pytest captures), as much to the report's descriptor, and a
file of that size into its tree. The harness process's resident memory is
sampled every 10 ms while it judges that candidate; the script prints its
baseline, its peak, the process's lifetime peak (``ru_maxrss``), the bytes of
the candidate's log, and the bytes left behind by the run (its log folder and
the runner's scratch folder after it closed). It fails when the peak is not
under --limit MB.

    python bench/output_flood.py [--megabytes 250] [--limit 300] [--dataset geometry.parquet]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchsmith.core.config import cache_dir
from benchsmith.core.progress import setup_logging
from benchsmith.core.schema import ClassBenchTask, read_records
from benchsmith.runners.python.class_runner import TaskRunner, reference_solution
from benchsmith.runners.sandbox import jail as sandbox

ROOT = Path(__file__).resolve().parents[1]

# Every descriptor open for writing but the report's (pytest's saved stdout and stderr: a pipe to the harness, or the
# log file itself), then a file in its tree; then its module fails to load, so that its directives are missing and
# the harness looks into its log for the reason.
FLOOD = """
import fcntl as _fcntl, os as _os, stat as _stat
_chunk = b'z' * (1 << 20)
_report = int(_os.environ.get('BENCHSMITH_REPORT_FD', '-1'))
for _fd in range(1, 64):
    try:
        _mode = _os.fstat(_fd).st_mode
        if _fd == _report or not (_stat.S_ISFIFO(_mode) or _stat.S_ISREG(_mode)):
            continue
        if _fcntl.fcntl(_fd, _fcntl.F_GETFL) & 3 == 0:  # read-only
            continue
        for _ in range({megabytes}):
            _os.write(_fd, _chunk)
    except OSError:
        pass
try:
    with open(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), 'flood.bin'), 'wb') as _handle:
        for _ in range({megabytes}):
            _handle.write(_chunk)
except OSError:
    pass
raise ImportError('flooded')
"""
# The report's descriptor, flooded with bytes that are no report.
REPORT_FLOOD = """
import os as _os
_chunk = b'r' * (1 << 20)
for _ in range({megabytes}):
    _os.write(int(_os.environ['BENCHSMITH_REPORT_FD']), _chunk)
"""


def rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def tree_bytes(root: Path) -> int:
    return sum(p.lstat().st_size for p in root.rglob("*") if p.is_file() or p.is_symlink()) if root.exists() else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--megabytes", type=int, default=250, help="written to each stream and to the tree")
    parser.add_argument("--limit", type=int, default=300, help="the harness's peak resident memory must stay under it")
    parser.add_argument("--dataset", type=Path, help="a classbench dataset (default: built from the geometry fixture)")
    parser.add_argument("--wall", type=float, default=300.0, help="wall-clock limit per candidate, seconds")
    args = parser.parse_args()
    setup_logging(False)
    dataset = args.dataset
    if dataset is None:
        dataset = Path(tempfile.mkdtemp()) / "geometry.parquet"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "benchsmith.cli",
                "classbench",
                "build",
                "--repo",
                str(ROOT / "data/fixtures/classbench/geometry"),
                "--out",
                str(dataset),
            ],
            check=True,
            cwd=ROOT,
        )
    task = read_records(dataset, ClassBenchTask)[0]
    print(sandbox.missing_layers())
    logs = Path(tempfile.mkdtemp(prefix="flood-logs-"))
    gold = reference_solution(task)
    wrong = (
        gold.replace("return abs(total) / 2", "return abs(total)")
        if "abs(total) / 2" in gold
        else f"class {task.class_name}:\n    pass\n"
    )
    floods = {
        name: text.format(megabytes=args.megabytes).strip("\n") + "\n\n" + wrong
        for name, text in (("flood", FLOOD), ("report-flood", REPORT_FLOOD))
    }
    with sandbox.leased_slot() as slot:
        runner = TaskRunner(task, slot, sandbox.Limits(wall_seconds=args.wall), logs)
        scratch = runner.scratch
        try:
            first = runner.evaluate(gold, "gold")
            measured = {}
            for name, code in floods.items():
                baseline = rss_bytes()
                peak, done = [baseline], threading.Event()

                def sample() -> None:
                    while not done.is_set():
                        peak[0] = max(peak[0], rss_bytes())
                        time.sleep(0.01)

                sampler = threading.Thread(target=sample, daemon=True)
                sampler.start()
                started = time.monotonic()
                verdict = runner.evaluate(code, name)
                done.set()
                sampler.join()
                measured[name] = (verdict, baseline, peak[0], time.monotonic() - started)
            after = runner.evaluate(gold, "gold-after")
        finally:
            runner.close()
    left = {
        "log folder": tree_bytes(logs),
        "runner scratch": tree_bytes(scratch),
        "eval cache": tree_bytes(cache_dir("classbench", "eval")),
    }
    mb = 1 << 20
    print(f"task {task.task_id}: gold {first.status} before, {after.status} after")
    print(
        f"flood: {args.megabytes} MB to its saved stdout and to its saved stderr, {args.megabytes} MB into its tree, "
        f"then its module fails to load; report-flood: {args.megabytes} MB of no report to the report's descriptor"
    )
    for name, (verdict, baseline, peak, seconds) in measured.items():
        print(
            f"{name}: {verdict.status} ({verdict.reason[:90]}) in {seconds:.1f}s; harness resident memory: baseline "
            f"{baseline / mb:.1f} MB, peak {peak / mb:.1f} MB (+{(peak - baseline) / mb:.1f}); its log "
            f"{(logs / f'{name}.log').stat().st_size} bytes"
        )
    print(
        f"process lifetime peak (ru_maxrss) {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f} MB "
        f"(limit {args.limit} MB); left behind: " + ", ".join(f"{name} {size} bytes" for name, size in left.items())
    )
    peaks_ok = all(peak < args.limit * mb for _, _, peak, _ in measured.values())
    ok = (
        peaks_ok
        and first.status == after.status == "plausible"
        and all(v.status != "plausible" for v, *_ in measured.values())
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
