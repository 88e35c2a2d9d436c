"""Each kind of mode bound to its observer; the modes themselves are :data:`fcbench.contract.MODES`.

The mode table (names, tool choice, streaming, multi-turn, regradable) is vocabulary shared by
configs, records, the plan and regrade, so it lives in the contract; this module is the one
place that says which function observes each kind of mode.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType

from fcbench.contract import MODES, ModeKind
from fcbench.run.observe import FinishRecord, ObservationContext, observe_probe, observe_single_turn
from fcbench.run.plan import Planned
from fcbench.run.recovery import observe_recovery

Observer = Callable[[ObservationContext, Planned], Awaitable[FinishRecord]]
"""Plays one planned observation and returns the function that grades it and builds its record."""

OBSERVERS: Mapping[ModeKind, Observer] = MappingProxyType(
    {
        "single_turn": observe_single_turn,
        "conversation": observe_recovery,
        "probe": observe_probe,
    }
)
"""Mode kind -> observer."""


def observer(mode: str) -> Observer:
    """The observer of mode ``mode`` (a name of :data:`fcbench.contract.MODES`)."""
    return OBSERVERS[MODES[mode].kind]


async def observe(ctx: ObservationContext, planned: Planned) -> FinishRecord:
    """Play one planned observation with its mode's observer (the result builds its record)."""
    return await observer(planned.mode)(ctx, planned)
