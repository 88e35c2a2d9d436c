"""The input token estimate is the same number whether or not tool schema sizes are kept."""

from __future__ import annotations

import json
import math

from fcbench.mock.common import SchemaSizes, estimate_tokens, request_tokens, schema_size
from fcbench.mock.sim.base import SimCall, SimRequest, SimTool, SimTurn

SCHEMAS = [
    {"type": "object", "properties": {"order_id": {"type": "string", "pattern": "^ORD-[0-9]{6}$"}}},
    {"type": "object", "properties": {"city": {"type": "string", "description": "Ville, e.g. Zürich 中"}}},
    {"type": "object", "properties": {"n": {"type": "number", "default": None}}},
    {"type": "object", "properties": {"n": {"type": "number", "default": math.nan}}},
    {"type": "object", "properties": {"n": {"type": "number", "default": math.inf}}},
    {"type": "object", "properties": {"n": {"type": "number", "maximum": 1e16}}},
    {"type": "object", "properties": {"n": {"type": "number", "maximum": 10000000000000000}}},
]


def joined_estimate(request: SimRequest) -> int:
    """The estimate as the text of the request joined, then counted."""
    parts = [request.system]
    for turn in request.turns:
        parts.append(turn.text)
        parts.extend(call.name + call.arguments_json for call in turn.calls)
        if turn.result is not None:
            parts.append(turn.result if isinstance(turn.result, str) else json.dumps(turn.result))
    for tool in request.tools:
        parts.append(tool.name + tool.description + json.dumps(tool.parameters))
    return max(1, estimate_tokens("".join(parts)))


def request_with(tools: list[SimTool]) -> SimRequest:
    turns = (
        SimTurn("user", "Where is ORD-104821? Merci, 谢谢"),
        SimTurn("assistant", "", calls=(SimCall("lookup_order", '{"order_id": "ORD-104821"}', "c1"),)),
        SimTurn("tool", call_id="c1", tool_name="lookup_order", result={"status": "shipped", "eta": "é"}),
        SimTurn("tool", call_id="c1", tool_name="lookup_order", result="plain text"),
    )
    return SimRequest(model="sim-careful", system="Be brief.", turns=turns, tools=tuple(tools))


def test_kept_sizes_give_the_estimate_of_the_joined_text() -> None:
    sizes = SchemaSizes()
    for _ in range(2):  # computed, then kept
        for index, schema in enumerate(SCHEMAS):
            request = request_with([SimTool(f"tool_{index}", "Does a thing.", schema)])
            assert request_tokens(request, sizes) == request_tokens(request) == joined_estimate(request)
    every = request_with([SimTool(f"t{i}", "d", schema) for i, schema in enumerate(SCHEMAS)])
    assert request_tokens(every, sizes) == joined_estimate(every)
    assert request_tokens(SimRequest("m", "", (), ())) == 1


def test_schemas_that_print_alike_to_msgspec_keep_their_own_sizes() -> None:
    sizes = SchemaSizes()
    for schema in SCHEMAS:  # None, NaN and infinity; 1e16 as a float and as an integer
        assert sizes(schema) == schema_size(schema) == len(json.dumps(schema))
    for schema in reversed(SCHEMAS):
        assert sizes(schema) == len(json.dumps(schema))


def test_only_the_schemas_used_last_are_kept() -> None:
    sizes = SchemaSizes(limit=2)
    for schema in SCHEMAS:
        sizes(schema)
    assert len(sizes) == 2
    assert sizes(SCHEMAS[0]) == len(json.dumps(SCHEMAS[0]))
    assert len(sizes) == 2
