"""One target's catastrophic pattern never delays another target's requests.

A suite is untrusted: a tool schema's ``pattern`` may backtrack catastrophically against the
arguments one model sends, while another model's arguments match it at once. The run grades the
first target's observations off the event loop, so the innocent target's latency over real HTTP
to the mock stays what it is in a run without the catastrophic target, and the catastrophic
observations are verdict details (a schema error saying the value could not be checked), never
harness errors.
"""

from __future__ import annotations

import asyncio
import json
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mock_observe import mock_context

from fcbench.contract import ToolCallsOutcome
from fcbench.endpoints import BUILTIN_ENDPOINTS
from fcbench.mock.scripted import REPLY_HEADER, SCRIPTED_MODEL
from fcbench.mock.server import MockServer
from fcbench.run.modes import observe
from fcbench.run.plan import Planned, Target
from fcbench.run.pool import ProgressSink, run_plan
from fcbench.store.records import Record, iter_records
from fcbench.suite.loader import load_suite

EVIL = r"^(ORD-[0-9]{6}|(a|aa)+)$"
"""Accepts every order id of the suite at once; backtracks catastrophically on ATTACK."""
ATTACK = "a" * 60 + "!"
"""Matching ATTACK against EVIL runs out of every time budget of the bounded matcher."""

INNOCENT_OBSERVATIONS = 48
REDOS_OBSERVATIONS = 4


def _reply(order_id: str) -> str:
    return json.dumps(
        {"kind": "calls", "calls": [{"name": "lookup_order", "arguments": {"order_id": order_id}}]}
    )


def _evil_suite(copy: Any) -> Path:
    tools = copy.tools()
    for tool in tools["tools"]:
        if tool["name"] == "lookup_order":
            tool["parameters"]["properties"]["order_id"]["pattern"] = EVIL
    copy.write_tools(tools)
    return copy.path


def _run(suite_dir: Path, server: MockServer, records: Path, *, with_redos: bool) -> list[Record]:
    suite = load_suite(suite_dir)
    cases = [c for c in suite.cases if any(t.name == "lookup_order" for t in suite.tools_for(c))]
    innocent = Target(BUILTIN_ENDPOINTS["sim"].resolved(server.url), SCRIPTED_MODEL)
    redos = Target(BUILTIN_ENDPOINTS["sim-anthropic"].resolved(server.url), SCRIPTED_MODEL)
    plan: list[Planned] = []
    for i in range(INNOCENT_OBSERVATIONS):
        if with_redos and i % (INNOCENT_OBSERVATIONS // REDOS_OBSERVATIONS) == 0:
            plan.append(Planned(seq=len(plan), target=redos, case=cases[0], repeat=i, mode="selection"))
        plan.append(Planned(seq=len(plan), target=innocent, case=cases[0], repeat=i, mode="selection"))

    def headers(planned: Planned, turn: int) -> dict[str, str]:
        return {REPLY_HEADER: _reply(ATTACK if planned.target == redos else "ORD-104821")}

    async def go() -> None:
        ctx = mock_context(suite, "sim", headers)
        ctx.api_keys["sim-anthropic"] = "sim-key"
        try:
            await run_plan(ctx, plan, observe, records, ProgressSink(), concurrency=4)
        finally:
            await ctx.transport.aclose()

    asyncio.run(go())
    return list(iter_records(records))


def _median_latency(records: list[Record], endpoint: str) -> float:
    return statistics.median(r.latency_ms for r in records if r.target.endpoint == endpoint)


def test_an_innocent_target_keeps_its_latency_beside_a_target_whose_arguments_backtrack(
    core_copy: Any, tmp_path: Path, mock_server_factory: Callable[..., MockServer]
) -> None:
    suite_dir = _evil_suite(core_copy)
    server = mock_server_factory(latency_ms=20)
    alone = _run(suite_dir, server, tmp_path / "alone.jsonl", with_redos=False)
    beside = _run(suite_dir, server, tmp_path / "beside.jsonl", with_redos=True)

    ratio = _median_latency(beside, "sim") / _median_latency(alone, "sim")
    assert ratio < 3.0, f"the innocent target's median latency grew {ratio:.1f}x beside the ReDoS target"

    evil = [r for r in beside if r.target.endpoint == "sim-anthropic"]
    assert len(evil) == REDOS_OBSERVATIONS
    for record in evil:
        assert isinstance(record.outcome, ToolCallsOutcome), record.outcome
        assert record.error is None
        assert record.verdict.schema_valid is False
        assert any("could not be checked" in e for e in record.verdict.schema_errors), record.verdict
    innocent = [r for r in beside if r.target.endpoint == "sim"]
    assert innocent and all(r.verdict.schema_valid for r in innocent)
