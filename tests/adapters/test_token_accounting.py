"""Token accounting the same in every dialect, checked on recorded replies.

Each dialect reports usage its own way: openai-chat's ``prompt_tokens`` and openai-responses'
``input_tokens`` count their ``cached_tokens``; Gemini's ``promptTokenCount`` (and the Interactions
API's ``total_input_tokens``) count the cached content; anthropic-messages' ``input_tokens`` and
bedrock-converse's ``inputTokens`` leave cache reads and writes out. The oracle here reads every
recorded usage object by those documented meanings, independently of the adapters, and each
adapter must give the same canonical usage: every input token in ``input_tokens``, the cache parts
also apart. The replies are the real recordings under ``tests/fixtures`` (the wire captures of
four dialects and llama.cpp's cassettes), each also with its cache counts raised in every usage
object it carries (the recorded API replies all report 0); bedrock-converse and
gemini-interactions have no recorded traffic there, so their replies are spelled here in the
shape of the providers' API references. Costs are checked per part with a price that differs for
every part.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from cassettes import load_cassette
from wire_fixtures import interactions, sse_events

from fcbench import adapters
from fcbench.contract import Usage
from fcbench.pricing import ModelPrice, PriceTable

WIRE_DIALECTS = {
    "openai_chat": "openai-chat",
    "openai_responses": "openai-responses",
    "anthropic_messages": "anthropic-messages",
    "gemini_generateContent": "gemini",
}
"""The API names of ``interactions.jsonl`` -> fcbench's dialects."""

CASSETTE_DIALECTS = {"/v1/chat/completions": "openai-chat", "/v1/messages": "anthropic-messages"}
"""Request paths of llama.cpp's cassettes -> dialects."""

USAGE_KEYS = ("usage", "usageMetadata")
"""Where a body or stream event carries its usage object (at any depth)."""

Counts = tuple[int | None, int | None, int | None, int | None]
"""(all input, output, cache read, cache write) as the provider's documentation defines them."""


def _n(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _sum(*values: Any) -> int | None:
    present = [v for v in map(_n, values) if v is not None]
    return sum(present) if present else None


def _apart(total: Any, read: Any, write: Any) -> int | None:
    """A total that leaves both cache parts out, with them added."""
    return None if _n(total) is None else _sum(total, read, write)


def _chat(u: dict[str, Any]) -> Counts:
    details = u.get("prompt_tokens_details") or {}
    return _n(u.get("prompt_tokens")), _n(u.get("completion_tokens")), _n(details.get("cached_tokens")), None


def _responses(u: dict[str, Any]) -> Counts:
    details = u.get("input_tokens_details") or {}
    return _n(u.get("input_tokens")), _n(u.get("output_tokens")), _n(details.get("cached_tokens")), None


def _messages(u: dict[str, Any]) -> Counts:
    read, write = u.get("cache_read_input_tokens"), u.get("cache_creation_input_tokens")
    return _apart(u.get("input_tokens"), read, write), _n(u.get("output_tokens")), _n(read), _n(write)


def _gemini(u: dict[str, Any]) -> Counts:
    out = _sum(u.get("candidatesTokenCount"), u.get("thoughtsTokenCount"))
    return _n(u.get("promptTokenCount")), out, _n(u.get("cachedContentTokenCount")), None


def _interactions(u: dict[str, Any]) -> Counts:
    out = _sum(u.get("total_output_tokens"), u.get("total_thought_tokens"))
    return _n(u.get("total_input_tokens")), out, _n(u.get("total_cached_tokens")), None


def _converse(u: dict[str, Any]) -> Counts:
    read, write = u.get("cacheReadInputTokens"), u.get("cacheWriteInputTokens")
    return _apart(u.get("inputTokens"), read, write), _n(u.get("outputTokens")), _n(read), _n(write)


def _raise_chat(u: dict[str, Any]) -> None:
    if _n(u.get("prompt_tokens")):
        u["prompt_tokens_details"] = {
            **(u.get("prompt_tokens_details") or {}),
            "cached_tokens": u["prompt_tokens"] // 2,
        }


def _raise_responses(u: dict[str, Any]) -> None:
    if _n(u.get("input_tokens")):
        u["input_tokens_details"] = {
            **(u.get("input_tokens_details") or {}),
            "cached_tokens": u["input_tokens"] // 2,
        }


def _raise_messages(u: dict[str, Any]) -> None:
    if "input_tokens" in u:
        u.update(cache_read_input_tokens=1_200, cache_creation_input_tokens=300)


def _raise_gemini(u: dict[str, Any]) -> None:
    if _n(u.get("promptTokenCount")):
        u["cachedContentTokenCount"] = u["promptTokenCount"] // 2


def _raise_interactions(u: dict[str, Any]) -> None:
    if _n(u.get("total_input_tokens")):
        u["total_cached_tokens"] = u["total_input_tokens"] // 2


def _raise_converse(u: dict[str, Any]) -> None:
    if "inputTokens" in u:
        u.update(cacheReadInputTokens=1_200, cacheWriteInputTokens=300)


ORACLES: dict[str, tuple[Callable[[dict[str, Any]], Counts], Callable[[dict[str, Any]], None]]] = {
    "openai-chat": (_chat, _raise_chat),
    "openai-responses": (_responses, _raise_responses),
    "anthropic-messages": (_messages, _raise_messages),
    "gemini": (_gemini, _raise_gemini),
    "gemini-interactions": (_interactions, _raise_interactions),
    "bedrock-converse": (_converse, _raise_converse),
}
"""Dialect -> (its documented reading of a usage object, a change that raises its cache counts)."""


@dataclass(frozen=True)
class Reply:
    """One recorded reply: a decoded body, or the ``(event, data)`` pairs of a stream."""

    dialect: str
    body: Any = None
    events: tuple[tuple[str | None, str], ...] = ()

    @property
    def stream(self) -> bool:
        return bool(self.events)

    def documents(self) -> list[Any]:
        """The JSON documents the reply is made of (the body, or each event's data)."""
        if not self.stream:
            return [self.body]
        found = []
        for _, data in self.events:
            try:
                found.append(json.loads(data))
            except ValueError:  # ``[DONE]``
                found.append(None)
        return found


def _usages(value: Any) -> list[dict[str, Any]]:
    """Every usage object inside ``value``, in document order."""
    if isinstance(value, list):
        return [u for item in value for u in _usages(item)]
    if not isinstance(value, dict):
        return []
    found = [value[k] for k in USAGE_KEYS if isinstance(value.get(k), dict)]
    return found + [u for k, v in value.items() if k not in USAGE_KEYS for u in _usages(v)]


def _merged(values: list[dict[str, Any]]) -> dict[str, Any]:
    """Usage objects in stream order merged: a later count replaces an earlier one."""
    merged: dict[str, Any] = {}
    for value in values:
        for key, item in value.items():
            if isinstance(item, dict):
                merged[key] = {**(merged.get(key) or {}), **item}
            elif item is not None:
                merged[key] = item
    return merged


def expected_counts(reply: Reply) -> Counts:
    read = ORACLES[reply.dialect][0]
    usages = [u for doc in reply.documents() for u in _usages(doc)]
    return read(_merged(usages)) if usages else (None, None, None, None)


def with_cache(reply: Reply) -> Reply:
    """The reply with its cache counts raised in every usage object it carries."""
    change = ORACLES[reply.dialect][1]
    docs = copy.deepcopy(reply.documents())
    for doc in docs:
        for usage in _usages(doc):
            change(usage)
    if not reply.stream:
        return Reply(reply.dialect, body=docs[0])
    events = tuple(
        (name, data if doc is None else json.dumps(doc))
        for (name, data), doc in zip(reply.events, docs, strict=True)
    )
    return Reply(reply.dialect, events=events)


def _wire_replies() -> dict[str, Reply]:
    found = {}
    for item in interactions():
        if item.status != 200:
            continue
        dialect = WIRE_DIALECTS[item.api]
        reply = (
            Reply(dialect, events=tuple(item.events())) if item.stream else Reply(dialect, item.response_json)
        )
        found[f"{item.key}"] = reply
    return found


def _cassette_replies(name: str) -> dict[str, Reply]:
    found = {}
    for index, exchange in enumerate(load_cassette(name)["interactions"]):
        response, dialect = exchange["response"], CASSETTE_DIALECTS[exchange["request"]["path"]]
        if response["status"] != 200:
            continue
        if "event-stream" in response["content_type"]:
            found[f"{name}#{index}"] = Reply(dialect, events=tuple(sse_events(response["body"])))
        else:
            found[f"{name}#{index}"] = Reply(dialect, body=json.loads(response["body"]))
    return found


def _event(name: str, data: dict[str, Any], key: str = "type") -> tuple[str, str]:
    return name, json.dumps({key: name, **data} if key else data)


CONVERSE_USAGE = {"inputTokens": 24, "outputTokens": 31, "totalTokens": 1_843, "cacheReadInputTokens": 1_788}
INTERACTIONS_USAGE = {
    "total_input_tokens": 1_812,
    "total_cached_tokens": 1_788,
    "total_output_tokens": 18,
    "total_thought_tokens": 40,
    "total_tokens": 1_870,
}
SPELLED = {
    "bedrock-converse#json": Reply(
        "bedrock-converse",
        body={
            "output": {
                "message": {
                    "role": "assistant",
                    "content": [
                        {
                            "toolUse": {
                                "toolUseId": "tooluse_1",
                                "name": "lookup_order",
                                "input": {"order_id": "ORD-104821"},
                            }
                        }
                    ],
                }
            },
            "stopReason": "tool_use",
            "usage": {**CONVERSE_USAGE, "cacheWriteInputTokens": 0},
            "metrics": {"latencyMs": 412},
        },
    ),  # fmt: skip
    "bedrock-converse#stream": Reply(
        "bedrock-converse",
        events=(
            _event("messageStart", {"role": "assistant"}, key=""),
            _event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hello."}}, key=""),
            _event("contentBlockStop", {"contentBlockIndex": 0}, key=""),
            _event("messageStop", {"stopReason": "end_turn"}, key=""),
            _event(
                "metadata", {"usage": {**CONVERSE_USAGE, "cacheWriteInputTokens": 512}, "metrics": {}}, key=""
            ),
        ),
    ),
    "gemini-interactions#json": Reply(
        "gemini-interactions",
        body={
            "id": "v1_i",
            "status": "completed",
            "steps": [{"type": "model_output", "content": [{"type": "text", "text": "Hello."}]}],
            "usage": INTERACTIONS_USAGE,
        },
    ),
    "gemini-interactions#stream": Reply(
        "gemini-interactions",
        events=(
            _event(
                "interaction.created", {"interaction": {"id": "v1_s", "status": "in_progress"}}, "event_type"
            ),
            _event(
                "step.start",
                {
                    "index": 0,
                    "step": {"type": "function_call", "id": "c1", "name": "lookup_order", "arguments": {}},
                },
                "event_type",
            ),
            _event(
                "step.delta",
                {"index": 0, "delta": {"type": "arguments_delta", "arguments": '{"order_id": "ORD-104821"}'}},
                "event_type",
            ),
            _event("step.stop", {"index": 0}, "event_type"),
            _event(
                "interaction.completed",
                {"interaction": {"id": "v1_s", "status": "requires_action", "usage": INTERACTIONS_USAGE}},
                "event_type",
            ),
        ),
    ),
}
"""bedrock-converse and gemini-interactions replies in their API references' shape."""

RECORDED: dict[str, Reply] = {
    **_wire_replies(),
    **_cassette_replies("llamacpp-qwen2.5-coder-0.5b"),
    **_cassette_replies("llamacpp-tokens-qwen2.5-coder-0.5b"),
}
REPLIES = {
    **RECORDED,
    **SPELLED,
    **{f"{key}+cache": with_cache(r) for key, r in {**RECORDED, **SPELLED}.items()},
}

PRICES = PriceTable({"m": ModelPrice(input=1.0, output=7.0, cache_read=0.25, cache_write=3.0)})
"""A price that differs for every part, so a part priced as another shows."""


def parsed_usage(reply: Reply) -> Usage:
    adapter = adapters.get(reply.dialect)
    turn = adapter.parse_stream(list(reply.events)) if reply.stream else adapter.parse_response(reply.body)
    assert turn.outcome.kind != "provider_error", turn.outcome
    return turn.usage


def test_the_recordings_cover_every_dialect_streamed_and_not() -> None:
    covered = {(r.dialect, r.stream) for r in REPLIES.values()}
    assert covered == {(d, s) for d in adapters.dialects() for s in (False, True)}
    read_from_a_cache = {r.dialect for r in RECORDED.values() if (expected_counts(r)[2] or 0) > 0}
    assert {"openai-chat", "anthropic-messages"} <= read_from_a_cache  # llama.cpp's prompt cache, really


@pytest.mark.parametrize("key", sorted(REPLIES))
def test_every_input_token_is_counted_and_the_cache_parts_kept_apart(key: str) -> None:
    reply = REPLIES[key]
    total, output, read, write = expected_counts(reply)
    usage = parsed_usage(reply)
    assert (usage.input_tokens, usage.output_tokens) == (total, output)
    assert (usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (read, write)
    assert usage.input_tokens is not None and usage.uncached_input_tokens is not None
    assert 0 <= usage.uncached_input_tokens <= usage.input_tokens


@pytest.mark.parametrize("key", sorted(REPLIES))
def test_each_part_costs_its_own_price(key: str) -> None:
    total, output, read, write = expected_counts(REPLIES[key])
    assert total is not None and output is not None
    fresh = total - (read or 0) - (write or 0)
    expected = (fresh * 1.0 + (read or 0) * 0.25 + (write or 0) * 3.0 + output * 7.0) / 1_000_000
    assert PRICES.cost("m", parsed_usage(REPLIES[key]), local=False) == pytest.approx(expected, abs=1e-15)


def test_raising_the_cache_counts_changes_input_only_where_the_dialect_counts_them_apart() -> None:
    grew: dict[str, set[bool]] = {}
    for key, reply in RECORDED.items():
        before, after = parsed_usage(reply), parsed_usage(REPLIES[f"{key}+cache"])
        assert before.input_tokens is not None and after.input_tokens is not None
        grew.setdefault(reply.dialect, set()).add(after.input_tokens != before.input_tokens)
    assert grew == {
        "openai-chat": {False},
        "openai-responses": {False},
        "gemini": {False},
        "anthropic-messages": {True},
    }
