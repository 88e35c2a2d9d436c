"""API keys come only from the environment and never reach disk, the console, reports or errors.

A distinctive fake key is set for every built-in endpoint variable and for config-defined ones.
Config endpoints named like the built-ins (``openai``, ``anthropic``, ...) point at the mock, so the
built-in variables are really sent; an ``echo`` endpoint is a hostile server that puts the key it
received into its error bodies, its text, its call arguments and a response header. Then every verb
runs (``run`` in every mode, ``report`` in every format, ``compare``, ``targets``, ``cases
validate``, ``merge``, ``mock serve``, ``import bfcl``, and ``compat`` when registered), and every
file written (blobs decompressed), stdout and stderr are searched for every key.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from chat_exchange import chat_exchange
from robust_forkcli import ForkedCli
from robust_run import everything_written, mock_process
from robust_server import Answer, HostileServer, SeenRequest

from fcbench import adapters
from fcbench.adapters.base import BuiltRequest
from fcbench.cli.app import VERB_MODULES
from fcbench.endpoints import BUILTIN_ENDPOINTS, Endpoint
from fcbench.redact import Redactor
from fcbench.transport import RetryPolicy, Transport

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _key(name: str) -> str:
    return f"sk-canary-{name.lower().replace('_', '-')}-{uuid.uuid4().hex}"


BUILTIN_VARIABLES = sorted({e.api_key_env for e in BUILTIN_ENDPOINTS.values() if e.api_key_env})
CUSTOM_VARIABLES = [
    "LAB_CHAT_KEY",
    "LAB_RESPONSES_KEY",
    "LAB_ANTHROPIC_KEY",
    "LAB_GEMINI_KEY",
    "ECHO_SERVER_KEY",
]
KEYS = {name: _key(name) for name in [*BUILTIN_VARIABLES, *CUSTOM_VARIABLES]}
"""Variable -> fake key; each key ends in 32 random hex digits that appear nowhere else."""

DIALECT_PATHS = {
    "openai-chat": "/v1",
    "openai-responses": "/v1",
    "anthropic-messages": "",
    "gemini": "/v1beta",
}


def _leaks(text: str) -> list[str]:
    """Variables whose key (or its random tail alone) occurs in ``text``."""
    return [name for name, key in KEYS.items() if key in text or key[-32:] in text]


def _echo(request: SeenRequest) -> Answer:
    """A provider that echoes the key it received wherever it can."""
    auth = request.headers.get("authorization", "")
    key = auth.removeprefix("Bearer ")
    model = json.loads(request.body).get("model")
    headers = {"x-request-id": f"req-{key}"}
    if model == "echo-401":
        body = {"error": {"message": f"Incorrect API key provided: {key}.", "code": "invalid_api_key"}}
        return Answer(401, body, headers)
    if model == "echo-429":
        body = {"error": {"message": f"Rate limit for key {key}", "code": "rate_limit_exceeded"}}
        return Answer(429, body, {**headers, "retry-after": "0"})
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "lookup_order", "arguments": json.dumps({"order_id": key})},
    }
    message = {"role": "assistant", "content": f"Your key is {key}", "tool_calls": [call]}
    completion = {
        "id": "chatcmpl-echo",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
    }
    return Answer(200, completion, headers)


def _config(mock: str, echo: str) -> dict[str, Any]:
    endpoints: dict[str, Any] = {
        "openai": {"dialect": "openai-chat", "base_url": mock + "/v1", "api_key_env": "OPENAI_API_KEY"},
        "openai-responses": {
            "dialect": "openai-responses",
            "base_url": mock + "/v1",
            "api_key_env": "OPENAI_API_KEY",
        },
        "anthropic": {"dialect": "anthropic-messages", "base_url": mock, "api_key_env": "ANTHROPIC_API_KEY"},
        "gemini": {"dialect": "gemini", "base_url": mock + "/v1beta", "api_key_env": "GEMINI_API_KEY"},
        "echo": {"dialect": "openai-chat", "base_url": echo + "/v1", "api_key_env": "ECHO_SERVER_KEY"},
    }
    for name in ("OLLAMA_API_KEY", "VLLM_API_KEY", "LLAMACPP_API_KEY"):
        if name in KEYS:
            endpoints[name.split("_")[0].lower()] = {
                "dialect": "openai-chat",
                "base_url": mock + "/v1",
                "api_key_env": name,
            }
    labs = zip(
        ("lab-chat", "lab-responses", "lab-anthropic", "lab-gemini"),
        DIALECT_PATHS.items(),
        CUSTOM_VARIABLES,
        strict=False,
    )
    for name, (dialect, path), variable in labs:
        endpoints[name] = {"dialect": dialect, "base_url": mock + path, "api_key_env": variable}
    targets = [f"{name}:sim-careful" for name in endpoints if name != "echo"]
    targets += ["echo:echo-401", "echo:echo-429", "echo:echo-text"]
    return {
        "endpoints": endpoints,
        "targets": targets,
        "cases": ["select-lookup-01", "abstain-01", "rec-lookup-format-01"],
        "repeats": 1,
        "modes": ["selection", "stream", "forced", "recovery"],
        "max_retries": 1,
        "timeoutMs": 10000,
    }


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    return {**env, **KEYS}


@pytest.mark.timeout(280)
def test_no_key_leaks_from_any_verb(tmp_path: Path) -> None:
    env = _env()
    texts: list[str] = []
    with (
        mock_process() as mock,
        HostileServer(_echo) as echo,
        ForkedCli(tmp_path / "streams") as fcbench,
    ):
        (tmp_path / "streams").mkdir()
        config = tmp_path / "keys.yaml"
        config.write_text(yaml.safe_dump(_config(mock, echo.url)), encoding="utf-8")

        def verb(*args: str, ok: tuple[int, ...] = (0,)) -> str:
            code, out, err = fcbench.run(list(args), tmp_path, env, timeout=150)
            texts.extend([out, err])
            assert code in ok, (args, code, err[-2000:])
            assert "Traceback" not in err, err[-2000:]
            return out

        # the echo targets answer 401/429 on purpose, so the coverage gate fails these runs (exit 1)
        verb("run", "--no-progress", "--config", str(config), "--out", "runs", ok=(1,))
        run = next((tmp_path / "runs").iterdir())
        for fmt in ("md", "html", "json", "junit", "csv"):
            verb("report", str(run), "--format", fmt)
            verb("report", str(run), "--format", fmt, "--output", str(run / f"report.{fmt}"))
        for shard in ("1/2", "2/2"):
            verb(
                "run", "--no-progress", "--config", str(config), "--out", "shards", "--shard", shard, ok=(1,)
            )
        shards = sorted(str(p) for p in (tmp_path / "shards").iterdir())
        verb("merge", *shards, "--out", str(tmp_path / "merged"))
        verb("compare", str(run), str(tmp_path / "merged"), ok=(0, 1))
        verb("compare", str(run), str(tmp_path / "merged"), "--format", "json", ok=(0, 1))
        targets = verb("targets", "--config", str(config))
        verb("cases", "validate", "core")
        bfcl = FIXTURES / "bfcl" / "BFCL_v4_simple_python.json"
        verb("import", "bfcl", str(bfcl), "--out", str(tmp_path / "imported"))
        if "fcbench.cli.compat" in VERB_MODULES:
            verb("compat", "--config", str(config), "--probe", "pattern", "--repeats", "1", "--no-progress")
        # The echo endpoint really received its key (and echoed it); the transport redacted it.
        assert any(KEYS["ECHO_SERVER_KEY"] in r.headers.get("authorization", "") for r in echo.requests)
    texts.append(_serve_mock_briefly(env))
    assert "present" in targets
    texts.append(everything_written(tmp_path))
    leaked = sorted({name for text in texts for name in _leaks(text)})
    assert leaked == [], f"keys leaked: {leaked}"
    records = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    echoed = [r for r in records if r["target"]["endpoint"] == "echo" and r["mode"] == "selection"]
    messages = {r["target"]["model"]: json.dumps(r["outcome"]) for r in echoed}
    assert "[REDACTED]" in messages["echo-401"] and '"code": "auth"' in messages["echo-401"]
    assert "[REDACTED]" in messages["echo-429"]
    assert "Your key is [REDACTED]" in messages["echo-text"]


def _serve_mock_briefly(env: dict[str, str]) -> str:
    """``fcbench mock serve`` with the keys in its environment, answering a keyed request."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "fcbench", "mock", "serve", "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().split()
        root = first[1].removesuffix("/v1")
        headers = {
            "authorization": f"Bearer {KEYS['OPENAI_API_KEY']}",
            "x-api-key": KEYS["ANTHROPIC_API_KEY"],
        }
        for _ in range(100):
            try:
                httpx.post(root + "/v1/chat/completions", content=b"{not json", headers=headers, timeout=5)
                break
            except httpx.TransportError:
                time.sleep(0.05)
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=15)
    return out + err


def test_query_string_keys_and_echoes_are_redacted_in_the_transport() -> None:
    secret = KEYS["GEMINI_API_KEY"]

    def answer(request: SeenRequest) -> Answer:
        return Answer(400, {"error": {"code": 400, "message": f"API key not valid: {request.path}"}})

    async def go(url: str) -> Any:
        transport = Transport(retry=RetryPolicy(max_retries=0), redactor=Redactor([secret]))
        endpoint = Endpoint(name="g", dialect="gemini", base_url=url + "/v1beta")
        built = BuiltRequest(
            path="/models/m:generateContent", body={"contents": [], "note": secret}, query={"key": secret}
        )
        try:
            return await transport.exchange(
                endpoint, adapters.get("gemini"), built, api_key=None, offered_tools=[]
            )
        finally:
            await transport.aclose()

    with HostileServer(answer) as server:
        exchange = asyncio.run(go(server.url))
        assert secret in server.requests[0].path  # the key really went out in the query string
    captured = json.dumps({"raw": exchange.raw, "outcome": exchange.turn.outcome.model_dump()})
    assert secret not in captured and secret[-32:] not in captured
    assert (
        "key=%5BREDACTED%5D" in exchange.raw["request"]["url"]
        or "key=[REDACTED]" in exchange.raw["request"]["url"]
    )
    assert exchange.turn.outcome.code == "auth"


def test_keys_are_read_from_the_environment_only(tmp_path: Path) -> None:
    for field in ("api_key", "apiKey", "key"):
        config = tmp_path / f"{field}.yaml"
        endpoint = f"{{dialect: openai-chat, base_url: 'http://127.0.0.1:9/v1', {field}: sk-in-file}}"
        config.write_text(f"endpoints:\n  lab: {endpoint}\n", encoding="utf-8")
        proc = subprocess.run(
            [sys.executable, "-m", "fcbench", "targets", "--config", str(config)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 2 and f"endpoints.lab.{field}" in proc.stderr, proc.stderr
        assert "sk-in-file" not in proc.stdout


@pytest.mark.parametrize("pasted", ["{key}\n", " {key} ", "{key}\r\n"])
def test_a_key_pasted_with_whitespace_is_redacted_from_the_error_it_causes(pasted: str) -> None:
    key = _key("pasted")
    api_key = pasted.format(key=key)

    with HostileServer(lambda request: Answer(200, {"choices": []})) as server:
        exchange = chat_exchange(server.url + "/v1", api_key, timeout_s=30, redactor=Redactor([api_key]))
    captured = json.dumps({"raw": exchange.raw, "outcome": exchange.turn.outcome.model_dump()})
    assert key not in captured and key[-32:] not in captured, captured
