"""Config loading: seed keys accepted, errors name the file and the key, flags override."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fcbench.config import CommandLine, load_config
from fcbench.endpoints import DEFAULT_TARGETS
from fcbench.errors import ConfigError


def test_seed_benchmark_config_keys_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "benchmark.config.json"
    path.write_text(
        json.dumps(
            {
                "datasetVersion": "1.0.0",
                "repeats": 5,
                "temperature": 0,
                "timeoutMs": 30000,
                "concurrency": 1,
                "models": [
                    {"provider": "sim", "model": "sim-careful"},
                    {"provider": "sim-gemini", "model": "sim-eager"},
                ],
            }
        )
    )
    cfg = load_config(path)
    assert cfg.dataset_version == "1.0.0"
    assert cfg.repeats == 5 and cfg.timeout_ms == 30000 and cfg.concurrency == 1
    assert cfg.target_specs() == ["sim:sim-careful", "sim-gemini:sim-eager"]


def test_defaults_target_the_simulated_models() -> None:
    cfg = load_config(None)
    assert cfg.target_specs() == list(DEFAULT_TARGETS)
    assert cfg.repeats == 3 and cfg.modes == ["selection"]


def test_yaml_endpoints_and_flag_overrides(tmp_path: Path) -> None:
    path = tmp_path / "fcbench.yaml"
    path.write_text(
        "endpoints:\n"
        "  mylab: {dialect: openai-chat, base_url: 'http://127.0.0.1:8000/v1', api_key_env: MYLAB_KEY}\n"
        "targets: ['mylab:qwen2.5-7b']\nrepeats: 2\n"
    )
    cfg = load_config(path, CommandLine(repeats=7, targets=None))
    assert cfg.repeats == 7
    assert cfg.target_specs() == ["mylab:qwen2.5-7b"]
    endpoint = cfg.user_endpoints()["mylab"]
    assert endpoint.dialect == "openai-chat" and endpoint.api_key_env == "MYLAB_KEY"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("repeats: zero\n", "repeats"),
        ("endpoints:\n  x: {dialect: klingon, base_url: 'http://h'}\n", "endpoints.x.dialect"),
        (
            "endpoints:\n  x: {dialect: openai-chat, base_url: 'http://h', headers: {Authorization: k}}\n",
            "endpoints.x.headers",
        ),
        ("colour: blue\n", "colour"),
        ("modes: [selection, telepathy]\n", "modes.1"),
        ("- just\n- a list\n", "mapping"),
        ("repeats: [1\n", "line 2"),
        ("", "empty"),
    ],
)
def test_bad_config_names_file_and_key(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message
    assert needle in message


def test_non_utf8_config_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("repeats: 3 # caf\xe9\n".encode("latin-1"))
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(path)


def test_config_hash_ignores_concurrency_but_not_repeats() -> None:
    base = load_config(None)
    assert load_config(None, CommandLine(concurrency=99)).hash() == base.hash()
    assert load_config(None, CommandLine(repeats=9)).hash() != base.hash()
