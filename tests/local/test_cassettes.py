"""Real llama.cpp traffic, replayed: fcbench reads every recorded reply shape as the server meant it.

The cassette (``tests/fixtures/cassettes/llamacpp-qwen2.5-coder-0.5b.json``, re-recorded by
``tests/fixtures/cassettes/record.py``) holds the exchanges of a real run: plain, forced and
streamed single turns, recovery conversations, and requests whose history carries tool results.
Replaying it needs neither the ``local`` extra nor the model.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cassettes import Replayer, config_for, load_cassette
from robust_run import records

from fcbench.metrics import compute_metrics
from fcbench.report.common import fmt_rate
from fcbench.report.notes import mostly_text_calls
from fcbench.store.records import read_manifest

CASSETTE = "llamacpp-qwen2.5-coder-0.5b"
SUMMARY_FILE = "summary.txt"
"""Where the fixture keeps the run's terminal summary, beside the run folder."""


@pytest.fixture(scope="module")
def cassette() -> dict[str, Any]:
    return load_cassette(CASSETTE)


@pytest.fixture(scope="module")
def replayed(cassette: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Replayer]:
    """``fcbench run`` (a real subprocess) against the replayed server; the run folder and the replayer."""
    tmp = tmp_path_factory.mktemp("replay")
    with Replayer(cassette["interactions"]) as replayer:
        config = tmp / "config.json"
        config.write_text(json.dumps(config_for(cassette, replayer.url)))
        done = subprocess.run(
            [sys.executable, "-m", "fcbench", "run", "--config", str(config), "--out", str(tmp),
             "--min-coverage", "1", "--no-progress"],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (tmp / SUMMARY_FILE).write_text(done.stdout, encoding="utf-8")
    [run_dir] = [p for p in tmp.iterdir() if p.is_dir()]
    return run_dir, replayer


def read_reply(response: dict[str, Any]) -> tuple[str, Any]:
    """What a raw chat reply says, read independently of the adapter: ``("calls", names)`` or
    ``("text", content)``. Streams are read by joining their deltas."""
    if "events" in response:
        text, names = "", []
        for _, data in response["events"]:
            if data.strip() == "[DONE]":
                continue
            for choice in json.loads(data).get("choices", []):
                delta = choice.get("delta") or {}
                text += delta.get("content") or ""
                names += [
                    c["function"]["name"]
                    for c in delta.get("tool_calls") or []
                    if c.get("function", {}).get("name")
                ]
        return ("calls", names) if names else ("text", text)
    message = response["body"]["choices"][0]["message"]
    if message.get("tool_calls"):
        return "calls", [c["function"]["name"] for c in message["tool_calls"]]
    return "text", message.get("content") or ""


def outcome_reading(outcome: dict[str, Any]) -> tuple[str, Any]:
    if outcome["kind"] == "tool_calls":
        return "calls", [c["name"] for c in outcome["calls"]]
    assert outcome["kind"] == "text", outcome
    return "text", outcome["text"]


def exchanges(row: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(raw response, outcome) of every turn of a record."""
    raw = row["raw"]
    if "exchanges" in raw:
        return [
            (x["response"], turn["outcome"]) for x, turn in zip(raw["exchanges"], row["turns"], strict=True)
        ]
    return [(raw["response"], row["outcome"])]


def test_every_request_is_recorded_and_every_recording_is_used(replayed: tuple[Path, Replayer]) -> None:
    run_dir, replayer = replayed
    assert replayer.misses == []
    assert replayer.served == replayer.total > 0
    rows = records(run_dir)
    assert len(rows) == read_manifest(run_dir).planned
    assert {r["mode"] for r in rows} == {"selection", "forced", "stream", "recovery"}


def test_each_reply_is_read_as_the_server_wrote_it(replayed: tuple[Path, Replayer]) -> None:
    run_dir, _ = replayed
    for row in records(run_dir):
        assert row["verdict"]["decision"] != "not_scored", row["outcome"]
        for response, outcome in exchanges(row):
            assert response["status"] == 200
            assert outcome_reading(outcome) == read_reply(response), (row["case_id"], row["mode"])


def test_usage_comes_from_the_server(replayed: tuple[Path, Replayer]) -> None:
    run_dir, _ = replayed
    for row in records(run_dir):
        if row["mode"] in {"selection", "forced"}:
            body = row["raw"]["response"]["body"]
            assert row["usage"]["input_tokens"] == body["usage"]["prompt_tokens"]
            assert row["usage"]["output_tokens"] == body["usage"]["completion_tokens"]


def test_streamed_and_plain_replies_agree_where_the_server_agreed(
    replayed: tuple[Path, Replayer], cassette: dict[str, Any]
) -> None:
    """The model is deterministic here (temperature 0, one slot): where the recorded plain and
    streamed texts are equal, fcbench must give both the same decision."""
    by_case: dict[str, dict[str, dict[str, Any]]] = {}
    for row in records(replayed[0]):
        by_case.setdefault(row["case_id"], {})[row["mode"]] = row
    compared = 0
    for modes in by_case.values():
        if "selection" in modes and "stream" in modes:
            plain, streamed = modes["selection"], modes["stream"]
            if outcome_reading(plain["outcome"]) == outcome_reading(streamed["outcome"]):
                assert plain["verdict"]["decision"] == streamed["verdict"]["decision"]
                compared += 1
    assert compared >= 1


def test_llama_cpp_writes_calls_as_text_and_fcbench_records_it_as_such(
    replayed: tuple[Path, Replayer],
) -> None:
    """This model writes its calls as JSON text: strict scoring says ``call_in_text`` and the
    anomaly is recorded, never a silent repair."""
    rows = records(replayed[0])
    in_text = [r for r in rows if r["verdict"]["decision"] == "call_in_text"]
    assert in_text
    assert all("json_call_in_text" in json.dumps(r["anomalies"]) for r in in_text)


def test_history_with_tool_results_reached_the_server(cassette: dict[str, Any]) -> None:
    roles = [[m["role"] for m in i["request"]["body"]["messages"]] for i in cassette["interactions"]]
    assert any("tool" in r for r in roles)


def test_the_cassette_holds_no_credentials_and_only_real_llama_cpp_replies(cassette: dict[str, Any]) -> None:
    text = json.dumps(cassette)
    assert not re.search(r"(?i)authorization|bearer |x-api-key|sk-[a-z0-9]", text)
    for item in cassette["interactions"]:
        assert set(item["request"]) == {"method", "path", "body"}
        body = item["response"]["body"]
        assert '"timings"' in body and '"system_fingerprint"' in body  # written by llama.cpp's server
    assert (
        cassette["meta"]["server"]["sha256"]
        == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    )


def test_repairs_profile_reads_the_calls_this_model_writes_as_text(replayed: tuple[Path, Replayer]) -> None:
    """Under ``--profile repairs`` the calls written as text are extracted (``call_from_text``, the
    main repair for this model), graded as calls (schema validity counts them) and pass more often."""
    run_dir, _ = replayed
    done = subprocess.run(
        [sys.executable, "-m", "fcbench", "report", str(run_dir), "--profile", "strict,repairs",
         "--format", "json"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    data = json.loads(done.stdout)
    strict = {t["mode"]: t for t in data["profiles"]["strict"]["targets"]}
    repaired = {t["mode"]: t for t in data["profiles"]["repairs"]["targets"]}
    kinds: dict[str, int] = {}
    for target in repaired.values():
        for kind, count in target["repairs"].items():
            kinds[kind] = kinds.get(kind, 0) + count
    assert max(kinds, key=kinds.__getitem__) == "call_from_text"
    assert sum(t["pass_rate"]["n"] for t in repaired.values()) > sum(
        t["pass_rate"]["n"] for t in strict.values()
    )
    from_text = {(r["case_id"], r["mode"]) for r in data["repairs"] if r["kind"] == "call_from_text"}
    for mode, target in repaired.items():
        extracted = len({key for key in from_text if key[1] == mode})
        assert target["schema_valid"]["d"] == strict[mode]["schema_valid"]["d"] + extracted


def test_the_summary_and_report_say_most_answers_were_calls_written_as_text(
    replayed: tuple[Path, Replayer],
) -> None:
    """This model, with its own template, writes most calls as text: the run's summary and the
    markdown report say so per target, with the strict and the repairs profile's pass rates."""
    run_dir, _ = replayed
    strict = compute_metrics(run_dir)
    repaired = {(t.target, t.mode): t for t in compute_metrics(run_dir, profile="repairs").targets}
    shown = mostly_text_calls(strict)
    assert shown, "the cassette's answers are mostly calls written as text"
    summary = " ".join((run_dir.parent / SUMMARY_FILE).read_text(encoding="utf-8").split())
    report = subprocess.run(
        [sys.executable, "-m", "fcbench", "report", str(run_dir)], capture_output=True, text=True, check=True
    ).stdout
    notes = report.split("## Notes on the targets", 1)[1]
    for t in shown:
        repairs = repaired[(t.target, t.mode)]
        assert t.decisions["call_in_text"] > t.scorable / 2
        line = (
            f"calls written as text {t.target} [{t.mode}]: {t.decisions['call_in_text']}/{t.scorable} answers"
        )
        figures = (
            f"pass {fmt_rate(t.pass_rate, 0)} strict, {fmt_rate(repairs.pass_rate, 0)} with --profile repairs"
        )
        assert line in summary and figures in summary, summary
        assert figures in notes
    gained = [t for t in shown if repaired[(t.target, t.mode)].pass_rate.n > t.pass_rate.n]
    assert gained, "the repairs profile passes more of them somewhere"
