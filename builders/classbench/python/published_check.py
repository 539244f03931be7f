"""A published Python task's directives, run on its repository's own code: those that do not pass there cannot judge.

The RepoClassBench paper checked a candidate with its task's node ids, but ran them as each repository's test command
says, and for litestar that command is the whole suite (``pytest tests -n auto ... <node ids>``). A test that passes
only after others ran leans on what they left behind: litestar's pydantic v1 constrained-field tests find their
extractor registered by an earlier test's app, so run as a task's directives alone (as this harness judges) they fail
whatever the class holds, the repository's own included (35 of SchemaCreator's 90, 61 of FieldDefinition's 285).
A test that needs a service this machine lacks (a Redis server) fails the same way. The build drops such tests from
the tasks it makes (``failing_on_the_original_dropped``); a published task gets the same check wherever its
repository's own code is at hand, which is where the task's commit is in the supplied history. A copy rebuilt from
upstream (:mod:`benchsmith.builders.classbench.python.reconstruct`) has no own code to run: its ground truth is what is
being checked.

Every directive dropped is counted in the card with its outcome; a task left without one is not buildable.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import Counter
from pathlib import Path

from benchsmith.builders.classbench.python.build import trusted_work_copy
from benchsmith.builders.classbench.python.suite import NO_OUTCOME, SuitePolicy, run_tests
from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.progress import progress
from benchsmith.core.schema import ClassBenchTask
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.sources.checkout import private_cache_dir
from benchsmith.sources.python.environment import ENV_FORMAT
from benchsmith.sources.python.repo import resolve, run_variant

CHECK_FORMAT = 1  # bump when a check's outcome may differ for the same directives and environment


def check_on_the_original(tasks: list[ClassBenchTask]) -> tuple[list[ClassBenchTask], dict[str, dict], dict[str, str]]:
    """*tasks* (Python, each at a commit of its supplied history) with only the directives that pass on the repository's
    own code at that commit; what was dropped, per task; and the tasks left with none, with the reason."""
    groups: dict[tuple, list[ClassBenchTask]] = {}
    for task in tasks:
        groups.setdefault((task.repo, task.commit, task.environment), []).append(task)
    checked: dict[str, ClassBenchTask] = {}
    dropped: dict[str, dict] = {}
    unjudgeable: dict[str, str] = {}
    for (history, commit, environment), members in groups.items():
        try:
            repo = resolve(history, commit, locked=environment)
        except BenchsmithError as exc:  # the tasks stay as published; the eval meets the same error and says it
            for task in members:
                dropped[task.task_id] = {"not checked": str(exc)}
            continue
        runs = private_cache_dir("runs", repo.key, f"published-check-v{CHECK_FORMAT}")
        with sandbox.leased_slot() as slot, trusted_work_copy(repo, slot) as copy:
            for task in progress(members, f"running the published directives on {repo.key}", unit="task"):
                outcomes = _outcomes(repo, copy, slot, runs, task)
                kept = [d for d in task.test_directives if outcomes.get(d) == "passed"]
                failing = [d for d in task.test_directives if outcomes.get(d) != "passed"]
                checked[task.task_id] = dataclasses.replace(task, test_directives=kept)
                how = Counter(outcomes.get(d, "not collected") for d in failing).most_common()
                if failing:
                    dropped[task.task_id] = {
                        "dropped": len(failing),
                        "of": len(task.test_directives),
                        "outcomes": dict(how),
                        "directives": failing,
                    }
                if not kept:
                    counted = ", ".join(f"{outcome} {n}" for outcome, n in how)
                    unjudgeable[task.task_id] = (
                        f"none of its {len(task.test_directives)} directives passes on the "
                        f"repository's own code at {commit[:12]} here ({counted})"
                    )
    return [checked.get(task.task_id, task) for task in tasks], dropped, unjudgeable


def _outcomes(repo, copy: Path, slot: int, runs: Path, task: ClassBenchTask) -> dict[str, str]:
    """Each directive's outcome, run together as a candidate's are (their files, the ids selected); cached, unless
    a run could not give one (it crashed or timed out: the harness's failure, decided again next time)."""
    asked = json.dumps(
        [
            ENV_FORMAT,
            str(repo.python),
            repo.resolution.get("lock_sha256", ""),
            sorted(task.test_directives),
            *([run_variant(repo)] if run_variant(repo) else []),
        ]
    )
    path = runs / f"{hashlib.sha256(asked.encode()).hexdigest()[:16]}.json"
    if path.exists():
        return json.loads(path.read_text())
    run = run_tests(repo, copy, slot, path.with_suffix(".log"), list(task.test_directives), SuitePolicy())
    outcomes = {node: run.outcomes[node] for node in task.test_directives if node in run.outcomes}
    if not any(outcome in NO_OUTCOME for outcome in outcomes.values()):
        write_text_atomic(path, json.dumps(outcomes))
    return outcomes
