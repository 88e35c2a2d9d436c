"""Targets, endpoint lookup and endpoint keys."""

from __future__ import annotations

import pytest

from fcbench.endpoints import BUILTIN_ENDPOINTS, Endpoint, all_endpoints, parse_target
from fcbench.errors import TargetError


def test_parse_target_and_unknown_endpoint() -> None:
    endpoints = all_endpoints(
        {"mylab": Endpoint(name="mylab", dialect="openai-chat", base_url="http://h/v1")}
    )
    endpoint, model = parse_target("mylab:qwen2.5:7b", endpoints)
    assert endpoint.name == "mylab" and model == "qwen2.5:7b"
    with pytest.raises(TargetError, match="unknown endpoint 'nowhere'"):
        parse_target("nowhere:m", endpoints)
    with pytest.raises(TargetError, match="ENDPOINT:MODEL"):
        parse_target("justamodel", endpoints)


def test_missing_key_names_the_variable_and_mock_needs_none() -> None:
    with pytest.raises(TargetError, match="OPENAI_API_KEY"):
        BUILTIN_ENDPOINTS["openai"].api_key({})
    assert BUILTIN_ENDPOINTS["openai"].api_key({"OPENAI_API_KEY": "sk-test"}) == "sk-test"
    assert BUILTIN_ENDPOINTS["vllm"].api_key({}) is None
    sim = BUILTIN_ENDPOINTS["sim-anthropic"]
    assert sim.api_key({}) and sim.is_mock
    assert sim.resolved("http://127.0.0.1:9").base_urls == ["http://127.0.0.1:9"]
    assert BUILTIN_ENDPOINTS["sim-gemini"].resolved("http://127.0.0.1:9/").base_urls == [
        "http://127.0.0.1:9/v1beta"
    ]
    with pytest.raises(TargetError, match="mock provider"):
        sim.resolved(None)


def test_key_status_never_shows_the_key() -> None:
    env = {"OPENAI_API_KEY": "sk-secret-value", "VLLM_API_KEY": ""}
    assert BUILTIN_ENDPOINTS["openai"].key_status(env) == "present"
    assert BUILTIN_ENDPOINTS["anthropic"].key_status(env) == "missing"
    assert BUILTIN_ENDPOINTS["vllm"].key_status(env) == "optional, not set"
    assert BUILTIN_ENDPOINTS["sim"].key_status(env) == "not needed (embedded mock)"
