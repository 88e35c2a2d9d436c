"""Traces as logs: OTLP spans of the real OpenAI SDK instrumentation, hand-written GenAI spans of
both styles and a Langfuse export, imported as cases and replayed like wire logs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import otel_spans
import pytest
from cli_run import fcbench

from fcbench.contract import AssistantMessage, ToolCallsOutcome, ToolResultMessage, UserMessage
from fcbench.errors import InputError
from fcbench.logs.formats import read_log_files
from fcbench.logs.traces import ReadOptions

SUPPORT = Path(__file__).resolve().parents[1] / "support"


@pytest.fixture(scope="module")
def real_spans(tmp_path_factory: pytest.TempPathFactory, mock_server: str) -> dict[str, Path]:
    """OTLP JSON of the instrumented OpenAI SDK against the mock, in both content styles, and the
    tool list the application offered (the instrumentation does not record it)."""
    folder = tmp_path_factory.mktemp("otel")
    files = {}
    for style in ("attributes", "events"):
        files[style] = folder / f"{style}.json"
        script = str(SUPPORT / "otel_spans.py")
        subprocess.run(
            [sys.executable, script, style, mock_server, str(files[style])], check=True, timeout=120
        )
    files["tools"] = folder / "tools.json"
    files["tools"].write_text(json.dumps(otel_spans.TOOLS), encoding="utf-8")
    return files


def _otlp_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_otlp_value(v) for v in value]}}
    return {"stringValue": value if isinstance(value, str) else json.dumps(value)}


def _attributes(values: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": key, "value": _otlp_value(value)} for key, value in values.items()]


def _span(span_id: str, attributes: dict[str, Any], events: list[dict[str, Any]] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    return {
        "traceId": "5b8aa5a2d2c872e8321cf37308d69df2",
        "spanId": span_id,
        "name": f"chat {attributes.get('gen_ai.request.model')}",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000000250000000",
        "attributes": _attributes(attributes),
        "events": [{"name": name, "attributes": _attributes(body)} for name, body in events],
    }


def _otlp(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "app"}, "spans": list(spans)}]}]}


LOOKUP = {
    "type": "function",
    "name": "lookup_order",
    "description": "Look up an order.",
    "parameters": {
        "type": "object",
        "properties": {"order_id": {"type": "string"}},
        "required": ["order_id"],
    },
}

EVENT_SPAN = _span(
    "00f067aa0ba902b7",
    {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.usage.input_tokens": 40,
        "gen_ai.usage.output_tokens": 7,
        "gen_ai.tool.definitions": [LOOKUP],
    },
    [
        ("gen_ai.system.message", {"content": "You help with orders."}),
        ("gen_ai.user.message", {"content": "Where is ORD-1?"}),
        (
            "gen_ai.assistant.message",
            {
                "tool_calls": json.dumps(
                    [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "lookup_order", "arguments": '{"order_id": "ORD-1"}'},
                        }
                    ]
                )
            },
        ),
        ("gen_ai.tool.message", {"id": "call_1", "content": '{"status": "shipped"}'}),
        ("gen_ai.user.message", {"content": "And ORD-2?"}),
        (
            "gen_ai.choice",
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": json.dumps(
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "call_2",
                                "function": {"name": "lookup_order", "arguments": '{"order_id": "ORD-2"}'},
                            }
                        ],
                    }
                ),
            },
        ),
    ],
)
"""A hand-written event-style span: a conversation with a tool result, and the answer as a choice event."""

ATTRIBUTE_SPAN = _span(
    "00f067aa0ba902b8",
    {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.system_instructions": [{"type": "text", "content": "You help with orders."}],
        "gen_ai.input.messages": [{"role": "user", "parts": [{"type": "text", "content": "Hi there"}]}],
        "gen_ai.output.messages": [
            {
                "role": "assistant",
                "finish_reason": "stop",
                "parts": [{"type": "text", "content": "Hello! Which order?"}],
            }
        ],
        "gen_ai.tool.definitions": [LOOKUP],
    },
)
"""A hand-written attribute-style span with a text answer."""

TOOL_SPAN = {
    "spanId": "aa",
    "name": "execute_tool lookup_order",
    "attributes": _attributes({"gen_ai.operation.name": "execute_tool"}),
}
"""A tool span: not a model request, ignored."""


def test_the_real_instrumentations_spans_import_as_cases_in_both_styles(
    real_spans: dict[str, Path], tmp_path: Path
) -> None:
    for style in ("attributes", "events"):
        out = tmp_path / style
        args = [
            "import",
            "logs",
            str(real_spans[style]),
            "--format",
            "otel",
            "--tools",
            str(real_spans["tools"]),
        ]
        result = fcbench(*args, "--out", str(out))
        assert result.returncode == 0, result.stderr
        cases = [json.loads(line) for line in (out / "cases.jsonl").read_text(encoding="utf-8").splitlines()]
        assert [c["expected"] for c in cases] == [
            {"kind": "tool", "name": "lookup_order", "arguments": {"order_id": "ORD-104821"}},
            {"kind": "tool", "name": "lookup_order", "arguments": {"order_id": "ORD-200300"}},
        ]
        assert cases[0]["prompt"] == "Where is my order ORD-104821?"
        assert (out / "system.txt").read_text(
            encoding="utf-8"
        ).strip() == "You are the support assistant of a shop."
        tools = json.loads((out / "tools.core.json").read_text(encoding="utf-8"))
        assert [t["name"] for t in tools["tools"]] == ["lookup_order"]
        written = "".join(p.read_text(encoding="utf-8") for p in out.iterdir())
        assert otel_spans.SECRET not in written and "needs-review:secret" in cases[1]["tags"]


def test_the_real_instrumentations_spans_replay_against_a_target(
    real_spans: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "replay"
    args = ["replay", str(real_spans["events"]), "--log-format", "otel", "--tools", str(real_spans["tools"])]
    result = fcbench(*args, "--target", "sim:sim-careful", "--format", "json", "--out", str(out))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["dialect"], report["requests"], report["compared"]) == ("otel", 2, 2)
    assert report["agreement"]["same_arguments"]["n"] == 2
    assert report["tokens"]["logged"]["input"] > 0 and report["latency_ms"]["logged"]["n"] == 2
    exchanges = (out / "exchanges.jsonl").read_text(encoding="utf-8")
    assert "lookup_order" in exchanges and otel_spans.SECRET not in exchanges + result.stdout


def test_without_tool_definitions_or_tools_a_span_offers_none_and_becomes_no_case(
    real_spans: dict[str, Path], tmp_path: Path
) -> None:
    result = fcbench(
        "import", "logs", str(real_spans["attributes"]), "--format", "otel", "--out", str(tmp_path / "s")
    )
    assert result.returncode == 2 and "no_tools 2" in result.stderr and "Traceback" not in result.stderr
    report = (
        json.loads((tmp_path / "s" / "import_report.json").read_text(encoding="utf-8"))
        if (tmp_path / "s").exists()
        else None
    )
    assert report is None or "--tools" in report["reasons"]["no_tools"]


def test_hand_written_event_style_spans_read_the_conversation_and_the_choice(tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"  # JSON Lines of OTLP documents, as the file exporters write
    path.write_text(
        json.dumps(_otlp(TOOL_SPAN)) + "\n" + json.dumps(_otlp(EVENT_SPAN)) + "\n", encoding="utf-8"
    )
    read, source = read_log_files([path], "otel", ReadOptions())
    assert source == "otel" and read.lines == 1
    (entry,) = read.entries
    request = entry.request
    assert request.system == "You help with orders." and request.model == "gpt-4o"
    assert [type(m) for m in request.messages] == [
        UserMessage,
        AssistantMessage,
        ToolResultMessage,
        UserMessage,
    ]
    result = request.messages[2]
    assert isinstance(result, ToolResultMessage)
    assert (result.call_id, result.name, result.content) == ("call_1", "lookup_order", {"status": "shipped"})
    outcome = entry.turn.outcome
    assert isinstance(outcome, ToolCallsOutcome) and outcome.calls[0].arguments == {"order_id": "ORD-2"}
    assert (entry.turn.usage.input_tokens, entry.latency_ms, entry.line) == (40, 250.0, 2)
    assert entry.where.endswith("spans.jsonl:2 span 'chat gpt-4o' 00f067aa0ba902b7")


def test_hand_written_attribute_spans_become_text_cases(tmp_path: Path) -> None:
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(_otlp(ATTRIBUTE_SPAN, EVENT_SPAN), indent=1), encoding="utf-8")
    out = tmp_path / "suite"
    result = fcbench("import", "logs", str(path), "--format", "otel", "--out", str(out))
    assert result.returncode == 0, result.stderr
    cases = [json.loads(line) for line in (out / "cases.jsonl").read_text(encoding="utf-8").splitlines()]
    assert cases[0]["expected"] == {"kind": "text"} and cases[0]["prompt"] == "Hi there"
    assert cases[1]["history"][0] == {"role": "user", "content": "Where is ORD-1?"}
    assert "spans.json:" in cases[0]["note"]


def test_a_span_that_cannot_be_read_is_named_with_file_and_line(tmp_path: Path) -> None:
    broken = _span(
        "0badc0de0badc0de",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "m",
            "gen_ai.input.messages": '{"role": "user"}',
        },
    )
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_otlp(ATTRIBUTE_SPAN, broken), indent=1), encoding="utf-8")
    result = fcbench("import", "logs", str(path), "--format", "otel", "--out", str(tmp_path / "s"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = path.read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if '"spanId": "0badc0de0badc0de"' in text)
    assert f"bad.json:{line}" in result.stderr and "0badc0de0badc0de" in result.stderr
    assert "gen_ai.input.messages must be a list" in result.stderr
    with pytest.raises(InputError):
        read_log_files([path], "otel", ReadOptions())
    skipped, _ = read_log_files([path], "otel", ReadOptions(skip_bad=True))
    assert len(skipped.entries) == 1 and skipped.bad[0].line == line


def test_a_file_that_is_not_otlp_and_wire_logs_without_a_dialect_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"hello": 1}', encoding="utf-8")
    result = fcbench("import", "logs", str(path), "--format", "otel", "--out", str(tmp_path / "s"))
    assert result.returncode == 2 and "not OTLP JSON" in result.stderr
    result = fcbench("import", "logs", str(path), "--out", str(tmp_path / "s"))
    assert result.returncode == 2 and "--dialect" in result.stderr
    result = fcbench("import", "logs", str(path), "--format", "csv", "--out", str(tmp_path / "s"))
    assert result.returncode == 2 and "unknown log format" in result.stderr


LANGFUSE_TRACE: dict[str, Any] = {
    "id": "trace-7f3a",
    "name": "support-chat",
    "timestamp": "2026-11-02T10:00:00.000Z",
    "input": {"question": "Where is my order ORD-104821?"},
    "output": None,
    "observations": [
        {
            "id": "obs-span-1",
            "traceId": "trace-7f3a",
            "type": "SPAN",
            "name": "handle-request",
            "startTime": "2026-11-02T10:00:00.000Z",
            "endTime": "2026-11-02T10:00:01.200Z",
            "input": None,
            "output": None,
        },
        {
            "id": "obs-gen-1",
            "traceId": "trace-7f3a",
            "type": "GENERATION",
            "name": "OpenAI-generation",
            "parentObservationId": "obs-span-1",
            "model": "gpt-4o-2024-08-06",
            "modelParameters": {"temperature": 0},
            "startTime": "2026-11-02T10:00:00.100Z",
            "endTime": "2026-11-02T10:00:00.900Z",
            "latency": 0.8,
            "input": {
                "messages": [
                    {"role": "system", "content": "You are the support assistant of a shop."},
                    {"role": "user", "content": "Where is my order ORD-104821?"},
                ],
                "tools": otel_spans.TOOLS,
            },
            "output": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_9",
                        "type": "function",
                        "function": {"name": "lookup_order", "arguments": '{"order_id": "ORD-104821"}'},
                    }
                ],
            },
            "usage": {"input": 61, "output": 12, "total": 73, "unit": "TOKENS"},
            "usageDetails": {"input": 61, "output": 12, "total": 73},
            "level": "DEFAULT",
            "statusMessage": None,
            "metadata": {},
        },
        {
            "id": "obs-gen-2",
            "traceId": "trace-7f3a",
            "type": "GENERATION",
            "name": "OpenAI-generation",
            "model": "gpt-4o-2024-08-06",
            "input": [{"role": "user", "content": "hello?"}],
            "output": None,
            "level": "ERROR",
            "statusMessage": "Rate limit reached",
        },
    ],
    "scores": [],
}
"""A trace as Langfuse's "Download JSON" gives it: a span, a generation with tools, a failed one."""


def test_a_langfuse_export_imports_and_replays(tmp_path: Path) -> None:
    path = tmp_path / "trace-7f3a.json"
    path.write_text(json.dumps(LANGFUSE_TRACE, indent=2), encoding="utf-8")
    out = tmp_path / "suite"
    result = fcbench("import", "logs", str(path), "--format", "langfuse", "--out", str(out))
    assert result.returncode == 0, result.stderr
    (case,) = [json.loads(line) for line in (out / "cases.jsonl").read_text(encoding="utf-8").splitlines()]
    assert case["expected"] == {
        "kind": "tool",
        "name": "lookup_order",
        "arguments": {"order_id": "ORD-104821"},
    }
    report = json.loads((out / "import_report.json").read_text(encoding="utf-8"))
    assert (report["lines"], report["skipped_by_reason"]) == (2, {"provider_error": 1})
    lines = path.read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if '"id": "obs-gen-1"' in text)
    assert f"trace-7f3a.json:{line} generation 'OpenAI-generation' obs-gen-1" in case["note"]
    replayed = fcbench(
        "replay", str(path), "--log-format", "langfuse", "--target", "sim:sim-careful", "--format", "json"
    )
    assert replayed.returncode == 0, replayed.stderr
    data = json.loads(replayed.stdout)
    assert (data["compared"], data["not_replayed"]) == (1, {"logged provider error": 1})
    assert data["agreement"]["same_arguments"]["n"] == 1 and data["latency_ms"]["logged"]["p50"] == 800.0


def test_a_langfuse_file_without_observations_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('[{"id": "t", "name": "x"}]', encoding="utf-8")
    result = fcbench("import", "logs", str(path), "--format", "langfuse", "--out", str(tmp_path / "s"))
    assert (
        result.returncode == 2
        and "not a Langfuse trace export" in result.stderr
        and "t.json" in result.stderr
    )
