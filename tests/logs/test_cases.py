"""Logs -> suite: expectations, sampling, secrets and personal data, malformed lines."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fcbench.errors import InputError
from fcbench.logs.cases import NO_CALL, REPORT_FILE, import_logs, stratified_pick
from fcbench.suite.loader import load_suite

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
SECRET = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e"


def _cases(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "cases.jsonl").read_text().splitlines()]


def _many_lines(tmp_path: Path, counts: dict[str, int]) -> Path:
    """A chat log with ``counts[name]`` exchanges calling ``name`` (or ``NO_CALL``), shuffled."""
    first = json.loads((LOGS / "openai-chat.constructed.jsonl").read_text().splitlines()[0])
    lines = []
    for name, count in counts.items():
        for n in range(count):
            row = json.loads(json.dumps(first))
            row["request"]["messages"][-1]["content"] = f"request {name} {n}"
            message = row["response"]["choices"][0]["message"]
            if name == NO_CALL:
                message.pop("tool_calls")
                message["content"] = "No call needed."
            else:
                args = {"order_id": "ORD-104821"} if name == "lookup_order" else {"email": "a@b.example"}
                message["tool_calls"][0]["function"] = {"name": name, "arguments": json.dumps(args)}
            lines.append(json.dumps(row))
    lines = lines[::2] + lines[1::2]
    path = tmp_path / "many.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_expected_history_and_label_come_from_the_log(tmp_path: Path) -> None:
    report = import_logs(
        [LOGS / "anthropic-messages.constructed.jsonl"], "anthropic-messages", tmp_path / "s"
    )
    cases = {c["id"]: c for c in _cases(tmp_path / "s")}
    assert report.imported == 4 and report.by_kind == {"text": 1, "tool": 2, "tools": 1}
    assert all(c["label"] == "pending" for c in cases.values())
    assert cases["log-0001"]["expected"] == {
        "kind": "tool",
        "name": "lookup_order",
        "arguments": {"order_id": "ORD-104821"},
    }
    follow_up = cases["log-0002"]
    assert [m["role"] for m in follow_up["history"]] == ["user", "assistant", "tool"]
    assert follow_up["history"][1]["calls"][0]["id"] == follow_up["history"][2]["call_id"] == "call_b1"
    assert follow_up["prompt"] == "Quote standard shipping for 750 grams to US postal code 02139."
    parallel = cases["log-0004"]["expected"]
    assert parallel["kind"] == "tools" and parallel["order"] == "any"
    assert [c["arguments"]["status"] for c in parallel["calls"]] == ["shipped", "delivered"]
    suite = load_suite(tmp_path / "s")
    assert suite.system == "You are the order desk of an online shop."
    assert [t.name for t in suite.tool_sets["core"]] == [
        "lookup_order",
        "search_orders",
        "get_shipping_quote",
    ]


def test_secrets_are_redacted_and_personal_data_flagged_never_silently_kept(tmp_path: Path) -> None:
    report = import_logs([LOGS / "openai-chat.constructed.jsonl"], "openai-chat", tmp_path / "s")
    folder = tmp_path / "s"
    for name in ("cases.jsonl", REPORT_FILE, "system.txt", "tools.core.json"):
        assert SECRET not in (folder / name).read_text()
    cases = {c["id"]: c for c in _cases(folder)}
    greeting = cases["log-0003"]
    assert "[REDACTED]" in greeting["prompt"] and "sam@example.test" in greeting["prompt"]
    assert {"needs-review:secret", "needs-review:pii"} <= set(greeting["tags"])
    assert "secret (openai_key) redacted" in greeting["note"]
    assert cases["log-0004"]["tags"] == ["from-logs", "needs-review:pii"]
    assert cases["log-0001"]["tags"] == ["from-logs"]
    assert report.flagged == {
        "log-0003": "secret (openai_key) redacted; personal data kept: email 1, phone 1",
        "log-0004": "personal data kept: email 3",
    }
    written = json.loads((folder / REPORT_FILE).read_text())
    assert written["flagged"] == report.flagged


def test_sampling_is_stratified_by_the_tool_called_and_deterministic(tmp_path: Path) -> None:
    log = _many_lines(tmp_path, {"lookup_order": 12, "search_orders": 6, NO_CALL: 2})
    first = import_logs([log], "openai-chat", tmp_path / "a", sample=10, seed=7)
    again = import_logs([log], "openai-chat", tmp_path / "b", sample=10, seed=7)
    other = import_logs([log], "openai-chat", tmp_path / "c", sample=10, seed=8)
    ids = [c["id"] for c in _cases(tmp_path / "a")]
    assert ids == [c["id"] for c in _cases(tmp_path / "b")]
    assert ids != [c["id"] for c in _cases(tmp_path / "c")]
    assert ids == sorted(ids), "kept in log order"
    assert first.sample == again.sample
    assert first.sample is not None and first.sample["strata"] == {
        NO_CALL: {"available": 2, "chosen": 1},
        "lookup_order": {"available": 12, "chosen": 6},
        "search_orders": {"available": 6, "chosen": 3},
    }
    assert other.imported == 10
    kinds = Counter(c["expected"].get("name", "text") for c in _cases(tmp_path / "a"))
    assert kinds == {"lookup_order": 6, "search_orders": 3, "text": 1}


def test_stratified_pick_gives_every_stratum_a_place_when_the_size_allows() -> None:
    items = ["a"] * 30 + ["b"] * 1 + ["c"] * 1
    picked = stratified_pick(items, lambda item: item, 4, seed=0)
    assert Counter(picked) == {"a": 2, "b": 1, "c": 1}
    assert stratified_pick(items, lambda item: item, 100, seed=0) == items
    assert Counter(stratified_pick(items, lambda item: item, 2, seed=3)) == {"a": 2}


def test_a_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    log = tmp_path / "broken.jsonl"
    good = (LOGS / "gemini.constructed.jsonl").read_text().splitlines()
    log.write_text("\n".join([good[0], "", '{"request": {"contents": []}}', good[1]]) + "\n")
    with pytest.raises(InputError) as caught:
        import_logs([log], "gemini", tmp_path / "s")
    assert str(caught.value).startswith(f"{log}:3: ")
    assert '"request" and "response" (missing: response)' in str(caught.value)
    report = import_logs([log], "gemini", tmp_path / "s", skip_bad=True)
    assert report.bad_lines == [f'{log}:3: a log line needs "request" and "response" (missing: response)']
    assert report.imported == 2 and report.lines == 3


def test_several_tool_sets_and_system_prompts_are_kept_apart(tmp_path: Path) -> None:
    shutil.copy(LOGS / "openai-responses.recorded.jsonl", tmp_path / "log.jsonl")
    report = import_logs([tmp_path / "log.jsonl"], "openai-responses", tmp_path / "s")
    suite = load_suite(tmp_path / "s")
    assert set(suite.tool_sets) == set(report.tool_sets) and "core" in suite.tool_sets
    assert len(suite.tool_sets) > 1
    by_id = {c.id: c for c in suite.cases}
    for case_id in report.system_prompt["differs"]:
        assert "its logged system prompt differs from system.txt" in (by_id[case_id].note or "")
    assert any("another system prompt" in w for w in report.warnings)
    assert report.skipped_by_reason == {"no_tools": 2, "not_user_last": 7, "provider_error": 2}


def test_an_import_that_finds_nothing_to_keep_fails(tmp_path: Path) -> None:
    log = tmp_path / "errors.jsonl"
    lines = [
        line for line in (LOGS / "openai-chat.recorded.jsonl").read_text().splitlines() if '"status"' in line
    ]
    log.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match="no logged exchange could become a case \\(provider_error 2\\)"):
        import_logs([log], "openai-chat", tmp_path / "s")
    assert not (tmp_path / "s").exists()
