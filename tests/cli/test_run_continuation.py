"""``fcbench run --mode recovery --continuation stateful`` against the embedded mock (real subprocesses).

Stateful continuation sends, from the second turn on, the provider's id of the previous turn and
only the new items; the mock answers from its stored conversation. The same conversations played
statelessly must reach the same outcomes, and a dialect that cannot continue by id stays stateless
with the record saying so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_run import fcbench

from fcbench.store.blobs import expand_blobs, load_blobs

TARGETS = ("sim-responses:sim-careful", "sim-interactions:sim-careful", "sim:sim-careful")
STATEFUL = {
    "openai-responses": ("previous_response_id", "function_call_output"),
    "gemini-interactions": ("previous_interaction_id", "function_result"),
}
"""Dialect that continues by id -> (the request field naming the previous turn, the only kind of
item a continued tool-result turn sends)."""


def _run(tmp_path: Path, continuation: str) -> tuple[Path, list[dict[str, Any]]]:
    out = tmp_path / continuation
    args = ["run", "--suite", "refunds", "--mode", "recovery", "--repeats", "1", "--out", str(out)]
    for target in TARGETS:
        args += ["-t", target]
    result = fcbench(*args, "--continuation", continuation, "--no-progress")
    assert result.returncode == 0, result.stderr
    (run_dir,) = out.iterdir()
    rows = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    assert rows
    return run_dir, rows


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, list[dict[str, Any]]]]:
    root = tmp_path_factory.mktemp("continuation")
    return {name: _run(root, name) for name in ("stateless", "stateful")}


def test_stateful_turns_send_the_previous_id_and_only_the_new_items(runs: dict[str, Any]) -> None:
    run_dir, rows = runs["stateful"]
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["continuation"] == "stateful"
    blobs = load_blobs(run_dir)
    continued = dict.fromkeys(STATEFUL, 0)
    for row in rows:
        dialect = row["target"]["dialect"]
        if dialect not in STATEFUL:
            continue
        field, item_kind = STATEFUL[dialect]
        assert row["continuation"] == "stateful"
        exchanges = expand_blobs(row["raw"], blobs)["exchanges"]
        first = exchanges[0]["request"]["body"]
        assert field not in first
        assert row["turns"][0]["continued_from"] is None
        for index in range(1, len(row["turns"])):
            previous_id = expand_blobs(exchanges[index - 1]["response"]["body"], blobs)["id"]
            body = exchanges[index]["request"]["body"]
            assert row["turns"][index]["continued_from"] == previous_id
            assert body[field] == previous_id
            kinds = {item.get("type", "message") for item in body["input"]}
            assert kinds == {item_kind}, body["input"]
            assert body["tools"]
            continued[dialect] += 1
    assert all(n >= 5 for n in continued.values()), continued


def test_a_dialect_without_stored_state_stays_stateless_and_says_so(runs: dict[str, Any]) -> None:
    run_dir, rows = runs["stateful"]
    blobs = load_blobs(run_dir)
    chat = [row for row in rows if row["target"]["dialect"] == "openai-chat"]
    assert chat and all(row["continuation"] == "stateless" for row in chat)
    long = [row for row in chat if len(row["turns"]) > 1]
    assert long
    for row in long:
        assert all(turn["continued_from"] is None for turn in row["turns"])
        last = expand_blobs(row["raw"], blobs)["exchanges"][-1]["request"]["body"]
        assert any(message["role"] == "assistant" for message in last["messages"])


def test_both_ways_reach_the_same_outcomes(runs: dict[str, Any]) -> None:
    def outcomes(rows: list[dict[str, Any]]) -> dict[tuple[str, str], Any]:
        return {
            (row["target"]["model"] + "@" + row["target"]["dialect"], row["case_id"]): (
                row["verdict"]["passed"],
                [turn["outcome"]["kind"] for turn in row["turns"]],
                row["verdict"]["recovery"]["outcome"],
            )
            for row in rows
        }

    stateless, stateful = outcomes(runs["stateless"][1]), outcomes(runs["stateful"][1])
    assert stateless == stateful
    assert all(row["continuation"] == "stateless" for row in runs["stateless"][1])


def test_an_unknown_continuation_is_a_config_error(tmp_path: Path) -> None:
    result = fcbench("run", "--continuation", "sometimes", "--out", str(tmp_path), "--no-progress")
    assert result.returncode == 2
    assert "continuation" in result.stderr and "Traceback" not in result.stderr
