"""A misspelt config key, at the top or nested, names the closest keys of its own object; an
unknown endpoint in a target names the closest endpoints (real files, real CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import fcbench

from fcbench.config import load_config
from fcbench.errors import ConfigError


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("repeat: 3\n", "repeat: Extra inputs are not permitted (did you mean 'repeats'?)"),
        (
            "gate:\n  min_pass_rat: 0.5\n",
            "gate.min_pass_rat: Extra inputs are not permitted (did you mean 'min_pass_rate'",
        ),
        ("timeoutM: 5\n", "(did you mean 'timeoutMs' or 'timeout_ms'?)"),
        (
            "targets:\n  - {name: a, target: 'sim:sim-careful', paramz: {}}\n",
            "targets.0.entry.paramz: Extra inputs are not permitted (did you mean 'params'?)",
        ),
        (
            "endpoints:\n  lab: {dialect: openai-chat, base_url: 'http://127.0.0.1:1', kee_env: K}\n",
            "endpoints.lab.kee_env: Extra inputs are not permitted (did you mean 'api_key_env'?)",
        ),
    ],
)
def test_a_misspelt_key_suggests_the_keys_of_its_object(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "fcbench.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert said in str(raised.value)


def test_a_key_like_nothing_known_gets_no_suggestion(tmp_path: Path) -> None:
    path = tmp_path / "fcbench.yaml"
    path.write_text("zzzzzz: 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"zzzzzz: Extra inputs are not permitted$"):
        load_config(path)


def test_the_cli_says_it_for_a_config_key_and_a_target_endpoint(tmp_path: Path) -> None:
    (tmp_path / "fcbench.yaml").write_text("concurency: 2\n", encoding="utf-8")
    done = fcbench("run", "-c", "fcbench.yaml", "--dry-run", cwd=tmp_path)
    assert done.returncode == 2
    assert "concurency: Extra inputs are not permitted (did you mean 'concurrency'?)" in done.stderr
    target = fcbench("run", "-t", "simm:sim-careful", "--dry-run", cwd=tmp_path)
    assert target.returncode == 2
    assert "unknown endpoint 'simm' (did you mean 'sim'" in target.stderr
