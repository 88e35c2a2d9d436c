"""A provider that sends what no parser expects: the run goes on, records everything once, says why.

The hostile server speaks OpenAI Chat on 127.0.0.1; the model name picks its misbehaviour:

* ``surrogates``: text and arguments carrying UTF-16 surrogates (a lone one, and in the stream an
  emoji split across two chunks), which cannot be written as UTF-8 as they are;
* ``deep-body``: a body nested 5000 levels deep (beyond any JSON decoder's recursion limit);
* ``deep-args``: valid JSON whose call arguments nest 300 levels deep (decodable, not storable);
* ``not-json``: HTML where JSON was due, and a stream of junk events.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from robust_run import record_keys, records, run_in_process
from robust_server import Answer, HostileServer, SeenRequest

DEEP = "[" * 5_000 + "]" * 5_000


def _completion(content: str | None, arguments: str | None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if arguments is not None:
        message["tool_calls"] = [
            {"id": "call_1", "type": "function", "function": {"name": "lookup_order", "arguments": arguments}}
        ]
    return {
        "id": "chatcmpl-hostile",
        "object": "chat.completion",
        "created": 1,
        "model": "hostile",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if arguments else "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
    }


def _chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    chunk = {
        "id": "chatcmpl-hostile",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "hostile",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return "data: " + json.dumps(chunk) + "\n\n"


def _sse(*frames: str) -> Answer:
    return Answer(200, (("".join(frames)) + "data: [DONE]\n\n").encode(), content_type="text/event-stream")


def _surrogates(stream: bool) -> Answer:
    if stream:
        # json.dumps escapes each half as \\ud83d / \\ude00: valid JSON, two separately decoded halves.
        return _sse(
            _chunk({"content": "emoji \ud83d"}), _chunk({"content": "\ude00 split"}), _chunk({}, "stop")
        )
    arguments = json.dumps({"order_id": "ORD-104821", "note": "lone \udc80"})
    return Answer(200, _completion("lone \ud800 here", arguments))


def _deep_body(stream: bool) -> Answer:
    if stream:
        return _sse("data: " + DEEP + "\n\n")
    return Answer(200, DEEP.encode())


def _deep_args(stream: bool) -> Answer:
    return Answer(200, _completion(None, "[" * 300 + "]" * 300))


def _not_json(stream: bool) -> Answer:
    if stream:
        return _sse("data: <html>\n\n", "event: surprise\ndata: not json either\n\n")
    return Answer(200, b"<html><body>502 Bad Gateway</body></html>", content_type="text/html")


BEHAVIOURS = {
    "surrogates": _surrogates,
    "deep-body": _deep_body,
    "deep-args": _deep_args,
    "not-json": _not_json,
}


def _answer(request: SeenRequest) -> Answer:
    body = json.loads(request.body)
    return BEHAVIOURS[body["model"]](bool(body.get("stream")))


def test_hostile_bodies_are_recorded_once_each_and_classified(tmp_path: Path) -> None:
    with HostileServer(_answer) as server:
        config = {
            "endpoints": {
                "hostile": {"dialect": "openai-chat", "base_url": server.url + "/v1", "key_required": False}
            },
            "targets": [f"hostile:{name}" for name in BEHAVIOURS],
            "cases": ["select-lookup-01"],
            "repeats": 1,
            "modes": ["selection", "stream"],
            "max_retries": 0,
            "concurrency": 4,
        }
        result = run_in_process(config, tmp_path / "runs")
    rows = records(result.run_dir)
    keys = Counter(record_keys(rows))
    assert len(keys) == result.planned == len(rows) == len(BEHAVIOURS) * 2
    assert set(keys.values()) == {1}
    by = {(r["target"]["model"], r["mode"]): r for r in rows}

    # Surrogates: stored as valid text; split halves joined, lone ones replaced (never a crash).
    lone = by[("surrogates", "selection")]
    assert lone["outcome"]["kind"] == "tool_calls", lone["outcome"]
    assert lone["outcome"]["text"] == "lone \ufffd here"
    assert lone["outcome"]["calls"][0]["arguments"] == {"order_id": "ORD-104821", "note": "lone \ufffd"}
    assert lone["verdict"]["decision"] == "correct_call"
    split = by[("surrogates", "stream")]
    assert split["outcome"] == {"kind": "text", "text": "emoji \U0001f600 split"}

    # Bodies nested beyond the decoder: a bad response from the provider, not a harness failure.
    for mode in ("selection", "stream"):
        deep = by[("deep-body", mode)]["outcome"]
        assert deep["kind"] == "provider_error" and deep["code"] == "bad_response", deep
        junk = by[("not-json", mode)]["outcome"]
        assert junk["kind"] == "provider_error" and junk["code"] == "bad_response", junk

    # Arguments nested deeper than the record serialiser goes: still exactly one record (the count
    # above), saying why it holds no outcome (or, should the serialiser ever allow it, the calls).
    deep_args = by[("deep-args", "selection")]["outcome"]
    if deep_args["kind"] == "provider_error":
        assert deep_args["code"] == "harness" and "depth" in deep_args["message"].lower(), deep_args
    else:
        assert deep_args["kind"] == "tool_calls", deep_args
    assert result.manifest.finished_at
