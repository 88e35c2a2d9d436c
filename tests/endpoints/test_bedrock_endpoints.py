"""The built-in Bedrock endpoints: the real one keyed by a Bedrock API key, the mock one keyless."""

from __future__ import annotations

import pytest

from fcbench import adapters
from fcbench.endpoints import BUILTIN_ENDPOINTS, DEFAULT_TARGETS
from fcbench.errors import TargetError


def test_bedrock_sends_its_api_key_as_a_bearer_token() -> None:
    bedrock = BUILTIN_ENDPOINTS["bedrock"]
    assert (bedrock.dialect, bedrock.base_urls) == (
        "bedrock-converse",
        ["https://bedrock-runtime.us-east-1.amazonaws.com"],
    )
    assert bedrock.api_key({"AWS_BEARER_TOKEN_BEDROCK": "br-key"}) == "br-key"
    with pytest.raises(TargetError, match="AWS_BEARER_TOKEN_BEDROCK"):
        bedrock.api_key({})
    auth = adapters.get("bedrock-converse").auth_headers
    assert bedrock.auth_parts("br-key", auth) == ({"Authorization": "Bearer br-key"}, {})


def test_sim_bedrock_is_the_keyless_mock() -> None:
    sim = BUILTIN_ENDPOINTS["sim-bedrock"]
    assert sim.is_mock and sim.local and not sim.key_required
    assert sim.resolved("http://127.0.0.1:9/").base_urls == ["http://127.0.0.1:9"]
    assert sim.key_status({}) == "not needed (embedded mock)"
    assert not any(target.startswith("sim-bedrock:") for target in DEFAULT_TARGETS)
