"""Fixtures for the recovery-loop tests: one recovery conversation played over HTTP against the mock."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from mock_observe import mock_context

from fcbench.endpoints import BUILTIN_ENDPOINTS
from fcbench.mock.faults import FAULT_HEADER
from fcbench.mock.scripted import REPLY_HEADER
from fcbench.run.plan import Planned, Target
from fcbench.run.recovery import observe_recovery
from fcbench.store.records import Record
from fcbench.suite.loader import load_suite
from fcbench.suite.models import Case

Script = list[dict[str, Any]]


@pytest.fixture
def observe(mock_server: str) -> Callable[..., Record]:
    """``observe(endpoint, model, case, suite="core", script=None, faults=None) -> Record``.

    Plays one recovery conversation against the shared mock server over real HTTP. ``script`` is
    the ``sim-scripted`` reply of each turn (turn N uses ``script[N-1]``); ``faults`` maps a turn
    number to an ``X-Fcbench-Fault`` value.
    """

    def run(
        endpoint: str,
        model: str,
        case: Case,
        suite: str = "core",
        script: Script | None = None,
        faults: dict[int, str] | None = None,
    ) -> Record:
        def headers(planned: Planned, turn: int) -> dict[str, str]:
            sent: dict[str, str] = {}
            if script is not None:
                sent[REPLY_HEADER] = json.dumps(script[min(turn, len(script)) - 1])
            if faults and turn in faults:
                sent[FAULT_HEADER] = faults[turn]
            return sent

        async def go() -> Record:
            ctx = mock_context(load_suite(suite), endpoint, headers)
            target = Target(BUILTIN_ENDPOINTS[endpoint].resolved(mock_server), model)
            planned = Planned(seq=0, target=target, case=case, repeat=0, mode="recovery")
            try:
                return (await observe_recovery(ctx, planned))()
            finally:
                await ctx.transport.aclose()

        return asyncio.run(go())

    return run
