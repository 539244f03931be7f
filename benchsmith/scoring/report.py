"""``benchsmith report``: pass@k overall and per project, Table 2's statistics, JSON and plots.

Given a ranking (``benchsmith rank``), r.pass@k of all candidates and of the
compiling ones stands beside each pass@k, as in the Defects4J-NL2Fix paper's Table 6.

Results of candidates with an ``iteration`` (agents: one candidate per
attempt) are scored on each instance's last attempt, and pass@1 after each
iteration stands beside (the RepoClassBench paper's Table 11): after iteration i an instance
counts its latest attempt up to i. Given the agents' transcripts, the report
also counts their tool calls (Tables 9 and 10).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import RankedCandidate, Result
from benchsmith.core.verdict import Status
from benchsmith.scoring.metrics import (
    candidate_statistics,
    mean_pass_at_k,
    mean_pass_at_k_compiling,
    mean_ranked_pass_at_k,
    per_instance_counts,
)

METRIC_COLUMNS = ("pass@k", "TR", "CR")  # what a benchmark may ask the report to show (Benchmark.report_columns)


def test_pass_rate(rows: list[Result]) -> float:
    """TR (RepoClassBench paper): the mean over candidates of the fraction of their directives that pass."""
    rates = [r.tests_passed / (r.tests_passed + r.tests_failed) for r in rows if r.tests_passed + r.tests_failed]
    return sum(rates) / len(rates) if rates else float("nan")


def compile_rate(rows: list[Result]) -> float:
    """CR (RepoClassBench paper): the share of candidates that compile."""
    return sum(r.compiled for r in rows) / len(rows) if rows else float("nan")


def run_label(result: Result) -> str:
    return " / ".join(part for part in (result.model, result.strategy) if part) or "all candidates"


def ranking_summary(rows: list[Result], ranking: dict[tuple[str, str], RankedCandidate], ks: list[int]) -> dict:
    """Table 6 for one run: r.pass@k of all candidates and of the compiling ones, and pass@k of the compiling ones."""
    try:
        ranked = {
            f"r.pass@{k}": {
                "all": mean_ranked_pass_at_k(rows, ranking, k)[0],
                "compiling": mean_ranked_pass_at_k(rows, ranking, k, compiling_only=True)[0],
                "instances": len({r.instance_id for r in rows}),
            }
            for k in ks
        }
    except ValueError as exc:
        raise BenchsmithError(f"--ranking: {exc}; rank the candidates file that was evaluated") from None
    return {
        "embedder": sorted({ranking[(r.instance_id, r.candidate_id)].embedder for r in rows}),
        "r.pass@k": ranked,
        "pass@k compiling": {
            f"pass@{k}": {"value": v, "instances": n} for k in ks for v, n in [mean_pass_at_k_compiling(rows, k)]
        },
    }


def latest_attempts(rows: list[Result], up_to: int | None = None) -> list[Result]:
    """Each instance's candidates of its latest iteration (up to *up_to*); rows without iterations are all kept."""
    latest: dict[str, int] = {}
    for r in rows:
        if r.iteration is not None and (up_to is None or r.iteration <= up_to):
            latest[r.instance_id] = max(latest.get(r.instance_id, 0), r.iteration)
    return [
        r for r in rows if r.iteration is None or (r.instance_id in latest and r.iteration == latest[r.instance_id])
    ]


def pass_at_1_by_iteration(rows: list[Result]) -> dict[str, dict]:
    """Table 11: pass@1 after each iteration, over every instance of the run (one not yet attempted fails)."""
    instances = {r.instance_id for r in rows}
    last = max((r.iteration for r in rows if r.iteration is not None), default=0)
    table = {}
    for iteration in range(1, last + 1):
        counts = per_instance_counts(latest_attempts(rows, iteration))
        value = sum(c / n for n, c in counts.values()) / len(instances) if instances else float("nan")
        table[str(iteration)] = {"pass@1": value, "instances": len(instances)}
    return table


def transcript_label(transcript: dict[str, Any]) -> str:
    """The run a transcript belongs to, as :func:`run_label` names runs (model / agent)."""
    return (
        " / ".join(part for part in (transcript.get("model", ""), transcript.get("agent", "")) if part)
        or "all candidates"
    )


def tool_statistics(transcripts: Iterable[dict[str, Any]], solved: set[str]) -> dict[str, dict[str, float]]:
    """Tables 9 and 10 for one run: per tool, its calls, their share of all calls and of the calls in solved
    tasks, and the share of tasks that called it at least once among the tasks with any tool call."""
    calls: Counter[str] = Counter()
    solved_calls: Counter[str] = Counter()
    tasks_using: Counter[str] = Counter()
    tasks_with_calls = 0
    for transcript in transcripts:
        # Calls the model made, readable or not; not the independent tool's (made unasked), nor calls over the budget.
        names = [
            e["name"] or "(unreadable)"
            for e in transcript["events"]
            if e["kind"] == "tool" and not e.get("independent") and not e.get("skipped")
        ]
        calls.update(names)
        if transcript["task_id"] in solved:
            solved_calls.update(names)
        tasks_with_calls += bool(names)
        tasks_using.update(set(names))
    total, total_solved = sum(calls.values()), sum(solved_calls.values())
    return {
        name: {
            "calls": calls[name],
            "share": 100 * calls[name] / total,
            "share in solved": 100 * solved_calls[name] / total_solved if total_solved else float("nan"),
            "tasks using": 100 * tasks_using[name] / tasks_with_calls,
        }
        for name in sorted(calls)
    }


def summarise(
    results: list[Result],
    ks: list[int],
    ranking: list[RankedCandidate] | None = None,
    transcripts: list[dict[str, Any]] | None = None,
) -> dict:
    """Everything the report shows, per run (model / strategy) when the results hold several."""
    ranked = {(r.instance_id, r.candidate_id): r for r in ranking} if ranking is not None else None
    runs: dict[str, list[Result]] = defaultdict(list)
    for result in results:
        runs[run_label(result)].append(result)
    summary = {}
    for label, attempts in runs.items():
        rows = latest_attempts(attempts)
        counts = per_instance_counts(rows)
        by_project: dict[str, dict] = {}
        project_of = {r.instance_id: r.project for r in rows}
        for project in sorted(set(project_of.values())):
            mine = {i: nc for i, nc in counts.items() if project_of[i] == project}
            by_project[project] = {
                "instances": len(mine),
                "solved": sum(1 for _, c in mine.values() if c),
                "TR": test_pass_rate([r for r in rows if r.project == project]),
                "CR": compile_rate([r for r in rows if r.project == project]),
                **{f"pass@{k}": mean_pass_at_k(mine, k)[0] for k in ks},
            }
        summary[label] = {
            "instances": len(counts),
            "candidates": len(rows),
            "solved": sorted(i for i, (_, c) in counts.items() if c),
            "pass@k": {f"pass@{k}": {"value": v, "instances": n} for k in ks for v, n in [mean_pass_at_k(counts, k)]},
            "statistics": candidate_statistics(rows),
            "TR": test_pass_rate(rows),
            "CR": compile_rate(rows),
            "statuses": {s.value: sum(r.status == s for r in rows) for s in Status},
            "projects": by_project,
            "suspicious plausible": suspicious_plausible(rows),
        }
        nodes = node_throughput(attempts)
        if len(nodes) > 1:
            summary[label]["nodes"] = nodes
        if any(r.iteration is not None for r in attempts):
            summary[label]["attempts"] = len(attempts)
            summary[label]["iterations"] = pass_at_1_by_iteration(attempts)
        tools = tool_statistics(
            [t for t in transcripts or [] if transcript_label(t) == label], set(summary[label]["solved"])
        )
        if tools:
            summary[label]["tools"] = tools
        if ranked is not None:
            summary[label]["ranking"] = ranking_summary(rows, ranked, ks)
            for project, stats in by_project.items():  # every row is ranked: ranking_summary checked
                mine = [r for r in rows if r.project == project]
                for k in ks:
                    stats[f"r.pass@{k}"] = mean_ranked_pass_at_k(mine, ranked, k)[0]
                    stats[f"r.pass@{k} compiling"] = mean_ranked_pass_at_k(mine, ranked, k, compiling_only=True)[0]
    return summary


def suspicious_plausible(rows: list[Result]) -> dict:
    """The plausible verdicts whose code the screen flagged (``Result.suspicious``): how many, of how many instances,
    and how often each primitive."""
    flagged = [r for r in rows if r.status == "plausible" and r.suspicious]
    primitives: dict[str, int] = defaultdict(int)
    for row in flagged:
        for name in row.suspicious.split(","):
            primitives[name] += 1
    return {
        "candidates": len(flagged),
        "instances": len({r.instance_id for r in flagged}),
        "primitives": dict(sorted(primitives.items())),
    }


def node_throughput(rows: list[Result]) -> dict[str, dict[str, float]]:
    """Per node that judged candidates: how many it ran (twins sharing a verdict are not runs), the seconds they
    took, and candidates per minute of judging (one sandbox slot's throughput on that node)."""
    runs: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        if not row.duplicate_of and row.seconds > 0:
            runs[row.node or "unknown"].append(row.seconds)
    return {
        node: {
            "candidates": len(seconds),
            "seconds": round(sum(seconds), 3),
            "per minute": 60 * len(seconds) / sum(seconds),
        }
        for node, seconds in sorted(runs.items())
    }


def _pct(value: float) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{100 * value:.2f}%"


def _metric_columns(run: dict, ks: list[int]) -> list[str]:
    if "ranking" not in run:
        return [f"pass@{k}" for k in ks]
    return [name for k in ks for name in (f"pass@{k}", f"r.pass@{k}", f"r.pass@{k} compiling")]


def _ranking_table(run: dict, ks: list[int]) -> list[str]:
    ranking = run["ranking"]
    ranked = ranking["r.pass@k"]
    lines = [
        f"Ranking (the Defects4J-NL2Fix paper's Table 6; {', '.join(ranking['embedder'])}): r.pass@k (pass@k)",
        "",
        "| candidates | " + " | ".join(f"r.pass@{k} (pass@{k})" for k in ks) + " |",
        "| --- | " + " | ".join("---:" for _ in ks) + " |",
    ]
    everything = " | ".join(
        f"{_pct(ranked[f'r.pass@{k}']['all'])} ({_pct(run['pass@k'][f'pass@{k}']['value'])})" for k in ks
    )
    compiling = " | ".join(
        f"{_pct(ranked[f'r.pass@{k}']['compiling'])} ({_pct(ranking['pass@k compiling'][f'pass@{k}']['value'])})"
        for k in ks
    )
    return [*lines, f"| all | {everything} |", f"| compiling only | {compiling} |", ""]


def _row(cells: list) -> str:
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def render_table(summary: dict, ks: list[int], metrics: tuple[str, ...] = METRIC_COLUMNS) -> str:
    """The report as Markdown; *metrics* are the per-project columns the results' benchmark asks for
    (its ``report_columns``)."""
    unknown = [m for m in metrics if m not in METRIC_COLUMNS]
    if unknown:
        raise BenchsmithError(f"report columns {unknown} are not among {METRIC_COLUMNS}")
    tr = [name for name in ("TR", "CR") if name in metrics]
    lines = []
    for label, run in summary.items():
        columns = _metric_columns(run, ks) if "pass@k" in metrics else []
        lines.append(f"## {label}: {run['instances']} instances, {run['candidates']} candidates")
        lines.append("")
        lines.append(_row(["project", "instances", "solved", *columns, *tr]))
        lines.append(_row(["---", *["---:"] * (2 + len(columns) + len(tr))]))
        for project, stats in run["projects"].items():
            lines.append(
                _row(
                    [
                        project,
                        stats["instances"],
                        stats["solved"],
                        *(_pct(stats[name]) for name in columns),
                        *(_pct(stats[name]) for name in tr),
                    ]
                )
            )
        overall_of = {f"pass@{k}": run["pass@k"][f"pass@{k}"]["value"] for k in ks}
        if "ranking" in run:
            for k in ks:
                overall_of[f"r.pass@{k}"] = run["ranking"]["r.pass@k"][f"r.pass@{k}"]["all"]
                overall_of[f"r.pass@{k} compiling"] = run["ranking"]["r.pass@k"][f"r.pass@{k}"]["compiling"]
        lines.append(
            _row(
                [
                    "**all**",
                    run["instances"],
                    len(run["solved"]),
                    *(_pct(overall_of[name]) for name in columns),
                    *(_pct(run[name]) for name in tr),
                ]
            )
        )
        stats = run["statistics"]
        lines.append("")
        lines.append(
            "Candidates per bug (mean over bugs, as the Defects4J-NL2Fix paper's Table 2): "
            + ", ".join(f"{name} {'n/a' if math.isnan(v) else f'{v:.1f}%'}" for name, v in stats.items())
        )
        lines.append("Statuses: " + ", ".join(f"{s} {n}" for s, n in run["statuses"].items()))
        flagged = run.get("suspicious plausible", {})
        if flagged.get("candidates"):
            lines.append(
                f"Plausible but suspicious (their code uses primitives the ground truth does not; counted "
                f"apart for review): {flagged['candidates']} candidates of {flagged['instances']} instances, "
                + ", ".join(f"{name} {n}" for name, n in flagged["primitives"].items())
            )
        lines.append("")
        lines.extend(_node_table(run))
        lines.extend(_agent_tables(run))
        if "ranking" in run:
            lines.extend(_ranking_table(run, ks))
    return "\n".join(lines)


def _node_table(run: dict) -> list[str]:
    if "nodes" not in run:
        return []
    lines = [
        "Judged per node (candidates per minute of one sandbox slot's judging time):",
        "",
        _row(["node", "candidates run", "seconds", "candidates / minute"]),
        _row(["---", "---:", "---:", "---:"]),
    ]
    for node, stats in run["nodes"].items():
        lines.append(_row([node, stats["candidates"], f"{stats['seconds']:.1f}", f"{stats['per minute']:.1f}"]))
    return [*lines, ""]


def _agent_tables(run: dict) -> list[str]:
    """The RepoClassBench paper's Table 11 (pass@1 per iteration) and Tables 9-10 (tool calls), for the runs that have
    them."""
    lines = []
    if len(run.get("iterations", {})) > 1:  # an agent of one generation has no Table 11
        iterations = run["iterations"]
        lines += [
            f"pass@1 per iteration (the RepoClassBench paper's Table 11; {run['attempts']} attempts, each instance "
            f"scored on "
            "its latest attempt so far):",
            "",
            _row(["iteration", *iterations]),
            _row(["---", *["---:"] * len(iterations)]),
            _row(["pass@1", *(_pct(v["pass@1"]) for v in iterations.values())]),
            "",
        ]
    if "tools" in run:
        lines += [
            "Tool calls (the RepoClassBench paper's Tables 9 and 10):",
            "",
            _row(["tool", "calls", "share of calls", "share of calls in solved tasks", "tasks using it"]),
            _row(["---", "---:", "---:", "---:", "---:"]),
        ]
        for name, stats in run["tools"].items():
            lines.append(
                _row(
                    [name, stats["calls"], *(_pct(stats[k] / 100) for k in ("share", "share in solved", "tasks using"))]
                )
            )
        lines.append("")
    return lines


def plot(summary: dict, folder: Path, ks: list[int]) -> list[Path]:
    """A pass@k curve per run, and the overlap of solved instances between runs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    figure, axes = plt.subplots(figsize=(6, 4))
    ranked_too = any("ranking" in run for run in summary.values())
    for label, run in summary.items():
        curves = [("pass@k", "-", "o", [run["pass@k"][f"pass@{k}"]["value"] for k in ks])]
        if "ranking" in run:  # r.pass@k beside it, in the run's colour
            curves += [
                ("r.pass@k", "--", "s", [run["ranking"]["r.pass@k"][f"r.pass@{k}"]["all"] for k in ks]),
                ("r.pass@k compiling", ":", "^", [run["ranking"]["r.pass@k"][f"r.pass@{k}"]["compiling"] for k in ks]),
            ]
        colour = None
        for metric, style, marker, values in curves:
            points = [(k, v) for k, v in zip(ks, values) if not math.isnan(v)]
            if points:
                (line,) = axes.plot(
                    [k for k, _ in points],
                    [100 * v for _, v in points],
                    linestyle=style,
                    marker=marker,
                    color=colour,
                    label=f"{label}: {metric}" if ranked_too else label,
                )
                colour = line.get_color()
    axes.set_xscale("log")
    axes.set_xticks(ks, [str(k) for k in ks])
    axes.minorticks_off()
    axes.set_xlabel("k (samples)")
    axes.set_ylabel("%")
    axes.set_ylim(0, 100)
    axes.set_title("pass@k and ranked pass@k" if ranked_too else "pass@k")
    axes.grid(True, alpha=0.3)
    axes.legend()
    figure.tight_layout()
    written.append(folder / "pass_at_k.png")
    figure.savefig(written[-1], dpi=120)
    plt.close(figure)

    labels = list(summary)
    solved = [set(summary[label]["solved"]) for label in labels]
    figure, axes = plt.subplots(figsize=(1.6 * len(labels) + 3, 1.2 * len(labels) + 2))
    matrix = [[len(a & b) for b in solved] for a in solved]
    top = max((max(row) for row in matrix), default=0) or 1
    axes.imshow(matrix, cmap="Blues", vmin=0, vmax=top)
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            axes.text(j, i, str(value), ha="center", va="center", color="white" if value > top / 2 else "black")
    axes.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    axes.set_yticks(range(len(labels)), labels)
    axes.set_title("instances solved by both runs\n(diagonal: by each run)")
    figure.tight_layout()
    written.append(folder / "solved_overlap.png")
    figure.savefig(written[-1], dpi=120)
    plt.close(figure)
    return written
