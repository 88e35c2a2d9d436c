"""Fixtures for the recovery-loop tests: one recovery conversation played over HTTP against the mock."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from fcbench.endpoints import BUILTIN_ENDPOINTS
from fcbench.mock.faults import FAULT_HEADER
from fcbench.mock.scripted import REPLY_HEADER
from fcbench.pricing import PriceTable
from fcbench.run.observe import ObservationContext
from fcbench.run.plan import Planned, Target
from fcbench.run.recovery import observe_recovery
from fcbench.schema.validate import ValidatorCache
from fcbench.store.records import Record
from fcbench.suite.loader import load_suite
from fcbench.suite.models import Case
from fcbench.transport import RetryPolicy, Transport

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
            transport = Transport(retry=RetryPolicy(max_retries=0))
            ctx = ObservationContext(
                run_id="test-run",
                suite=load_suite(suite),
                transport=transport,
                prices=PriceTable({}),
                validators=ValidatorCache(),
                api_keys={endpoint: "sim-key"},
                temperature=0.0,
                max_tokens=256,
                seed=7,
                headers=headers,
            )
            target = Target(BUILTIN_ENDPOINTS[endpoint].resolved(mock_server), model)
            planned = Planned(seq=0, target=target, case=case, repeat=0, mode="recovery")
            try:
                return await observe_recovery(ctx, planned)
            finally:
                await transport.aclose()

        return asyncio.run(go())

    return run
