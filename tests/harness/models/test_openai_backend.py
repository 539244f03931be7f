"""The openai backend, through the real ``openai`` client, against a local OpenAI-format server."""

import json
import logging
import socket
import time

import pytest

from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.generation.models import complete_many, format_usage, get_backend
from benchsmith.generation.models.base import ChatRequest, Message
from tests.helpers.openai_server import OpenAIServer, embedding_of, words


@pytest.fixture
def server(monkeypatch, tmp_path):
    monkeypatch.setenv("BENCHSMITH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    for name in ("AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY", "OPENAI_API_VERSION"):
        monkeypatch.delenv(name, raising=False)
    with OpenAIServer() as running:
        monkeypatch.setenv("OPENAI_BASE_URL", running.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        yield running


def ask(text: str, n: int = 1, temperature: float = 0.0, max_tokens: int | None = None) -> ChatRequest:
    messages = (Message("system", "You fix Java methods."), Message("user", text))
    return ChatRequest(
        messages=messages,
        n=n,
        temperature=temperature,
        max_tokens=max_tokens,
        item_id="Cli-1",
        purpose="generate/zero-shot",
    )


def test_samples_temperature_and_max_tokens_are_forwarded(server):
    server.reply("fix Cli-1", "int a;", "int b;", "int c;")
    backend = get_backend("openai", "gpt-test")
    response = backend.complete(ask("Please fix Cli-1", n=3, temperature=0.8, max_tokens=64))
    assert response.texts == ["int a;", "int b;", "int c;"]
    assert response.model == "gpt-test" and not response.cached
    (sent,) = server.chat_requests()
    assert sent.body["n"] == 3 and sent.body["temperature"] == 0.8 and sent.body["max_tokens"] == 64
    assert sent.body["model"] == "gpt-test"
    assert sent.body["messages"] == [
        {"role": "system", "content": "You fix Java methods."},
        {"role": "user", "content": "Please fix Cli-1"},
    ]
    assert sent.headers["authorization"] == "Bearer sk-test"


def test_a_server_that_ignores_n_is_asked_again_until_n_samples(server, caplog):
    server.script.ignore_n = True
    backend = get_backend("openai", "llama")
    with caplog.at_level(logging.DEBUG, logger="benchsmith.generation.models.openai_backend"):
        response = backend.complete(ask("fix it", n=3, temperature=0.7))
    assert len(response.texts) == 3 and len(set(response.texts)) == 3
    assert [r.body.get("n", 1) for r in server.chat_requests()] == [3, 2, 1]
    assert "returned 1 of the 3 samples" in caplog.text
    assert backend.usage.requests == 3


def test_rate_limit_is_retried_after_the_servers_retry_after(server):
    backend = get_backend("openai", "gpt-test", max_retries=2)
    backend.complete(ask("warm up the client"))  # imports openai and connects outside the timed part
    server.fail(429, retry_after="1")
    started = time.monotonic()
    response = backend.complete(ask("rate limited"))
    elapsed = time.monotonic() - started
    assert response.texts and len(server.chat_requests()) == 3
    # without Retry-After the client's first backoff is at most 0.5 s
    assert 1.0 <= elapsed < 5.0


def test_server_errors_are_retried_then_succeed(server):
    server.fail(500, retry_after_ms="10")
    server.fail(503, retry_after_ms="10")
    backend = get_backend("openai", "gpt-test", max_retries=3)
    response = backend.complete(ask("flaky"))
    assert response.texts == ["answer 1.0"]
    assert len(server.chat_requests()) == 3


def test_gives_up_after_max_retries_naming_endpoint_and_status(server):
    server.fail(503, times=10, retry_after_ms="10")
    backend = get_backend("openai", "gpt-test", max_retries=2)
    with pytest.raises(BenchsmithError) as error:
        backend.complete(ask("down"))
    message = str(error.value)
    assert f"{server.base_url}/chat/completions" in message and "HTTP 503 after 2 retries" in message
    assert "sk-test" not in message and "\n" not in message
    assert len(server.chat_requests()) == 3


def test_a_client_error_is_not_retried(server):
    server.fail(400)
    with pytest.raises(BenchsmithError, match=r"chat/completions: HTTP 400: injected 400"):
        get_backend("openai", "gpt-test", max_retries=3).complete(ask("bad"))
    assert len(server.chat_requests()) == 1


def test_an_unreachable_endpoint_is_an_error_naming_it(monkeypatch, tmp_path):
    monkeypatch.setenv("BENCHSMITH_CACHE", str(tmp_path))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again when the with block ends: nothing listens there
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with pytest.raises(BenchsmithError, match=rf"127\.0\.0\.1:{port}/v1/chat/completions: no answer after 0 retries"):
        get_backend("openai", "gpt-test", max_retries=0).complete(ask("anyone?"))


def test_concurrency_bound_is_respected(server):
    server.script.delay = 0.2
    backend = get_backend("openai", "gpt-test")
    requests = [ask(f"task {i}") for i in range(9)]
    answered = dict(complete_many(backend, requests, concurrency=3))
    assert sorted(answered) == list(range(9))
    assert all(answered[i].texts for i in range(9))
    assert 2 <= server.max_in_flight <= 3


def test_usage_and_cost_are_totalled(server):
    server.reply("first", "one two three")
    server.reply("second", "four five")
    backend = get_backend("openai", "gpt-test", price_input=2.0, price_output=10.0)
    first = backend.complete(ask("first question here"))
    second = backend.complete(ask("second", n=2, temperature=1.0))
    prompt = 2 * words("You fix Java methods.") + words("first question here") + words("second")
    completion = words("one two three") + 2 * words("four five")
    assert first.usage.prompt_tokens + second.usage.prompt_tokens == prompt
    assert backend.usage.requests == 2 and backend.usage.cache_hits == 0
    assert backend.usage.prompt_tokens == prompt and backend.usage.completion_tokens == completion
    assert backend.usage.cost_usd == pytest.approx((prompt * 2.0 + completion * 10.0) / 1e6)
    assert f"${backend.usage.cost_usd:.4f}" in format_usage(backend)
    assert "cost unknown" in format_usage(get_backend("openai", "gpt-test"))


def test_a_rerun_is_answered_from_the_cache_and_sends_nothing(server):
    requests = [ask("alpha", n=2, temperature=0.9), ask("beta"), ask("gamma", max_tokens=10)]
    first = [get_backend("openai", "gpt-test").complete(r) for r in requests]
    sent = len(server.requests)
    again = get_backend("openai", "gpt-test")
    second = [again.complete(r) for r in requests]
    assert len(server.requests) == sent
    assert [r.texts for r in second] == [r.texts for r in first]  # sampled answers are reproduced, not redrawn
    assert all(r.cached for r in second)
    assert again.usage.requests == 0 and again.usage.cache_hits == 3 and again.usage.cost_usd == 0
    # anything that changes the answer is part of the key
    again.complete(ask("alpha", n=2, temperature=0.5))
    get_backend("openai", "other-model").complete(ask("beta"))
    assert len(server.requests) == sent + 2
    fresh = get_backend("openai", "gpt-test", use_cache=False)
    fresh.complete(ask("beta"))
    assert len(server.requests) == sent + 3 and fresh.usage.cache_hits == 0


def test_a_corrupt_cache_entry_is_an_error_naming_the_file(server):
    get_backend("openai", "gpt-test").complete(ask("cache me"))
    (entry,) = cache_dir("models", "openai").rglob("*.json")
    assert json.loads(entry.read_text())["request"]["model"] == "gpt-test"
    assert "sk-test" not in entry.read_text()
    entry.write_text('{"format": 1, "request": ')
    with pytest.raises(BenchsmithError, match=rf"{entry}: corrupt model cache entry"):
        get_backend("openai", "gpt-test").complete(ask("cache me"))
    entry.write_text(json.dumps({"format": 1, "request": {"kind": "chat"}, "response": {"texts": []}}))
    with pytest.raises(BenchsmithError, match=rf"{entry}: corrupt model cache entry"):
        get_backend("openai", "gpt-test").complete(ask("cache me"))


def test_embeddings_are_fetched_once_and_cached(server):
    backend = get_backend("openai", "gpt-test")
    vectors = backend.embed(["fix the null check", "return early", "fix the null check"])
    assert vectors == [embedding_of(t) for t in ("fix the null check", "return early", "fix the null check")]
    (sent,) = server.requests
    assert sent.path == "/v1/embeddings"
    assert sent.body == {
        "model": "text-embedding-ada-002",
        "input": ["fix the null check", "return early"],
        "encoding_format": "float",
    }
    assert backend.usage.prompt_tokens == 6
    other = get_backend("openai", "gpt-test", embedding_model="my-embedder")
    assert other.embed(["return early", "new text"]) == [embedding_of("return early"), embedding_of("new text")]
    assert server.requests[-1].body["model"] == "my-embedder" and len(server.requests) == 2
    again = get_backend("openai", "gpt-test")
    assert again.embed(["return early"]) == [embedding_of("return early")]
    assert len(server.requests) == 2 and again.usage.cache_hits == 1


def test_azure_endpoint_uses_the_deployment_route_and_api_key_header(server, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", server.root_url)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-key")
    monkeypatch.setenv("OPENAI_API_VERSION", "2024-06-01")
    response = get_backend("openai", "my-deployment").complete(ask("on azure"))
    assert response.texts == ["answer 1.0"]
    (sent,) = server.requests
    assert sent.path == "/openai/deployments/my-deployment/chat/completions?api-version=2024-06-01"
    assert sent.headers["api-key"] == "azure-key"


def test_configuration_errors_are_one_line(monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "OPENAI_API_VERSION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
    with pytest.raises(BenchsmithError, match="set OPENAI_API_KEY"):
        get_backend("openai", "gpt-test")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://example.invalid")
    with pytest.raises(BenchsmithError, match="AZURE_OPENAI_API_KEY and OPENAI_API_VERSION are not"):
        get_backend("openai", "gpt-test")


TOOL = {
    "type": "function",
    "function": {
        "name": "get_class_info",
        "description": "members of a class",
        "parameters": {"type": "object", "properties": {"class_name": {"type": "string"}}},
    },
}


def test_tools_are_sent_and_tool_calls_come_back_and_from_the_cache(server):
    from benchsmith.generation.models.base import ToolCall
    from tests.helpers.openai_server import Reply

    server.script.queue.append(Reply("Thought: Point's members.", (("get_class_info", {"class_name": "Point"}),)))
    server.script.queue.append("the answer to the tool message")
    request = ChatRequest(messages=(Message("user", "fix it"),), item_id="t", purpose="agent/rrr/tools", tools=(TOOL,))
    response = get_backend("openai", "gpt-test").complete(request)
    assert response.texts == ["Thought: Point's members."]
    assert response.tool_calls == [(ToolCall("call_1_0", "get_class_info", '{"class_name": "Point"}'),)]
    assert server.chat_requests()[0].body["tools"] == [TOOL]

    cached = get_backend("openai", "gpt-test").complete(request)
    assert cached.cached and cached.tool_calls == response.tool_calls and len(server.chat_requests()) == 1
    # The same messages without tools are another request; and the tool message goes back with its call's id.
    follow_up = ChatRequest(
        messages=(
            Message("user", "fix it"),
            Message("assistant", "", tool_calls=response.tool_calls[0]),
            Message("tool", "class Point: x, y", tool_call_id="call_1_0"),
        ),
        tools=(TOOL,),
    )
    assert get_backend("openai", "gpt-test").complete(follow_up).texts == ["the answer to the tool message"]
    sent = server.chat_requests()[1].body["messages"]
    assert sent[1]["tool_calls"] == [
        {
            "id": "call_1_0",
            "type": "function",
            "function": {"name": "get_class_info", "arguments": '{"class_name": "Point"}'},
        }
    ]
    assert sent[2] == {"role": "tool", "content": "class Point: x, y", "tool_call_id": "call_1_0"}


def test_a_server_refusing_tools_raises_tools_unsupported(server):
    from benchsmith.generation.models.openai_backend import ToolsUnsupported

    server.script.refuse_tools = True
    with pytest.raises(ToolsUnsupported, match="HTTP 400: tools is not supported"):
        get_backend("openai", "gpt-test", max_retries=0).complete(
            ChatRequest(messages=(Message("user", "fix it"),), tools=(TOOL,))
        )
    assert get_backend("openai", "gpt-test").complete(ChatRequest(messages=(Message("user", "fix it"),))).texts
