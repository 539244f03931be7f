"""What the agents' tests share: the toy class benchmark's dataset, the loopback server, the model's answers."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from benchsmith.core.schema import to_table
from benchsmith.generation.models import get_backend
from tests.helpers.openai_server import OpenAIServer
from tests.helpers.toy_agents import POLYGON_GOLD, ToyClassTask, polygon_task

# The first attempt forgets to import distance (NameError); the fix imports it.
WRONG = textwrap.dedent("""\
    class Polygon:
        def __init__(self, points):
            self.points = list(points)

        def perimeter(self):
            return sum(distance(a, b) for a, b in zip(self.points, self.points[1:] + self.points[:1]))
    """)


def fenced(code: str, before: str = "", after: str = "") -> str:
    return f"{before}```python\n{code}```{after}"


WRONG_ANSWER = fenced(WRONG, after="\nThis class keeps its points and sums their distances.")
GOLD_ANSWER = fenced(POLYGON_GOLD, before="Here is the corrected class:\n\n")
REFLECTION = "distance was used without being imported; geometry.points defines it, so import it from there."


def write_dataset(path: Path, tasks: list[ToyClassTask]) -> Path:
    pq.write_table(to_table(tasks, ToyClassTask, benchmark="toy-classes"), path)
    return path


@pytest.fixture
def dataset(tmp_path) -> Path:
    return write_dataset(tmp_path / "toy.parquet", [polygon_task()])


@pytest.fixture
def server(monkeypatch):
    with OpenAIServer() as running:
        monkeypatch.setenv("OPENAI_BASE_URL", running.base_url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
        yield running


def openai_backend():
    # No answer cache: a test that counts the server's requests must see every question the agent asks.
    return get_backend("openai", "gpt-test", max_retries=0, use_cache=False)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
