"""Auth schemes per endpoint: the key goes where the endpoint says, and never to disk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from robust_run import everything_written
from robust_server import CHAT_REPLY, Answer, HostileServer, SeenRequest

from fcbench.adapters import get
from fcbench.endpoints import Endpoint
from fcbench.store.records import read_manifest

KEY = "sk-test-auth-scheme-0123456789"


def reply(seen: SeenRequest) -> Answer:
    return Answer(200, CHAT_REPLY)


@pytest.mark.parametrize(
    ("scheme", "extra", "header", "param"),
    [
        ("dialect", {}, ("authorization", f"Bearer {KEY}"), None),
        ("bearer", {}, ("authorization", f"Bearer {KEY}"), None),
        ("api-key", {"api_version": "2024-10-21"}, ("api-key", KEY), None),
        ("x-api-key", {}, ("x-api-key", KEY), None),
        ("x-goog-api-key", {}, ("x-goog-api-key", KEY), None),
        ("query", {"auth_query_param": "code"}, None, ("code", KEY)),
    ],
)
def test_each_scheme_sends_the_key_its_way_and_redacts_it(
    tmp_path: Path,
    scheme: str,
    extra: dict[str, str],
    header: tuple[str, str] | None,
    param: tuple[str, str] | None,
) -> None:
    with HostileServer(reply) as server:
        endpoint = {
            "dialect": "openai-chat",
            "base_url": f"{server.url}/v1",
            "api_key_env": "LAB_KEY",
            "auth": scheme,
            **extra,
        }
        config = tmp_path / "config.json"
        config.write_text(
            json.dumps(
                {"targets": ["lab:m"], "endpoints": {"lab": endpoint}, "repeats": 1, "cases": ["abstain-01"]}
            )
        )
        done = subprocess.run(
            [sys.executable, "-m", "fcbench", "run", "--config", str(config), "--out", str(tmp_path / "runs"),
             "--no-progress"],
            capture_output=True, text=True, timeout=120, check=False, env={**os.environ, "LAB_KEY": KEY},
        )  # fmt: skip
        seen = list(server.requests)
    assert done.returncode == 0, done.stdout + done.stderr
    assert seen, "no request reached the server"
    for request in seen:
        query = parse_qs(urlsplit(request.path).query)
        if header is not None:
            assert request.headers.get(header[0]) == header[1]
        if param is not None:
            assert query.get(param[0]) == [param[1]]
        if scheme == "api-key":
            assert query.get("api-version") == ["2024-10-21"]
        others = {"authorization", "api-key", "x-api-key", "x-goog-api-key"} - (
            {header[0]} if header else set()
        )
        assert not others & set(request.headers), "the key travels one way only"
    written = everything_written(tmp_path / "runs")
    assert KEY not in written and KEY[10:] not in written
    [run_dir] = (tmp_path / "runs").iterdir()
    pinned = read_manifest(run_dir).targets[0]
    assert pinned.auth == scheme
    assert pinned.api_version == extra.get("api_version")


def test_a_scheme_keeps_the_dialects_other_headers() -> None:
    anthropic = get("anthropic-messages")
    endpoint = Endpoint(
        name="proxy", dialect="anthropic-messages", base_url="http://127.0.0.1:1", auth="bearer"
    )
    headers, query = endpoint.auth_parts(KEY, anthropic.auth_headers)
    assert headers == {"anthropic-version": "2023-06-01", "Authorization": f"Bearer {KEY}"} and query == {}
    native = Endpoint(name="a", dialect="anthropic-messages", base_url="http://127.0.0.1:1")
    assert native.auth_parts(KEY, anthropic.auth_headers)[0]["x-api-key"] == KEY
    assert endpoint.auth_parts(None, anthropic.auth_headers) == ({"anthropic-version": "2023-06-01"}, {})


def test_unknown_scheme_is_a_config_error_naming_the_key(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(
        'targets: ["lab:m"]\nendpoints:\n'
        '  lab: {dialect: openai-chat, base_url: "http://127.0.0.1:1/v1", auth: basic}\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "fcbench", "run", "--config", str(config), "--dry-run"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "auth" in done.stderr and "Traceback" not in done.stderr
