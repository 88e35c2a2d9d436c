"""The same prompts over openai-chat and anthropic-messages count the same input, on real traffic.

The cassette (``tests/fixtures/cassettes/llamacpp-tokens-qwen2.5-coder-0.5b.json``, re-recorded by
``tests/fixtures/cassettes/record_tokens.py``) holds one llama.cpp server answering the same cases
over both dialects, one request at a time, so most of each prompt comes from the server's prompt
cache: its Messages replies report a few ``input_tokens`` beside the ``cache_read_input_tokens``,
its Chat replies the cached part inside ``prompt_tokens``. ``fcbench run`` (a real subprocess)
against the replayed server, then ``fcbench report --format json`` must give both targets the
same input totals, and the cached parts.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cassettes import Replayer, config_for, load_cassette
from robust_run import records

CASSETTE = "llamacpp-tokens-qwen2.5-coder-0.5b"
CHAT, MESSAGES = "rec-chat", "rec-messages"


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Replayer]:
    """``fcbench run`` against the replayed server; the run folder and the replayer."""
    tmp = tmp_path_factory.mktemp("tokens")
    with Replayer(load_cassette(CASSETTE)["interactions"]) as replayer:
        config = tmp / "config.json"
        config.write_text(json.dumps(config_for(load_cassette(CASSETTE), replayer.url)))
        done = subprocess.run(
            [sys.executable, "-m", "fcbench", "run", "--config", str(config), "--out", str(tmp),
             "--min-coverage", "1", "--no-progress"],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 1: the gate; the traffic is what counts
    [run_dir] = [p for p in tmp.iterdir() if p.is_dir()]
    return run_dir, replayer


def _by_observation(run_dir: Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {(r["target"]["endpoint"], r["case_id"], r["mode"]): r for r in records(run_dir)}


def test_every_recording_is_replayed(replayed: tuple[Path, Replayer]) -> None:
    run_dir, replayer = replayed
    assert replayer.misses == [] and replayer.served == replayer.total == 12
    assert len(records(run_dir)) == 12


def test_the_same_prompt_counts_the_same_input_over_both_dialects(replayed: tuple[Path, Replayer]) -> None:
    rows = _by_observation(replayed[0])
    pairs = [
        (row, rows[(MESSAGES, case, mode)])
        for (endpoint, case, mode), row in rows.items()
        if endpoint == CHAT
    ]
    assert len(pairs) == 6
    cached = 0
    for chat, messages in pairs:
        recorded = messages["raw"]["response"]
        assert chat["usage"]["input_tokens"] == messages["usage"]["input_tokens"]
        cached += messages["usage"].get("cache_read_input_tokens", 0)
        if "body" in recorded and isinstance(
            recorded["body"], dict
        ):  # as written: a small part of the prompt
            assert recorded["body"]["usage"]["input_tokens"] < messages["usage"]["input_tokens"]
    assert cached > 0


def test_the_report_totals_compare_and_show_the_cached_part(replayed: tuple[Path, Replayer]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "fcbench", "report", str(replayed[0]), "--format", "json"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    totals: dict[str, dict[str, int]] = {}
    for target in json.loads(done.stdout)["targets"]:
        tokens = target["tokens"]
        into = totals.setdefault(target["endpoint"], {"input": 0, "cache_read": 0})
        into["input"] += tokens["input"]
        into["cache_read"] += tokens["cache_read"]
    chat, messages = totals[CHAT], totals[MESSAGES]
    assert chat["input"] == messages["input"]
    assert 0 < messages["cache_read"] <= messages["input"]
    assert 0 <= chat["cache_read"] <= chat["input"]
