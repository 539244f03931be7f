"""`benchsmith view`'s arguments for a run laid out as the Makefile's ``dataset`` target lays it out."""

from __future__ import annotations

from pathlib import Path


def view_args(run: Path, *, ground_truth: bool = False) -> list[str]:
    """`benchsmith view`'s arguments for the whole run, as the Makefile's ``dataset`` target passes them."""
    # beside the run (the tests' runs), or as the Makefile lays them out: data/datasets beside data/runs/<run>
    datasets = run.parent / "datasets" if (run.parent / "datasets").is_dir() else run.parent.parent / "datasets"
    args = []
    for name, dataset in (("nl2fix", "nl2fix"), ("classbench", "classbench"), ("rrr", "classbench")):
        args += [
            "--results",
            str(run / f"{name}-results.parquet"),
            "--candidates",
            str(run / f"{name}-candidates.jsonl"),
        ]
        args += ["--dataset", str(datasets / f"{dataset}.parquet")]
    args += ["--ranking", str(run / "nl2fix-ranking.parquet")]
    args += ["--transcripts", str(run / "rrr-candidates.transcripts.jsonl")]
    return args + (["--ground-truth"] if ground_truth else [])
