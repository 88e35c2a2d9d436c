"""Hostile or careless configs get a clear error naming the file and the key, fast."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from fcbench.config import MAX_CONFIG_BYTES, MAX_YAML_ALIASES, load_config
from fcbench.errors import ConfigError


def alias_bomb(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        refs = ", ".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


ENDPOINT = "endpoints:\n  lab: {dialect: openai-chat, base_url: %s%s}\n"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("bomb", alias_bomb(), "values once its aliases are expanded"),
        (
            "duplicate",
            "repeats: 2\nconcurrency: 4\nrepeats: 3\n",
            "line 3: invalid YAML/JSON: duplicate key 'repeats'",
        ),
        ("bool-as-int", "timeoutMs: true\n", "timeoutMs"),
        ("string-as-int", "repeats: '3'\n", "repeats"),
        ("file-url", ENDPOINT % ("'file:///etc/passwd'", ""), "is not an http:// or https:// URL"),
        ("no-host", ENDPOINT % ("'http://'", ""), "is not an http:// or https:// URL"),
        (
            "cookie",
            ENDPOINT % ("'http://127.0.0.1:9/v1'", ", headers: {Cookie: 'session=1'}"),
            "looks like a credential",
        ),
        (
            "proxy",
            ENDPOINT % ("'http://127.0.0.1:9/v1'", ", headers: {Proxy-Authorization: 'x'}"),
            "looks like a credential",
        ),
        (
            "subscription",
            ENDPOINT % ("'http://127.0.0.1:9/v1'", ", headers: {Ocp-Apim-Subscription-Key: 'x'}"),
            "looks like a credential",
        ),
        (
            "crlf",
            ENDPOINT % ("'http://127.0.0.1:9/v1'", ', headers: {X-Team: "a\\r\\nX-Evil: 1"}'),
            "line breaks",
        ),
    ],
)
def test_bad_configs_are_refused_quickly_with_the_key(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    started = time.process_time()
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert time.process_time() - started < 2.0  # CPU seconds: bounded work, whatever the load
    assert str(path) in str(caught.value) and message in str(caught.value), str(caught.value)


def test_more_aliases_than_the_budget_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "aliases.yaml"
    refs = ", ".join(["*t"] * (MAX_YAML_ALIASES + 1))
    path.write_text(f"targets: [&t 'sim:sim-careful', {refs}]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=f"more than {MAX_YAML_ALIASES} aliases"):
        load_config(path)
    path.write_text(f"tags: [&t a, {', '.join(['*t'] * MAX_YAML_ALIASES)}]\n", encoding="utf-8")
    assert len(load_config(path).tags) == MAX_YAML_ALIASES + 1


def test_an_oversized_config_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    path.write_text("suite: core\n# " + "x" * MAX_CONFIG_BYTES + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="larger than"):
        load_config(path)


def test_ordinary_anchors_and_safe_headers_still_load(tmp_path: Path) -> None:
    path = tmp_path / "ok.yaml"
    path.write_text(
        "defaults: &lab {dialect: openai-chat, base_url: 'https://lab.example.test/v1'}\n"
        "endpoints:\n  lab: *lab\n  lab2: *lab\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match="defaults"):  # the anchor holder itself is an unknown key
        load_config(path)
    path.write_text(
        "endpoints:\n  lab: &lab {dialect: openai-chat, base_url: 'https://lab.example.test/v1', "
        "headers: {X-Team: evals}}\n  lab2: *lab\nrepeats: 2\ntemperature: 0\n",
        encoding="utf-8",
    )
    config = load_config(path)
    assert config.endpoints["lab2"].headers == {"X-Team": "evals"} and config.repeats == 2
