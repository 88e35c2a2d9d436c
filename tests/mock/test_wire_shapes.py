"""Mock responses have the shape of recorded real ones (``tests/fixtures/wire/interactions.jsonl``).

Each recorded interaction is replayed against the mock: the same request body and path, with the
model swapped for ``sim-scripted`` and a scripted reply with the same content as the recorded
answer (same text, refusal and calls). Recorded errors (unknown model) are replayed unchanged.
The mock's answer must then have, at every level the real one has, the same keys with the same
JSON types (a real ``null`` only requires the key); for streams, the same event kinds in the same
order of first appearance, each with the shape of the real event.

Documented exemptions: real ``reasoning`` output items (the mock does not reason) and keys whose
value depends on the real model's configuration (``SKIPPED_KEYS``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from fcbench.contract import json_type

WIRE = Path(__file__).resolve().parents[1] / "fixtures" / "wire" / "interactions.jsonl"
SKIPPED_KEYS = frozenset({"generate_summary", "effort"})
"""``reasoning.generate_summary`` (retired field of a 2025 recording), ``reasoning.effort``
(echoes the real model's default effort; the mock echoes the request's)."""
PART_KEYS = ("functionCall", "functionResponse", "text", "thought")


def _interactions() -> list[dict[str, Any]]:
    return [json.loads(line) for line in WIRE.read_text(encoding="utf-8").splitlines() if line.strip()]


def _events(body: str) -> list[tuple[str | None, Any]]:
    """SSE records as ``(event name, decoded data)``."""
    out: list[tuple[str | None, Any]] = []
    for record in body.replace("\r\n", "\n").split("\n\n"):
        name = None
        data: list[str] = []
        for line in record.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if data:
            text = "\n".join(data)
            out.append((name, text if text == "[DONE]" else json.loads(text)))
    return out


# ------------------------------------------------------------------ scripted replies from recordings
def _reply_from(api: str, stream: bool, body: str) -> dict[str, Any]:
    text, refusal, calls = "", "", []
    if api == "openai_chat":
        parts = [json.loads(body)] if not stream else [d for _, d in _events(body) if isinstance(d, dict)]
        by_index: dict[int, list[str]] = {}
        for part in parts:
            for choice in part.get("choices", []):
                msg = choice.get("message") or choice.get("delta") or {}
                text += msg.get("content") or ""
                refusal += msg.get("refusal") or ""
                for position, call in enumerate(msg.get("tool_calls") or []):
                    slot = by_index.setdefault(call.get("index", position), ["", ""])
                    slot[0] += call["function"].get("name") or ""
                    slot[1] += call["function"].get("arguments") or ""
        calls = [tuple(by_index[i]) for i in sorted(by_index)]
    elif api == "openai_responses":
        response = (
            json.loads(body)
            if not stream
            else next(d["response"] for name, d in _events(body) if name == "response.completed")
        )
        for item in response["output"]:
            if item["type"] == "function_call":
                calls.append((item["name"], item["arguments"]))
            elif item["type"] == "message":
                for part in item["content"]:
                    text += part.get("text", "")
                    refusal += part.get("refusal", "")
    elif api == "anthropic_messages":
        blocks: list[dict[str, Any]] = []
        if stream:
            for name, data in _events(body):
                if name == "content_block_start":
                    blocks.append({**data["content_block"], "json": ""})
                elif name == "content_block_delta":
                    delta = data["delta"]
                    blocks[-1]["text"] = blocks[-1].get("text", "") + delta.get("text", "")
                    blocks[-1]["json"] += delta.get("partial_json", "")
        else:
            blocks = [{**b, "json": json.dumps(b.get("input", {}))} for b in json.loads(body)["content"]]
        for block in blocks:
            if block["type"] == "tool_use":
                calls.append((block["name"], block["json"] or "{}"))
            else:
                text += block.get("text", "")
    else:
        chunks = [json.loads(body)] if not stream else [d for _, d in _events(body)]
        for chunk in chunks:
            for part in chunk["candidates"][0].get("content", {}).get("parts", []):
                text += part.get("text", "")
                if "functionCall" in part:
                    calls.append((part["functionCall"]["name"], json.dumps(part["functionCall"]["args"])))
    if refusal:
        return {"kind": "refusal", "text": refusal}
    if calls:
        return {"kind": "calls", "text": text, "calls": [{"name": n, "arguments_json": a} for n, a in calls]}
    return {"kind": "text", "text": text}


# ------------------------------------------------------------------ shape comparison
def shape_type(value: Any) -> str:
    """The JSON type of ``value`` as a wire shape: an integer and a number are one shape (a real
    ``0.7`` and the mock's ``1`` are both numbers)."""
    name = json_type(value)
    return "number" if name == "integer" else name


def _kind(value: Any) -> Any:
    if isinstance(value, dict):
        if "type" in value:
            return value["type"]
        return tuple(key for key in PART_KEYS if key in value)
    return shape_type(value)


def assert_same_shape(real: Any, mock: Any, path: str = "$") -> None:
    """Every key of ``real`` exists in ``mock`` with the same JSON type, recursively."""
    if real is None:
        return
    real_type, mock_type = shape_type(real), shape_type(mock)
    assert mock_type == real_type, f"{path}: real is {real_type}, mock is {mock_type}"
    if isinstance(real, dict):
        for key, value in real.items():
            if key in SKIPPED_KEYS:
                continue
            assert key in mock, f"{path}: key {key!r} missing (mock has {sorted(mock)})"
            assert_same_shape(value, mock[key], f"{path}.{key}")
    elif isinstance(real, list):
        items = [item for item in real if not (isinstance(item, dict) and item.get("type") == "reasoning")]
        for position, item in enumerate(items):
            kind = _kind(item)
            if position < len(mock) and _kind(mock[position]) == kind:
                match = mock[position]
            else:
                match = next((m for m in mock if _kind(m) == kind), None)
            assert match is not None or not mock and not items, (
                f"{path}[{position}]: no mock element of kind {kind}"
            )
            if match is not None:
                assert_same_shape(item, match, f"{path}[{position}]")


def _event_class(api: str, name: str | None, data: Any) -> str:
    if data == "[DONE]":
        return "[DONE]"
    if api == "openai_chat":
        if not data["choices"]:
            return "usage"
        choice = data["choices"][0]
        if choice["finish_reason"]:
            return "finish"
        delta = choice["delta"]
        if "role" in delta:
            return "role"
        if "tool_calls" in delta:
            return "call_head" if "id" in delta["tool_calls"][0] else "call_args"
        return "refusal" if "refusal" in delta else "content"
    detail = ""
    for key in ("content_block", "delta", "item", "part"):
        if isinstance(data.get(key), dict) and "type" in data[key]:
            detail = ":" + data[key]["type"]
    return f"{name}{detail}"


def _stream_items(api: str, events: list[tuple[str | None, Any]]) -> list[tuple[str, Any]]:
    """(kind, value) pairs to compare. Gemini chunks are split into their envelope, their
    non-empty parts and the finishing candidate, because real Gemini streams put the finish
    either on the last call chunk or on an extra empty-text chunk."""
    if api != "gemini_generateContent":
        return [(_event_class(api, name, data), data) for name, data in events]
    items: list[tuple[str, Any]] = []
    for _, chunk in events:
        candidate = chunk["candidates"][0]
        bare = {key: value for key, value in candidate.items() if key != "content"}
        items.append(("chunk", {**chunk, "candidates": [bare]}))
        for part in candidate.get("content", {}).get("parts", []):
            if part.get("text") != "":
                items.append(("part:" + "+".join(k for k in PART_KEYS if k in part), part))
        if "finishReason" in candidate:
            items.append(("final", bare))
    return items


def assert_same_stream(
    api: str, real: list[tuple[str | None, Any]], mock: list[tuple[str | None, Any]]
) -> None:
    """Same event kinds (in the same order of first appearance), each with the real shape."""

    def first_of(events: list[tuple[str | None, Any]]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for kind, value in _stream_items(api, events):
            found.setdefault(kind, value)
        return found

    real_first, mock_first = first_of(real), first_of(mock)
    missing = [kind for kind in real_first if kind not in mock_first]
    assert not missing, f"event kinds missing from the mock stream: {missing}"
    if api != "gemini_generateContent":
        order = [kind for kind in mock_first if kind in real_first and kind != "ping"]
        assert order == [kind for kind in real_first if kind != "ping"]
    for kind, data in real_first.items():
        assert_same_shape(data, mock_first[kind], f"<{kind}>")


# ------------------------------------------------------------------ replay
def _replay_cases() -> Iterator[Any]:
    for item in _interactions():
        yield pytest.param(item, id=f"{item['file'].split('/')[-1][:60]}#{item['i']}")


_HEADERS = {
    "openai_chat": {"authorization": "Bearer sk-test"},
    "openai_responses": {"authorization": "Bearer sk-test"},
    "anthropic_messages": {"x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01"},
    "gemini_generateContent": {"x-goog-api-key": "test"},
}


@pytest.mark.parametrize("item", list(_replay_cases()))
def test_mock_matches_recorded_shape(mock_server: str, item: dict[str, Any]) -> None:
    api, stream, recorded = item["api"], item["stream"], item["response"]
    parts = urlsplit(item["request"]["uri"])
    body = json.loads(item["request"]["body"])
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    headers = dict(_HEADERS[api])
    if recorded["status"] == 200:
        headers["x-fcbench-sim-reply"] = json.dumps(_reply_from(api, stream, recorded["body"]))
        if "model" in body:
            body["model"] = "sim-scripted"
        else:
            model = parts.path.rsplit("/", 1)[1].split(":")[0]
            path = path.replace(f"/models/{model}:", "/models/sim-scripted:")
    answer = httpx.post(
        mock_server + path, content=json.dumps(body), headers=headers, timeout=20, trust_env=False
    )
    assert answer.status_code == recorded["status"], answer.text
    media = recorded["content_type"][0].split(";")[0]
    assert answer.headers["content-type"].split(";")[0] == media
    if stream and recorded["status"] == 200:
        assert_same_stream(api, _events(recorded["body"]), _events(answer.text))
    else:
        assert_same_shape(json.loads(recorded["body"]), answer.json())


def test_shape_check_catches_differences() -> None:
    real = {"a": [{"type": "x", "b": 1}], "c": None, "d": "s"}
    assert_same_shape(real, {"a": [{"type": "x", "b": 2.5}], "c": 3, "d": "t"})
    with pytest.raises(AssertionError):
        assert_same_shape(real, {"a": [{"type": "x", "b": "1"}], "c": None, "d": "s"})
    with pytest.raises(AssertionError):
        assert_same_shape(real, {"a": [{"type": "y", "b": 1}], "c": None, "d": "s"})
    with pytest.raises(AssertionError):
        assert_same_shape(real, {"a": [{"type": "x", "b": 1}], "c": None})
