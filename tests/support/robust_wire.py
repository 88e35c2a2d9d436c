"""Real recorded provider payloads and hypothesis strategies that damage them.

Payloads come from ``tests/fixtures/wire/interactions.jsonl`` (real traffic); a dialect without
public recordings starts from what the mock provider sends (:func:`mock_payloads`). Streams are split into
``(event, data)`` pairs the way an SSE client does, so a parser sees what the transport hands it.

Damage applied by the strategies:

* JSON bodies: a value at a random path replaced by one of another type, deleted, turned into a
  huge string, a string with lone surrogates (what undecodable bytes become under
  ``surrogateescape``), control characters or line separators, or deeply nested junk;
* streams: truncated, events dropped, reordered or duplicated, one event's JSON damaged as above,
  cut mid-text, replaced by garbage or by deeply nested text, or renamed;
* and wholly arbitrary JSON, with keys and strings drawn from the real payloads' vocabulary so the
  parsers are driven deep into their branches.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from fcbench.adapters.sse import sse_events as split_sse

WIRE = Path(__file__).resolve().parents[1] / "fixtures" / "wire"
"""Recorded real traffic."""

API_DIALECTS: dict[str, str] = {
    "openai_chat": "openai-chat",
    "openai_responses": "openai-responses",
    "anthropic_messages": "anthropic-messages",
    "gemini_generateContent": "gemini",
}
"""API name used in ``interactions.jsonl`` -> fcbench dialect."""

SSEEvent = tuple[str | None, str]

HUGE = 200_000
"""Length of the huge strings planted in payloads."""
DEEP_OBJECT = 900
"""Nesting depth of decoded junk: as deep as the JSON decoder lets a body through."""
DEEP_TEXT = 5_000
"""Nesting depth of junk JSON text (beyond the decoder's recursion limit)."""


def sse_events(text: str) -> list[SSEEvent]:
    """``(event name or None, data)`` pairs of an SSE body (:func:`fcbench.adapters.sse.sse_events`)."""
    return split_sse(text)


@dataclass(frozen=True)
class Payload:
    """One recorded response of one dialect."""

    key: str
    dialect: str
    status: int
    body: Any
    """Decoded JSON for a plain response; None for a stream."""
    events: tuple[SSEEvent, ...]
    """The stream's events; empty for a plain response."""


@cache
def payloads() -> tuple[Payload, ...]:
    """Every recorded response in ``interactions.jsonl``."""
    found = []
    with (WIRE / "interactions.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            row = json.loads(line)
            dialect = API_DIALECTS.get(row["api"])
            if dialect is None:
                continue
            text = row["response"]["body"]
            stream = bool(row["stream"])
            found.append(
                Payload(
                    key=f"{row['file']}#{row['i']}",
                    dialect=dialect,
                    status=int(row["response"]["status"]),
                    body=None if stream else json.loads(text),
                    events=tuple(sse_events(text)) if stream else (),
                )
            )
    return tuple(found) + mock_payloads()


def bodies(dialect: str, ok_only: bool = True) -> list[Any]:
    """Recorded plain response bodies of ``dialect`` (only 2xx ones when ``ok_only``)."""
    return [
        p.body
        for p in payloads()
        if p.dialect == dialect and not p.events and (p.status < 300 or not ok_only)
    ]


def streams(dialect: str) -> list[tuple[SSEEvent, ...]]:
    """Recorded streams of ``dialect``."""
    return [p.events for p in payloads() if p.dialect == dialect and p.events]


def _walk(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, (*path, index))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@cache
def vocabulary(dialect: str) -> tuple[str, ...]:
    """Short keys and strings seen in the dialect's real payloads (field names, event types, ...)."""
    words: set[str] = set()
    for p in payloads():
        if p.dialect != dialect:
            continue
        values = [p.body] if not p.events else []
        for _, data in p.events:
            try:
                values.append(json.loads(data))
            except ValueError:
                continue
        for value in values:
            words.update(s for s in _strings(value) if 0 < len(s) <= 40)
    return tuple(sorted(words))


def replace_at(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of ``value`` with the node at ``path`` replaced by ``new``."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: (replace_at(v, rest, new) if k == head else v) for k, v in value.items()}
    return [replace_at(v, rest, new) if i == head else v for i, v in enumerate(value)]


def delete_at(value: Any, path: tuple[Any, ...]) -> Any:
    """A copy of ``value`` without the node at ``path`` (the root cannot be deleted)."""
    if len(path) == 1:
        if isinstance(value, dict):
            return {k: v for k, v in value.items() if k != path[0]}
        return [v for i, v in enumerate(value) if i != path[0]]
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: (delete_at(v, rest) if k == head else v) for k, v in value.items()}
    return [delete_at(v, rest) if i == head else v for i, v in enumerate(value)]


def deep_list(depth: int = DEEP_OBJECT) -> Any:
    """``[[[...]]]`` nested ``depth`` times (built without recursion)."""
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


NASTY_STRINGS: tuple[str, ...] = (
    "",
    "\ud800",
    "lone \udcff surrogate from an undecodable byte",
    "\udfff\ud800 reversed pair",
    "nul \x00 and bell \x07",
    "line\u2028separator\u2029",
    "\ufeffbom",
    '{"name": "lookup_order", "arguments": {}}',
    '```json\n{"name": "x"}\n```',
    "</script><script>window.__pwned=1</script>",
    "[REDACTED]",
    "\U0001f600" * 10,
)
"""Strings that tend to break decoders, encoders and renderers."""


def junk_values(dialect: str) -> st.SearchStrategy[Any]:
    """Single values of every JSON type, plus the nasty ones (huge, surrogates, deep nesting)."""
    words = vocabulary(dialect)
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=False),
        st.sampled_from(NASTY_STRINGS),
        st.sampled_from(words) if words else st.text(max_size=10),
        st.text(max_size=20),
    )
    nested = st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(st.sampled_from(words) if words else st.text(max_size=8), inner, max_size=3)
        ),
        max_leaves=8,
    )
    return st.one_of(
        nested,
        st.just("A" * HUGE),
        st.just(deep_list()),
        st.builds(lambda n: {"k": deep_list(n)}, st.integers(min_value=50, max_value=300)),
    )


def arbitrary_json(dialect: str) -> st.SearchStrategy[Any]:
    """Arbitrary JSON objects whose keys and strings come mostly from the dialect's vocabulary."""
    words = vocabulary(dialect)
    keys = st.one_of(st.sampled_from(words), st.text(max_size=8)) if words else st.text(max_size=8)
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**40), max_value=2**40),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from(words) if words else st.text(),
        st.sampled_from(NASTY_STRINGS),
        st.text(max_size=30),
    )
    values = st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=6),
        max_leaves=40,
    )
    return st.dictionaries(keys, values, max_size=8)


@st.composite
def damaged_json(draw: st.DrawFn, value: Any, dialect: str) -> Any:
    """``value`` with one to three random paths replaced, deleted or made nasty."""
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        paths = list(_walk(value))
        path = draw(st.sampled_from(paths))
        action = draw(st.sampled_from(("replace", "delete", "replace", "swap_type")))
        if action == "delete" and path:
            value = delete_at(value, path)
        elif action == "swap_type":
            node = _get(value, path)
            value = replace_at(value, path, _other_type(node))
        else:
            value = replace_at(value, path, draw(junk_values(dialect)))
    return value


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _other_type(node: Any) -> Any:
    """A value of a different JSON type than ``node`` that keeps some of its content."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, bool):
        return str(node).lower()
    if isinstance(node, int | float):
        return str(node)
    if isinstance(node, list):
        return {str(i): v for i, v in enumerate(node)}
    if isinstance(node, dict):
        return list(node.values())
    return {}


@st.composite
def damaged_stream(draw: st.DrawFn, events: tuple[SSEEvent, ...], dialect: str) -> list[SSEEvent]:
    """``events`` after one to three stream-level injuries."""
    out = list(events)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        if not out:
            break
        action = draw(
            st.sampled_from(
                ("truncate", "drop", "reorder", "duplicate", "json", "cut", "garbage", "deep", "rename")
            )
        )
        index = draw(st.integers(min_value=0, max_value=len(out) - 1))
        name, data = out[index]
        if action == "truncate":
            out = out[:index]
        elif action == "drop":
            keep = draw(st.lists(st.booleans(), min_size=len(out), max_size=len(out)))
            out = [e for e, k in zip(out, keep, strict=True) if k]
        elif action == "reorder":
            out = draw(st.permutations(out))
        elif action == "duplicate":
            out.insert(index, out[index])
        elif action == "json":
            try:
                decoded = json.loads(data)
            except (ValueError, RecursionError):
                continue
            out[index] = (name, json.dumps(draw(damaged_json(decoded, dialect))))
        elif action == "cut":
            out[index] = (name, data[: draw(st.integers(min_value=0, max_value=max(len(data) - 1, 0)))])
        elif action == "garbage":
            out[index] = (name, draw(st.one_of(st.text(max_size=40), st.sampled_from(NASTY_STRINGS))))
        elif action == "deep":
            out[index] = (name, "[" * DEEP_TEXT + "]" * DEEP_TEXT)
        else:
            out[index] = (
                draw(st.one_of(st.none(), st.text(max_size=20), st.sampled_from(vocabulary(dialect)))),
                data,
            )
    return out


MOCK_REPLIES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("call", {"kind": "calls", "calls": [{"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}}]}),
    (
        "parallel",
        {
            "kind": "calls",
            "calls": [
                {"name": "lookup_order", "arguments": {"order_id": "ORD-104821"}},
                {"name": "get_weather", "arguments": {"city": "Zürich", "unit": "celsius"}},
            ],
        },
    ),
    ("text", {"kind": "text", "text": "ORD-104821 shipped on Monday."}),
)
"""Replies asked of the mock's scripted model for the dialects no public recording covers."""


@cache
def mock_payloads() -> tuple[Payload, ...]:
    """Responses the mock provider sends, over real HTTP, in the dialects that have no recorded real
    traffic here (Bedrock Converse, Gemini Interactions): each reply of :data:`MOCK_REPLIES`, plain
    and streamed, as the transport captured it (streams as the ``(event, data)`` pairs it decoded).
    They are a starting point to damage, not evidence of the real wire format."""
    import asyncio

    from fcbench import adapters
    from fcbench.adapters.base import RequestOptions, ToolChoice
    from fcbench.contract import Tool, UserMessage
    from fcbench.endpoints import Endpoint
    from fcbench.mock.server import MockServer
    from fcbench.transport import RetryPolicy, Transport

    uncovered = sorted(set(adapters.dialects()) - set(API_DIALECTS.values()))
    tool = Tool(name="lookup_order", description="Look up an order.", parameters={"type": "object"})
    found = []

    async def exchange(
        endpoint: Endpoint, dialect: str, reply: dict[str, Any], stream: bool
    ) -> dict[str, Any]:
        adapter = adapters.get(dialect)
        options = RequestOptions(model="sim-scripted", stream=stream)
        built = adapter.build_request(None, [UserMessage(content="hi")], [tool], ToolChoice(), options)
        transport = Transport(timeout_s=20, retry=RetryPolicy(max_retries=0))
        try:
            done = await transport.exchange(
                endpoint,
                adapter,
                built,
                api_key="fuzz-key",
                offered_tools=["lookup_order", "get_weather"],
                headers={"X-Fcbench-Sim-Reply": json.dumps(reply)},
            )
        finally:
            await transport.aclose()
        return done.raw["response"]

    with MockServer() as server:
        urls = server.base_urls()
        for dialect in uncovered:
            endpoint = Endpoint(
                name=f"fuzz-{dialect}", dialect=dialect, base_url=urls[dialect], key_required=False
            )
            for name, reply in MOCK_REPLIES:
                for stream in (False, True):
                    response = asyncio.run(exchange(endpoint, dialect, reply, stream))
                    events = tuple((e[0], e[1]) for e in response.get("events", ())) if stream else ()
                    found.append(
                        Payload(
                            key=f"mock:{dialect}:{name}:{'stream' if stream else 'json'}",
                            dialect=dialect,
                            status=int(response.get("status", 200)),
                            body=None if stream else response["body"],
                            events=events,
                        )
                    )
    return tuple(found)
