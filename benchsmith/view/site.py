"""Writing the site: ``index.html`` with the package's script and style, the data as scripts, the report's plots.

The folder is built beside ``--out`` and renamed into place when complete, so a failed run leaves no half-written
site (and an earlier one stays as it was).
"""

from __future__ import annotations

import html
import json
import math
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from benchsmith import __version__
from benchsmith.benchmarks import get
from benchsmith.core.errors import BenchsmithError
from benchsmith.scoring.report import METRIC_COLUMNS, plot, render_table, summarise
from benchsmith.view.inputs import Inputs, Run
from benchsmith.view.shape import Dictionary, Table, candidate_detail, transcript_of, transcript_page

ROW_CHUNK = 25_000  # rows per table file: the table loads them all, a few files keep each parse short
DETAIL_CHUNK = 200  # candidates per detail file, loaded when one of them is opened
ASSETS = ("index.html", "app.js", "style.css")


@dataclass
class Written:
    out: Path
    candidates: int
    runs: int
    transcripts: int
    notices: list[str]


def default_ks(run: Run) -> list[int]:
    """pass@k at 1, 5, 10, 100 as far as the run's samples per instance reach, and at that number itself."""
    per_instance = Counter(r.instance_id for r in run.results if r.iteration is None)
    samples = max(per_instance.values(), default=1)
    return sorted({1, samples, *(k for k in (5, 10, 100) if k <= samples)})


def markdown_html(markdown: str) -> str:
    """The report's Markdown (headings, pipe tables, paragraphs, bold) as HTML."""
    out, table = [], []

    def inline(text: str) -> str:
        return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", html.escape(text))

    def flush() -> None:
        if not table:
            return
        cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in table]
        head, body = cells[0], [row for row in cells[1:] if not all(set(c) <= set("-: ") for c in row)]
        out.append("<table class='report'><thead><tr>" + "".join(f"<th>{inline(c)}</th>" for c in head) + "</tr>")
        out.append("</thead><tbody>")
        for row in body:
            out.append("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in row) + "</tr>")
        out.append("</tbody></table>")
        table.clear()

    for line in markdown.splitlines():
        if line.startswith("|"):
            table.append(line)
            continue
        flush()
        if line.startswith("## "):
            out.append(f"<h3>{inline(line[3:])}</h3>")
        elif line.strip():
            out.append(f"<p>{inline(line)}</p>")
    flush()
    return "\n".join(out)


def _json(value: Any) -> str:
    # Separate script files, never inline HTML, so "</script>" in a log is harmless; U+2028/9 are escaped for old
    # engines that took them for line ends inside a string.
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _clean(value: Any) -> Any:
    """NaN (a metric of nothing) as null, which JSON can hold."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _summary(run: Run, ks: list[int] | None, folder: Path) -> dict[str, Any]:
    ks = ks or default_ks(run)
    summary = summarise(run.results, ks, list(run.ranking.values()) if run.ranking else None, run.transcripts)
    columns = get(run.benchmark).report_columns if run.benchmark else METRIC_COLUMNS
    plots = [p.relative_to(folder).as_posix() for p in plot(summary, folder / "plots" / run.name, ks)]
    return {
        "name": run.name,
        "file": str(run.path),
        "benchmark": run.benchmark,
        "ks": ks,
        "html": markdown_html(render_table(summary, ks, columns)),
        "plots": plots,
        "notices": run.notices,
        "statuses": {label: s["statuses"] for label, s in summary.items()},
        "suspicious": {label: s["suspicious plausible"] for label, s in summary.items()},
        "summary": _clean(summary),
    }


def _write_js(path: Path, call: str, *args: Any) -> None:
    path.write_text(f"{call}({','.join(_json(a) for a in args)});\n", encoding="utf-8")


def _fill(folder: Path, inputs: Inputs, ks: list[int] | None) -> tuple[int, int, list[str]]:
    data = folder / "data"
    (data / "detail").mkdir(parents=True)
    (data / "transcripts").mkdir()
    for name in ASSETS:
        (folder / name).write_bytes(resources.files("benchsmith.view").joinpath("static", name).read_bytes())
    notices = list(inputs.notices)  # the page shows these on top, and each run's own in its section
    runs = [_summary(run, ks, folder) for run in inputs.runs]

    table = Table()
    details: list[dict[str, Any]] = []
    strings = Dictionary()
    chunk = 0
    transcripts = []
    missing_logs = Counter()

    def flush_details() -> None:
        nonlocal details, strings, chunk
        if details:
            _write_js(
                data / "detail" / f"d-{chunk:05d}.js", "BS.detail", chunk, {"strings": strings.values, "rows": details}
            )
            chunk += 1
            details, strings = [], Dictionary()

    for run in inputs.runs:
        start = len(table)
        row_of = {(r.instance_id, r.candidate_id): start + n for n, r in enumerate(run.results)}
        numbers = {key: len(transcripts) + n for key, n in transcript_of(run).items()}
        for result in run.results:
            transcript = numbers.get((result.instance_id, result.model, result.strategy))
            detail, flags = candidate_detail(run, result, row_of, transcript, strings)
            if not detail["log"]["found"]:
                missing_logs[run.name] += 1
            table.add(run.name, result, flags)
            details.append(detail)
            if len(details) == DETAIL_CHUNK:
                flush_details()
        flush_details()  # a run's rows start a chunk of their own (_detail_starts)
        for transcript in run.transcripts:
            rows = {
                r.candidate_id: row_of[(r.instance_id, r.candidate_id)]
                for r in run.results
                if r.instance_id == transcript["task_id"] and r.strategy == transcript.get("agent", r.strategy)
            }
            number = len(transcripts)
            _write_js(
                data / "transcripts" / f"t-{number:05d}.js", "BS.transcript", number, transcript_page(transcript, rows)
            )
            transcripts.append(
                {
                    "n": number,
                    "run": run.name,
                    "task": transcript["task_id"],
                    "agent": transcript.get("agent", ""),
                    "model": transcript.get("model", ""),
                    "passed": transcript.get("passed"),
                    "iterations": transcript.get("iterations"),
                    "events": len(transcript["events"]),
                }
            )
    for run in inputs.runs:
        count = missing_logs[run.name]
        if not count:
            continue
        logs = run.path.parent / f"{run.path.name}.logs"
        if count == len(run.results) and not logs.is_dir():
            why = f"the logs folder {logs} is missing (it was not copied with the results?)"
        else:
            why = "not every candidate was run (one that does not parse, for one, is judged without a log)"
        notices.append(
            f"{run.name}: {count} of {len(run.results)} candidates have no log: {why}; their pages show the verdict "
            f"without it"
        )

    row_files = []
    for n, start in enumerate(range(0, len(table), ROW_CHUNK)):
        name = f"data/rows-{n:03d}.js"
        _write_js(folder / name, "BS.rows", n, table.slice(start, start + ROW_CHUNK))
        row_files.append(name)
    meta = {
        "tool": f"benchsmith {__version__}",
        "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "rows": len(table),
        "rowFiles": row_files,
        "rowChunk": ROW_CHUNK,
        "detailStarts": _detail_starts(inputs),
        "dictionaries": table.dictionaries(),
        "runs": runs,
        "transcripts": transcripts,
        "notices": notices,
    }
    _write_js(data / "meta.js", "BS.meta", meta)
    return len(table), len(transcripts), notices + [f"{run.name}: {n}" for run in inputs.runs for n in run.notices]


def _detail_starts(inputs: Inputs) -> list[int]:
    """The first row of each detail file: chunks restart at each run, so a run's rows never share one with another's."""
    starts, row = [], 0
    for run in inputs.runs:
        for offset in range(0, len(run.results), DETAIL_CHUNK):
            starts.append(row + offset)
        row += len(run.results)
    return starts


def write_site(inputs: Inputs, out: Path, ks: list[int] | None = None) -> Written:
    """The site for *inputs* at *out* (replacing one there), built beside it and renamed into place."""
    out = Path(out)
    if out.exists() and not (out / "index.html").is_file() and any(out.iterdir()):
        raise BenchsmithError(f"--out {out}: exists and is not a site benchsmith view wrote; choose another folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        candidates, transcripts, notices = _fill(staging, inputs, ks)
        staging.chmod(0o755)
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
            out.rename(old / "site")
            staging.rename(out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            staging.rename(out)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    for notice in notices:
        print(f"benchsmith view: {notice}", file=sys.stderr)
    return Written(out, candidates, len(inputs.runs), transcripts, notices)
