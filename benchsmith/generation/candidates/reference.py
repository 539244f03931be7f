"""Reference candidates: what each benchmark can offer without a model (gold, the buggy code, mutants, an empty class).

They exercise every verdict without a model, so the whole pipeline runs
offline; they are labelled ``model="reference"``, and the candidate id says
what each is (``gold``, ``buggy``, ``mutant-3``, ``empty``).
"""

from __future__ import annotations

import json
from pathlib import Path

from benchsmith.benchmarks import benchmark_of
from benchsmith.core.atomic import write_text_atomic


def reference_candidates(dataset: Path, mutants_per_instance: int = 8, seed: int = 0) -> list[dict]:
    benchmark = benchmark_of(dataset)
    records = list(benchmark.load(dataset).values())
    # No strategy: replayed through ``benchsmith generate``, a row answers whichever strategy is asked for.
    return [
        {"instance_id": c.instance_id, "candidate_id": c.kind, "code": c.code, "model": "reference"}
        for c in benchmark.reference_candidates(records, mutants_per_instance, seed)
    ]


def write_reference_candidates(dataset: Path, out: Path, mutants_per_instance: int = 8) -> int:
    rows = reference_candidates(dataset, mutants_per_instance)
    write_text_atomic(out, "".join(json.dumps(row) + "\n" for row in rows))
    return len(rows)
