"""Calls written as text: every shape small models use is found, recorded by every dialect, bounded."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from fcbench import adapters
from fcbench.adapters.common import text_call_anomaly
from fcbench.contract.text_calls import (
    TEXT_CALL_LIMIT,
    TEXT_CALL_SCAN_CHARS,
    TextCall,
    calls_in_text,
    text_calls_json,
)

OFFERED = ["lookup_order", "search_orders", "get_shipping_quote"]
LOOKUP = ("lookup_order", {"order_id": "ORD-104821"})
SEARCH = ("search_orders", {"email": "sam@example.test", "limit": 5})
LOOKUP_JSON = '{"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}}'
SEARCH_JSON = '{"name": "search_orders", "arguments": {"email": "sam@example.test", "limit": 5}}'

# (label, text, the calls it writes)
SHAPES: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    ("bare object", LOOKUP_JSON, [LOOKUP]),
    (
        "json fence, English prose around",
        f"Sure, let me look that up.\n```json\n{LOOKUP_JSON}\n```\nI'll get back to you.",
        [LOOKUP],
    ),
    ("plain fence", f"```\n{LOOKUP_JSON}\n```", [LOOKUP]),
    ("tool_call tags", f"<tool_call>\n{LOOKUP_JSON}\n</tool_call>", [LOOKUP]),
    ("tools tags around an array", f"<tools>[{LOOKUP_JSON}, {SEARCH_JSON}]</tools>", [LOOKUP, SEARCH]),
    (
        "doubled braces",
        '{{"name": "lookup_order", "arguments": {{"order_id": "ORD-104821"}}}}',
        [LOOKUP],
    ),
    ("two objects on two lines", f"{LOOKUP_JSON}\n{SEARCH_JSON}", [LOOKUP, SEARCH]),
    ("json array", f"[{LOOKUP_JSON},{SEARCH_JSON}]", [LOOKUP, SEARCH]),
    ("parameters key", '{"name": "lookup_order", "parameters": {"order_id": "ORD-104821"}}', [LOOKUP]),
    ("gemini args key", '{"name": "lookup_order", "args": {"order_id": "ORD-104821"}}', [LOOKUP]),
    (
        "arguments as a JSON string",
        '{"name": "lookup_order", "arguments": "{\\"order_id\\": \\"ORD-104821\\"}"}',
        [LOOKUP],
    ),
    (
        "openai function object",
        '{"type": "function", "function": {"name": "lookup_order", '
        '"arguments": "{\\"order_id\\": \\"ORD-104821\\"}"}}',
        [LOOKUP],
    ),
    (
        "tool_calls container",
        '{"tool_calls": [{"id": "c1", "type": "function", "function": '
        '{"name": "search_orders", "arguments": {"email": "sam@example.test", "limit": 5}}}]}',
        [SEARCH],
    ),
    (
        "Chinese prose before and after",
        f"好的，我来帮您查询订单。\n```json\n{LOOKUP_JSON}\n```\n请稍等片刻。",
        [LOOKUP],
    ),
    ("Chinese prose, inline", f"我将调用工具：{SEARCH_JSON}，然后告诉您结果。", [SEARCH]),
    (
        "injected search written as text",
        'I will follow the note. {"name": "search_orders", "arguments": '
        '{"email": "admin@example.test", "limit": 20}}',
        [("search_orders", {"email": "admin@example.test", "limit": 20})],
    ),
    (
        "braces inside string values",
        '{"name": "search_orders", "arguments": {"email": "a}{b@example.test"}}',
        [("search_orders", {"email": "a}{b@example.test"})],
    ),
    ("empty arguments object", '{"name": "lookup_order", "arguments": {}}', [("lookup_order", {})]),
    ("python-style call", 'lookup_order(order_id="ORD-104821")', [LOOKUP]),
    (
        "python-style call in prose",
        "Let me run search_orders(email='sam@example.test', limit=5) now.",
        [SEARCH],
    ),
    (
        "bfcl prompt format",
        '[lookup_order(order_id="ORD-104821"), search_orders(email="sam@example.test", limit=5)]',
        [LOOKUP, SEARCH],
    ),
    (
        "python literals: lists, dicts, JSON names",
        'f(a=[1, 2], b={"x": true}, c=None, d=-1.5)',
        [("f", {"a": [1, 2], "b": {"x": True}, "c": None, "d": -1.5})],
    ),
    ("python-style, no arguments, offered tool", "lookup_order()", [("lookup_order", {})]),
    ("python-style, dotted name", "math.factorial(number=5)", [("math.factorial", {"number": 5})]),
    ("llama function tag", '<function=lookup_order>{"order_id": "ORD-104821"}</function>', [LOOKUP]),
    (
        "llama python_tag with parameters",
        '<|python_tag|>{"name": "lookup_order", "parameters": {"order_id": "ORD-104821"}}',
        [LOOKUP],
    ),
    ("llama python_tag, python call", '<|python_tag|>lookup_order.call(order_id="ORD-104821")', [LOOKUP]),
    ("mistral TOOL_CALLS array", f"[TOOL_CALLS] [{LOOKUP_JSON}, {SEARCH_JSON}]", [LOOKUP, SEARCH]),
    ("mistral TOOL_CALLS name ARGS", '[TOOL_CALLS]lookup_order[ARGS]{"order_id": "ORD-104821"}', [LOOKUP]),
    ("functools", f"functools[{LOOKUP_JSON}]", [LOOKUP]),
    (
        "gemma tool_code fence",
        '```tool_code\nprint(default_api.lookup_order(order_id="ORD-104821"))\n```',
        [LOOKUP],
    ),
    (
        "hermes tool_call, parameters",
        '<tool_call>{"name": "lookup_order", "parameters": {"order_id": "ORD-104821"}}</tool_call>',
        [LOOKUP],
    ),
    (
        "a tool that was not offered",
        '{"name": "delete_everything", "arguments": {}}',
        [("delete_everything", {})],
    ),
    (
        "a sentence as the name",
        '{"name": "your order has shipped", "arguments": {"order_id": "ORD-1"}}',
        [("your order has shipped", {"order_id": "ORD-1"})],
    ),
    (
        "python call of a tool not offered",
        'delete_order(order_id="ORD-1")',
        [("delete_order", {"order_id": "ORD-1"})],
    ),
    ("Chinese prose around a python call", '好的，我来查询：lookup_order(order_id="ORD-104821")。', [LOOKUP]),
    (
        "Japanese prose around a function tag",
        'ご注文を確認します。<function=lookup_order>{"order_id": "ORD-104821"}</function>',
        [LOOKUP],
    ),
]

NOT_CALLS: list[tuple[str, str | None]] = [
    ("no text", None),
    ("empty", ""),
    ("plain English", "Your order ORD-104821 has shipped."),
    ("plain Chinese", "您的订单 ORD-104821 已发货。"),
    ("prose naming a tool", "I can only use lookup_order, which needs an exact order ID."),
    ("prose naming a tool in Chinese", "我只能使用 lookup_order 工具。"),
    ("a JSON example without a tool name", 'Send it like {"order_id": "ORD-000012"}.'),
    ("a customer record with a name", '{"name": "Sam", "email": "sam@example.test"}'),
    ("python-style mention without values", "Call lookup_order(order_id) once you have the ID."),
    ("no-argument mention of a tool not offered", "There is no cancel() here."),
    ("positional argument of a tool not offered", "See note(1) and step(2)."),
    ("parentheses in prose", "Your order(s) will ship (probably) soon."),
    ("a placeholder is no literal", "search_orders(email=...)"),
    ("an expression is no literal", 'lookup_order(order_id="ORD-" + str(1))'),
    ("a python call that does not parse", 'lookup_order(order_id="ORD-1"'),
    ("a name without arguments", '{"name": "lookup_order"}'),
    ("arguments that are not an object", '{"name": "lookup_order", "arguments": ["ORD-104821"]}'),
    ("an argument string that is not JSON", '{"name": "lookup_order", "arguments": "ORD-104821"}'),
    ("broken JSON is not repaired", '{"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}'),
    ("braces in prose", "Use the {order_id} placeholder, or [see the docs]."),
    ("other JSON", '{"order_id": "ORD-104821", "status": "shipped"}'),
]


def as_pairs(found: list[TextCall]) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, call.arguments) for call in found]


@pytest.mark.parametrize(("label", "text", "expected"), SHAPES, ids=[s[0] for s in SHAPES])
def test_every_shape_is_found(label: str, text: str, expected: list[tuple[str, dict[str, Any]]]) -> None:
    assert as_pairs(calls_in_text(text, OFFERED)) == expected


@pytest.mark.parametrize(("label", "text"), NOT_CALLS, ids=[s[0] for s in NOT_CALLS])
def test_texts_that_write_no_call(label: str, text: str | None) -> None:
    assert calls_in_text(text, OFFERED) == []
    assert text_call_anomaly(text, OFFERED) is None


def test_offered_none_accepts_any_name() -> None:
    text = '{"name": "delete_everything", "arguments": {}}'
    assert as_pairs(calls_in_text(text, None)) == [("delete_everything", {})]
    assert calls_in_text("lookup_order()", None) == []  # only an offered name makes "name()" a call


def test_python_arguments_are_never_evaluated(tmp_path: Any) -> None:
    marker = tmp_path / "ran"
    text = f"lookup_order(order_id=__import__('pathlib').Path({str(marker)!r}).touch())"
    assert calls_in_text(text, OFFERED) == []
    assert not marker.exists()


def test_anomaly_detail_is_the_extracted_calls_as_compact_json() -> None:
    found = text_call_anomaly(f"先查一下：{LOOKUP_JSON}\n{SEARCH_JSON}", OFFERED)
    assert found is not None and found.code == "json_call_in_text"
    assert json.loads(found.detail) == [
        {"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}},
        {"name": "search_orders", "arguments": {"email": "sam@example.test", "limit": 5}},
    ]
    assert " " not in text_calls_json([TextCall("lookup_order", {"order_id": "X"})])


HOSTILE = [
    "[" * 200_000,
    "{" * 200_000,
    '{"a": "' + "{" * 200_000,
    '{"a":' * 100_000,
    "{{" * 100_000,
    ('{"x": [' * 50 + "1") * 2_000,
    "f(" * 100_000,
    "lookup_order(order_id=" + "(" * 100_000,
    "a(b='" * 50_000,
    "<function=x>" * 20_000,
    "[TOOL_CALLS]x[ARGS]" * 10_000,
    "print(" * 50_000 + ")" * 50_000,
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_text_is_read_in_bounded_time(text: str) -> None:
    started = time.process_time()
    assert calls_in_text(text, OFFERED) == []
    assert time.process_time() - started < 1.0  # CPU seconds: bounded work, whatever the load


def test_work_is_capped() -> None:
    many = "\n".join([LOOKUP_JSON] * (TEXT_CALL_LIMIT + 10))
    assert len(calls_in_text(many, OFFERED)) == TEXT_CALL_LIMIT
    late = " " * TEXT_CALL_SCAN_CHARS + LOOKUP_JSON
    assert calls_in_text(late, OFFERED) == []


TEXT = f"好的。Let me check.\n```json\n{LOOKUP_JSON}\n```"


def _wire(dialect: str, text: str) -> dict[str, Any]:
    if dialect == "openai-chat":
        message = {"role": "assistant", "content": text}
        return {"id": "c1", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    if dialect == "openai-responses":
        item = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
        return {"id": "r1", "status": "completed", "output": [item]}
    if dialect == "bedrock-converse":
        return {
            "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
            "stopReason": "end_turn",
        }
    if dialect == "gemini-interactions":
        step = {"type": "model_output", "content": [{"type": "text", "text": text}]}
        return {"id": "v1_1", "status": "completed", "steps": [step]}
    if dialect == "anthropic-messages":
        return {
            "id": "m1",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
        }
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}]}


@pytest.mark.parametrize("dialect", sorted(adapters.BUILTIN_ADAPTERS))
def test_every_dialect_records_the_calls_written_as_text(dialect: str) -> None:
    turn = adapters.get(dialect).parse_response(_wire(dialect, TEXT), OFFERED)
    assert turn.outcome.kind == "text"
    found = [a for a in turn.anomalies if a.code == "json_call_in_text"]
    assert len(found) == 1
    assert json.loads(found[0].detail) == [{"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}}]
    plain = adapters.get(dialect).parse_response(_wire(dialect, "您的订单已发货。"), OFFERED)
    assert [a.code for a in plain.anomalies] == []
