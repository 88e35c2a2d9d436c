"""A small suite and a generated OpenAI Chat log with known intent shares, for the coverage tests."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TOOLS: list[dict[str, Any]] = [
    {
        "name": "lookup_order",
        "description": "Find one order by its exact public order ID.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
            "additionalProperties": False,
        },
    },
    {
        "name": "search_orders",
        "description": "Search orders by the customer's e-mail address.",
        "parameters": {
            "type": "object",
            "properties": {
                "email": {"type": "string"},
                "status": {"type": "string", "enum": ["shipped", "delivered"]},
                "limit": {"type": "integer"},
            },
            "required": ["email"],
            "additionalProperties": False,
        },
    },
]

CASES: list[dict[str, Any]] = [
    {
        "id": "lookup-en",
        "prompt": "Where is my order ORD-104821?",
        "expected": {"kind": "tool", "name": "lookup_order", "arguments": {"order_id": "ORD-104821"}},
    },
    {
        "id": "lookup-zh",
        "prompt": "我的订单 ORD-104821 在哪里？",
        "expected": {"kind": "tool", "name": "lookup_order", "arguments": {"order_id": "ORD-104821"}},
    },
    {
        "id": "search-en",
        "prompt": "Find the orders of kim@example.test",
        "expected": {
            "kind": "tool",
            "name": "search_orders",
            "arguments": {"requiredEquals": {"email": "kim@example.test"}, "optional": ["status"]},
        },
    },
    {"id": "thanks-en", "prompt": "Thanks, that is all for now.", "expected": {"kind": "text"}},
]
"""Cover lookup_order(order_id) en and zh, search_orders(email) and (email,status) en, no call en."""


@dataclass(frozen=True)
class Share:
    """One generated intent: what is called with which keys, in which language, how often."""

    tool: str | None
    arguments: dict[str, Any]
    language: str
    prompt: str
    count: int
    covered: bool


_ID = {"order_id": "ORD-1"}
_EMAIL = {"email": "a@b.example"}

SHARES: list[Share] = [
    Share("lookup_order", _ID, "en", "Where is my order ORD-{n}?", 1200, True),
    Share("lookup_order", _ID, "zh", "我的订单 ORD-{n} 在哪里？", 450, True),
    Share("search_orders", _EMAIL, "en", "Find the orders of user{n}@example.test", 600, True),
    Share("search_orders", {**_EMAIL, "status": "shipped"}, "en", "Which were shipped? {n}", 300, True),
    Share("search_orders", {**_EMAIL, "limit": 3}, "en", "Show me the last three orders {n}", 150, False),
    Share(None, {}, "en", "Thanks, that is all for now ({n}).", 120, True),
    Share("lookup_order", _ID, "de", "Wo ist meine Bestellung ORD-{n}?", 90, False),
    Share("search_orders", _EMAIL, "es", "Busco mis pedidos, mi correo es u{n}@x.example", 60, False),
]
"""The intents of the generated log and their counts (2970 model answers)."""

BAD_LINES = 30
"""Unreadable lines in the generated log."""
PROVIDER_ERRORS = 20
"""Logged provider errors (not traffic)."""


def write_suite(folder: Path) -> Path:
    """The suite of :data:`TOOLS` and :data:`CASES` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "suite.json").write_text(json.dumps({"name": "coverage-demo", "dataset_version": "1"}))
    (folder / "system.txt").write_text("You are the order desk of an online shop.\n")
    (folder / "tools.core.json").write_text(json.dumps({"tools": TOOLS}))
    (folder / "cases.jsonl").write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in CASES))
    return folder


def _line(share: Share, n: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if share.tool is None:
        message["content"] = "You are welcome."
    else:
        call = {"name": share.tool, "arguments": json.dumps(share.arguments)}
        message["tool_calls"] = [{"id": f"call_{n}", "type": "function", "function": call}]
    return {
        "request": {
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "You are the order desk of an online shop."},
                {"role": "user", "content": share.prompt.format(n=n)},
            ],
            "tools": [{"type": "function", "function": tool} for tool in TOOLS],
        },
        "response": {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "model": "gpt-4o",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "stop" if share.tool is None else "tool_calls",
                }
            ],
            "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
        },
    }


@dataclass(frozen=True)
class GeneratedLog:
    """The log file and what is known about each of its lines."""

    path: Path
    kinds: list[str]
    """Per line (index 0 = line 1): ``share:<i>``, ``bad`` or ``error``."""

    def lines_of(self, kind: str) -> list[int]:
        """The 1-based line numbers of ``kind``."""
        return [i + 1 for i, k in enumerate(self.kinds) if k == kind]


def write_log(path: Path, seed: int = 7) -> GeneratedLog:
    """A shuffled log of :data:`SHARES`, :data:`BAD_LINES` and :data:`PROVIDER_ERRORS` lines."""
    rows: list[tuple[str, str]] = []
    for index, share in enumerate(SHARES):
        rows += [
            (f"share:{index}", json.dumps(_line(share, n), ensure_ascii=False)) for n in range(share.count)
        ]
    rows += [("bad", '{"request": {"model": "gpt-4o", "messages": [') for _ in range(BAD_LINES)]
    error = {"message": "upstream failed", "type": "server_error"}
    failed = json.dumps(
        {"request": _line(SHARES[0], 0)["request"], "response": {"error": error}, "status": 500}
    )
    rows += [("error", failed) for _ in range(PROVIDER_ERRORS)]
    random.Random(seed).shuffle(rows)
    path.write_text("".join(text + "\n" for _, text in rows), encoding="utf-8")
    return GeneratedLog(path, [kind for kind, _ in rows])


__all__ = [
    "BAD_LINES",
    "CASES",
    "PROVIDER_ERRORS",
    "SHARES",
    "TOOLS",
    "GeneratedLog",
    "Share",
    "write_log",
    "write_suite",
]
