"""``sim-scripted``: a built-in model whose reply is dictated per request by a header.

Send ``X-Fcbench-Sim-Reply`` with a JSON object::

    {"kind": "calls", "text": "optional text before the calls",
     "calls": [{"name": "lookup_order", "arguments_json": "{\\"order_id\\": \\"A1\\"}"}]}
    {"kind": "text", "text": "Hello"}
    {"kind": "refusal", "text": "I can't help with that."}

``arguments_json`` is put on the wire exactly as given (so it may be broken JSON on purpose);
``arguments`` (any JSON value) may be given instead and is serialised compactly. Without the
header the model answers with the text ``ok``.
"""

from __future__ import annotations

import json
from typing import Any

from fcbench.mock.sim.base import SimCall, SimReply, SimRequest

SCRIPTED_MODEL = "sim-scripted"
"""Name of the header-driven model."""

REPLY_HEADER = "x-fcbench-sim-reply"
"""Request header carrying the scripted reply."""

_KINDS = ("calls", "text", "refusal")


class ScriptedModel:
    """A model that says what the request's ``X-Fcbench-Sim-Reply`` header tells it to."""

    name = SCRIPTED_MODEL

    def respond(self, request: SimRequest) -> SimReply:
        """The reply without a header: the text ``ok``."""
        return SimReply(kind="text", text="ok")

    def reply_from_header(self, value: str) -> SimReply:
        """Parse the header value; raises ValueError with a readable reason."""
        try:
            data = json.loads(value)
        except ValueError as exc:
            raise ValueError(f"X-Fcbench-Sim-Reply is not valid JSON: {exc}") from None
        if not isinstance(data, dict) or data.get("kind") not in _KINDS:
            raise ValueError(
                "X-Fcbench-Sim-Reply must be an object whose 'kind' is 'calls', 'text' or 'refusal'"
            )
        text = data.get("text", "")
        if not isinstance(text, str):
            raise ValueError("X-Fcbench-Sim-Reply: 'text' must be a string")
        calls: list[SimCall] = []
        if data["kind"] == "calls":
            raw_calls = data.get("calls")
            if not isinstance(raw_calls, list) or not raw_calls:
                raise ValueError("X-Fcbench-Sim-Reply: kind 'calls' needs a non-empty 'calls' list")
            calls = [_call(item, position) for position, item in enumerate(raw_calls)]
        return SimReply(kind=data["kind"], text=text, calls=tuple(calls))


def _call(item: Any, position: int) -> SimCall:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise ValueError(f"X-Fcbench-Sim-Reply: calls[{position}] needs a string 'name'")
    if "arguments_json" in item:
        arguments = item["arguments_json"]
        if not isinstance(arguments, str):
            raise ValueError(f"X-Fcbench-Sim-Reply: calls[{position}].arguments_json must be a string")
    else:
        arguments = json.dumps(item.get("arguments", {}), ensure_ascii=False, separators=(",", ":"))
    call_id = item.get("id")
    return SimCall(
        name=item["name"], arguments_json=arguments, id=call_id if isinstance(call_id, str) else None
    )
