"""A demonstration script for the scripted backend: RRR's whole loop on any dataset, without a model.

For every task the script's "model" first answers with a reference candidate
that is not the gold (classbench: an empty class), calls two tools in the
paper's Thought/Action text (get_imports, and get_relevant_code for the
class's name), reflects in a fixed sentence, and answers the gold. Run with
``--backend scripted``, it exercises every phase — retrieval, the oracle's
verdicts, tool calls and their outputs, reflection, a second attempt — so that
``make dataset`` shows the RRR section of the report (pass@1 per iteration,
tool frequencies) offline. Its numbers describe the pipeline, not a model:
the script's model is labelled ``scripted-demo``.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchsmith.benchmarks import benchmark_of
from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.errors import BenchsmithError

DEMO_MODEL = "scripted-demo"
REFLECTION = (
    "The attempt left the class without the members the tests use. The tools' outputs show the imports and "
    "the repository code it builds on; the next attempt implements every member the description names."
)


def demo_script(dataset: Path, out: Path, description: str | None = None, max_calls: int = 5) -> int:
    """Write the demonstration script of RRR for every task of *dataset* to *out*; the number of tasks.

    The tool, reflection and gold turns repeat up to *max_calls* - 1 times, so a gold that fails in this
    environment shows as such in the report instead of running the script out."""
    benchmark = benchmark_of(dataset)
    records = benchmark.load(dataset)
    references: dict[str, dict[str, str]] = {}
    for candidate in benchmark.reference_candidates(list(records.values()), 0, 0):
        references.setdefault(candidate.instance_id, {})[candidate.kind] = candidate.code
    rows = []
    for task_id, record in records.items():
        task = benchmark.agent_task(record, description)
        kinds = references.get(task_id, {})
        wrong = next((code for kind, code in kinds.items() if kind != "gold"), None)
        if "gold" not in kinds or wrong is None:
            raise BenchsmithError(
                f"{dataset}: {task_id} has no gold and other reference candidate to script a demonstration from"
            )
        fence = f"```{task.language}\n"
        tools = (
            f"Thought 1: The attempt fails its tests; some names it needs may have to be imported.\n"
            f"Action 1: get_imports()\n"
            f"Thought 2: The repository may hold code that {task.class_name} is meant to build on.\n"
            f"Action 2: get_relevant_code({json.dumps(task.class_name)})"
        )
        turns = [("agent/rrr/initial", f"{fence}{wrong.rstrip()}\n```")]
        turns += [
            ("agent/rrr/tools", tools),
            ("agent/rrr/reflect", REFLECTION),
            ("agent/rrr/improve", f"{fence}{kinds['gold'].rstrip()}\n```"),
        ] * (max_calls - 1)
        rows += [
            {"item_id": task_id, "purpose": purpose, "content": content, "model": DEMO_MODEL}
            for purpose, content in turns
        ]
    write_text_atomic(Path(out), "".join(json.dumps(row) + "\n" for row in rows))
    return len(records)
