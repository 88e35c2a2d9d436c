"""Request readers on real recorded traffic and on one conversation written in all four dialects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fcbench.adapters import dialects, get, read_request, request_readers
from fcbench.adapters.logged import RequestFormatError
from fcbench.contract import AssistantMessage, ToolResultMessage, UserMessage
from fcbench.logs.entries import read_logs

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
READERS = request_readers()
DIALECTS = sorted(READERS)
NOT_READ = {d: getattr(get(d), "unread_logs", None) for d in dialects() if d not in READERS}
RECORDED = sorted(p.name.removesuffix(".recorded.jsonl") for p in LOGS.glob("*.recorded.jsonl"))
"""Dialects with real recorded traffic (Bedrock Converse has none here: its logs are constructed)."""


def test_every_adapter_dialect_has_a_reader_or_says_why_not() -> None:
    assert sorted([*READERS, *NOT_READ]) == dialects()
    assert not set(READERS) & set(NOT_READ) and all(NOT_READ.values())
    for dialect, why in NOT_READ.items():
        with pytest.raises(
            RequestFormatError, match=f"no request reader for dialect '{dialect}' \\({why[:20]}"
        ):
            read_request(dialect, {"model": "m"})
    assert set(RECORDED) <= set(READERS) and len(RECORDED) >= 4


@pytest.mark.parametrize("dialect", RECORDED)
def test_recorded_traffic_reads_with_tool_results_tied_to_their_calls(dialect: str) -> None:
    read = read_logs([LOGS / f"{dialect}.recorded.jsonl"], dialect)
    assert read.entries and not read.bad
    follow_ups = [e for e in read.entries if any(m.role == "tool" for m in e.request.messages)]
    assert follow_ups, "the recordings hold second turns that answer tool calls"
    for entry in follow_ups:
        messages = entry.request.messages
        calls = [c for m in messages if isinstance(m, AssistantMessage) for c in m.calls]
        results = [m for m in messages if isinstance(m, ToolResultMessage)]
        assert {r.name for r in results} <= {c.name for c in calls}
        assert all(r.name for r in results)
        ids = {c.id for c in calls if c.id}
        assert all(r.call_id in ids for r in results if r.call_id is not None)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_one_conversation_reads_the_same_in_every_dialect(dialect: str) -> None:
    entries = read_logs([LOGS / f"{dialect}.constructed.jsonl"], dialect).entries
    reference = read_logs([LOGS / "openai-chat.constructed.jsonl"], "openai-chat").entries
    assert len(entries) == len(reference) == 4
    for entry, ref in zip(entries, reference, strict=True):
        assert entry.request.system == ref.request.system == "You are the order desk of an online shop."
        assert [t.model_dump() for t in entry.request.tools] == [t.model_dump() for t in ref.request.tools]
        assert [m.role for m in entry.request.messages] == [m.role for m in ref.request.messages]
        last = entry.request.messages[-1]
        assert isinstance(last, UserMessage) and last.content == ref.request.messages[-1].content
        got = [
            (c.name, c.arguments)
            for m in entry.request.messages
            if isinstance(m, AssistantMessage)
            for c in m.calls
        ]
        want = [
            (c.name, c.arguments)
            for m in ref.request.messages
            if isinstance(m, AssistantMessage)
            for c in m.calls
        ]
        assert got == want
        results = [m.content for m in entry.request.messages if isinstance(m, ToolResultMessage)]
        assert [json.loads(r) if isinstance(r, str) else r for r in results] == [{"status": "shipped"}] * len(
            results
        )
        assert entry.turn.outcome.model_dump(exclude={"calls": {"__all__": {"id", "raw_arguments"}}}) == (
            ref.turn.outcome.model_dump(exclude={"calls": {"__all__": {"id", "raw_arguments"}}})
        )


def test_gemini_typed_parameters_become_json_schema_and_forced_choice_is_read() -> None:
    body = {
        "contents": [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}],
        "tools": [
            {
                "function_declarations": [
                    {
                        "name": "get_weather",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {"city": {"type": "STRING", "nullable": True}},
                            "required": ["city"],
                        },
                    }
                ]
            }
        ],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}},
    }
    read = READERS["gemini"](body)
    assert read.tools[0].parameters == {
        "type": "object",
        "properties": {"city": {"type": ["string", "null"]}},
        "required": ["city"],
    }
    assert read.tool_choice == "tool:get_weather"


def test_openai_chat_developer_message_is_the_system_and_images_are_noted() -> None:
    body = {
        "messages": [
            {"role": "developer", "content": "Be brief."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image_url", "image_url": {"url": "data:,"}},
                ],
            },
        ],
        "tool_choice": {"type": "function", "function": {"name": "x"}},
    }
    read = read_request("openai-chat", json.dumps(body))
    assert read.system == "Be brief."
    assert read.messages == [UserMessage(content="What is this?")]
    assert read.tool_choice == "tool:x"
    assert read.notes == ["messages[1]: content parts left out (image_url)"]


@pytest.mark.parametrize(
    ("dialect", "body", "message"),
    [
        ("openai-chat", {"messages": {"role": "user"}}, "messages must be a list"),
        ("anthropic-messages", {"messages": [{"role": "system", "content": "x"}]}, "unknown role 'system'"),
        ("openai-responses", [], "the request must be a JSON object"),
        (
            "gemini",
            {"contents": [{"role": "model", "parts": [{"functionCall": {"args": {}}}]}]},
            "has no name",
        ),
    ],
)
def test_unreadable_requests_say_why(dialect: str, body: object, message: str) -> None:
    with pytest.raises(RequestFormatError, match=message):
        read_request(dialect, body)
