"""Reference candidates: gold, the unchanged buggy code, and mutants of the gold, for every instance of a dataset.

They exercise every verdict without a model, so the whole pipeline runs
offline; they are labelled ``model="reference"``, and the candidate id says
what each is (``gold``, ``buggy``, ``mutant-3``, ``empty``).
"""

from __future__ import annotations

import json
from pathlib import Path


from benchsmith.atomic import write_text_atomic
from benchsmith.schema import ClassBenchTask, NL2FixInstance, dataset_kind, read_records
from harness.mutants import mutants


def reference_candidates(dataset: Path, mutants_per_instance: int = 8, seed: int = 0) -> list[dict]:
    if dataset_kind(dataset) == "classbench":
        from harness.python_runner import reference_solution

        rows = []
        for task in read_records(dataset, ClassBenchTask):
            rows.append(_row(task.task_id, "gold", reference_solution(task)))
            rows.append(_row(task.task_id, "empty", f"class {task.class_name}:\n    pass\n"))
        return rows
    rows = []
    for instance in read_records(dataset, NL2FixInstance):
        rows.append(_row(instance.instance_id, "gold", instance.fixed_method))
        rows.append(_row(instance.instance_id, "buggy", instance.buggy_method_no_comments))
        for number, code in enumerate(mutants(instance.fixed_method, mutants_per_instance, seed=seed)):
            rows.append(_row(instance.instance_id, f"mutant-{number}", code))
    return rows


def _row(instance_id: str, kind: str, code: str) -> dict:
    # No strategy: replayed through ``benchsmith generate``, a row answers whichever strategy is asked for.
    return {"instance_id": instance_id, "candidate_id": kind, "code": code, "model": "reference"}


def write_reference_candidates(dataset: Path, out: Path, mutants_per_instance: int = 8) -> int:
    rows = reference_candidates(dataset, mutants_per_instance)
    write_text_atomic(out, "".join(json.dumps(row) + "\n" for row in rows))
    return len(rows)
