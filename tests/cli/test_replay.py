"""``fcbench replay`` against the embedded mock (real subprocesses, real HTTP on 127.0.0.1).

``replay.openai-chat.jsonl`` holds five logged answers whose agreement with ``sim-careful`` is
known (see ``tests/fixtures/logs/README.md``) and one logged provider error:

1. ``lookup_order ORD-104821`` for "Where is order ORD-104821?": sim-careful does the same;
2. ``lookup_order ORD-999999`` for the same prompt: same tool, another ``order_id``;
3. a text answer to a greeting: sim-careful answers in text too;
4. a ``lookup_order`` call for that greeting: sim-careful makes no call;
5. ``lookup_order`` for "Show my shipped orders ... email": sim-careful calls ``search_orders``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_run import fcbench
from secret_samples import every_secret, one_text_of_each

LOG = Path(__file__).resolve().parents[1] / "fixtures" / "logs" / "replay.openai-chat.jsonl"


def _replay(*args: str) -> subprocess.CompletedProcess[str]:
    return fcbench("replay", *args)


def test_markdown_report_shows_agreement_as_n_over_d() -> None:
    result = _replay(str(LOG), "--dialect", "openai-chat", "--target", "sim:sim-careful")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert (
        "5 of 6 logged openai-chat requests replayed against sim:sim-careful (openai-chat); 5 compared."
        in out
    )
    assert "| Same decision (call or no call) | 80.0% (4/5) |" in out
    assert "| Same tool(s) | 60.0% (3/5) |" in out
    assert "| Same arguments (same outcome) | 40.0% (2/5) |" in out
    assert "Not replayed: logged provider error 1." in out
    assert "## Disagreements (3)" in out
    assert 'order\\_id: changed "ORD-999999" -&gt; "ORD-104821"' in out
    assert "| Cost | $0.0035 | $0.0000 |" in out


@pytest.mark.parametrize(
    ("target", "dialect"),
    [("sim-anthropic:sim-careful", "anthropic-messages"), ("sim-gemini:sim-careful", "gemini")],
)
def test_json_report_across_dialects(tmp_path: Path, target: str, dialect: str) -> None:
    out = tmp_path / "replay"
    result = _replay(
        str(LOG), "--dialect", "openai-chat", "--target", target, "--format", "json", "--out", str(out)
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data == json.loads((out / "replay.json").read_text())
    assert (data["target"], data["dialect"], data["target_dialect"]) == (target, "openai-chat", dialect)
    assert {k: (v["n"], v["d"]) for k, v in data["agreement"].items()} == {
        "same_decision": (4, 5),
        "same_tool": (3, 5),
        "same_arguments": (2, 5),
    }
    assert (data["requests"], data["replayed"], data["compared"]) == (6, 5, 5)
    assert data["provider_errors"] == {} and data["errors"] == []
    assert data["latency_ms"]["logged"] == {"n": 5, "p50": 1200.0, "p95": 1380.0}
    assert data["tokens"]["logged"] == {"input": 1000, "output": 100}
    assert data["cost_usd"]["logged"] == pytest.approx(0.0035)
    assert data["cost_usd"]["new"] == 0.0 and data["latency_ms"]["new"]["n"] == 5
    by_index = {d["index"]: d for d in data["disagreements"]}
    assert sorted(by_index) == [1, 3, 4]
    assert by_index[1]["diffs"] == [
        {"key": "order_id", "kind": "changed", "logged": "ORD-999999", "new": "ORD-104821"}
    ]
    assert (by_index[3]["same_decision"], by_index[3]["new"]["kind"]) == (False, "text")
    assert (by_index[4]["same_decision"], by_index[4]["same_tool"]) == (True, False)
    assert by_index[4]["new"]["calls"][0]["name"] == "search_orders"
    exchanges = [json.loads(line) for line in (out / "exchanges.jsonl").read_text().splitlines()]
    assert [e["index"] for e in exchanges] == [0, 1, 2, 3, 4]
    assert all(e["request"]["body"] and e["response"]["status"] == 200 for e in exchanges)
    assert "sim-key" not in (out / "exchanges.jsonl").read_text()
    assert (out / "replay.md").read_text().startswith("# Shadow replay")


def test_provider_errors_are_coverage_loss_and_nothing_replayed_fails_closed(tmp_path: Path) -> None:
    result = _replay(
        str(LOG), "--dialect", "openai-chat", "--target", "sim:no-such-model", "--format", "json"
    )
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert data["compared"] == 0 and data["replayed"] == 5
    assert data["provider_errors"] == {"not_found": 5}
    assert {k: (v["n"], v["d"]) for k, v in data["agreement"].items()} == {
        "same_decision": (0, 0),
        "same_tool": (0, 0),
        "same_arguments": (0, 0),
    }
    assert data["disagreements"] == []
    assert "nothing was replayed successfully" in result.stderr


def test_bad_input_exits_two(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"request": {}, "response": {}}\n[1]\n')
    result = _replay(str(bad), "--dialect", "openai-chat", "--target", "sim:sim-careful")
    assert result.returncode == 2
    assert f"{bad}:2: a log line must be a JSON object, not list" in result.stderr
    unknown = _replay(str(LOG), "--dialect", "openai-chat", "--target", "nowhere:model")
    assert unknown.returncode == 2 and "unknown endpoint 'nowhere'" in unknown.stderr


def _log_with_secrets(path: Path) -> Path:
    """The replay fixture with a text of every secret kind in two logged calls' arguments (both
    disagree with sim-careful, so the report lists them), a logged text answer and a logged
    provider error."""
    lines = [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()]
    text = one_text_of_each()
    for index in (1, 3):
        call = lines[index]["response"]["choices"][0]["message"]["tool_calls"][0]["function"]
        call["arguments"] = json.dumps({**json.loads(call["arguments"]), "note": text})
    lines[2]["response"]["choices"][0]["message"]["content"] = text
    lines[5]["response"]["error"]["message"] = f"rejected: {text}"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_no_secret_of_any_kind_reaches_the_reports_the_exchanges_or_the_terminal(tmp_path: Path) -> None:
    log = _log_with_secrets(tmp_path / "secrets.jsonl")
    out = tmp_path / "replay"
    shown = _replay(str(log), "--dialect", "openai-chat", "--target", "sim:sim-careful", "--out", str(out))
    assert shown.returncode == 0, shown.stderr
    as_json = _replay(str(log), "--dialect", "openai-chat", "--target", "sim:sim-careful", "--format", "json")
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    assert {d["index"] for d in data["disagreements"]} == {1, 3, 4}  # the comparison saw the arguments
    assert data["disagreements"][0]["diffs"][0]["kind"] == "missing"
    written = {
        name: (out / name).read_text(encoding="utf-8")
        for name in ("replay.md", "replay.json", "exchanges.jsonl")
    }
    assert "[REDACTED]" in written["replay.json"] and "\\[REDACTED\\]" in written["replay.md"]
    outputs = {**written, "stdout": shown.stdout + as_json.stdout, "stderr": shown.stderr + as_json.stderr}
    leaks = {(name, secret) for name, text in outputs.items() for secret in every_secret() if secret in text}
    assert not leaks


def test_a_skipped_lines_reason_prints_without_control_characters_or_secrets(tmp_path: Path) -> None:
    key = "sk-proj-" + "Zq4" * 10
    first = json.loads(LOG.read_text(encoding="utf-8").splitlines()[0])
    bad = {**first, "latency_ms": f"\x1b[2J\x1b]8;;https://evil.example\x07 a:b:m {key}"}
    log = tmp_path / "bad.jsonl"
    log.write_text(json.dumps(first) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    shown = _replay(str(log), "--dialect", "openai-chat", "--target", "sim:sim-careful", "--skip-bad")
    assert shown.returncode == 0, shown.stderr
    assert f"skipped {log}:2: latency_ms must be a non-negative number" in shown.stderr
    assert "a:b:m" in shown.stderr and key not in shown.stderr
    assert not {"\x1b", "\x07"} & set(shown.stderr + shown.stdout)
