"""Calls that come without an id (Gemini may omit them) still get exactly one result each.

The loop answers such a call with the key the adapter stored in ``provider_state`` (never sent on
the wire); the Gemini adapter then pairs results with calls by that key, so two id-less calls of
the same tool with different arguments keep their own results.
"""

from __future__ import annotations

from fcbench import adapters
from fcbench.adapters.base import RequestOptions, ToolChoice
from fcbench.contract import AssistantMessage, Tool, ToolResultMessage, UserMessage, make_call
from fcbench.fake_tools import FakeStore, FakeToolbox
from fcbench.run.recovery import result_ids

GEMINI_REPLY = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "lookup_order", "args": {"order_id": "ORD-104821"}}},
                    {"functionCall": {"name": "lookup_order", "args": {"order_id": "ORD-104822"}}},
                ],
            },
            "finishReason": "STOP",
        }
    ],
    "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 10},
}


def test_idless_gemini_calls_are_answered_by_adapter_keys(builtin_tools: dict[str, Tool]) -> None:
    adapter = adapters.get("gemini")
    turn = adapter.parse_response(GEMINI_REPLY, ["lookup_order"])
    calls = turn.outcome.calls  # type: ignore[union-attr]
    assert [c.id for c in calls] == [None, None]
    ids = result_ids(calls, turn.assistant)
    assert len(set(ids)) == 2 and all(ids)
    box = FakeToolbox([builtin_tools["lookup_order"]], FakeStore.fresh(), conversation_id="g")
    runs = [box.execute(c, call_id=i) for c, i in zip(calls, ids, strict=True)]
    # answer in reverse order: pairing must use the keys, not positions
    results = [
        ToolResultMessage(call_id=r.call_id, name=r.tool, content=r.content, is_error=not r.ok)
        for r in reversed(runs)
    ]
    assert turn.assistant is not None
    messages = [UserMessage(content="Where are ORD-104821 and ORD-104822?"), turn.assistant, *results]
    built = adapter.build_request(
        "sys", messages, [builtin_tools["lookup_order"]], ToolChoice(), RequestOptions(model="m")
    )
    replies = [p["functionResponse"] for p in built.body["contents"][-1]["parts"]]
    assert [r["response"]["output"]["result"]["order"]["order_id"] for r in replies] == [
        "ORD-104821",
        "ORD-104822",
    ]
    assert all("id" not in r and r["name"] == "lookup_order" for r in replies)


def test_ids_win_over_keys_and_missing_keys_give_none() -> None:
    with_ids = [make_call("call_1", "a", {}), make_call(None, "b", {})]
    state = {"some-dialect": {"call_keys": ["k0", "k1"]}}
    assert result_ids(with_ids, AssistantMessage(calls=with_ids, provider_state=state)) == ["call_1", "k1"]
    assert result_ids(with_ids, AssistantMessage(calls=with_ids)) == ["call_1", None]
    assert result_ids(with_ids, None) == ["call_1", None]
