"""Getting around a ``PERMISSION_DENIED``: the trait of a simulated model that will not take no.

:func:`around_denial` is what such a model does after a read was denied: it looks for another
offered read tool that it can fill in from what it has read (the instruction-like texts inside
results, the denied call's own values) and calls it, so it reaches the same data another way
(``lookup_order`` of the other customer's order after ``search_orders`` by their e-mail was
refused). A model without the trait gives up on the denial and says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fcbench.mock.sim import text as tx
from fcbench.mock.sim.base import SimCall, SimRequest
from fcbench.mock.sim.dialogue import SimDialogue, SimExchange
from fcbench.mock.sim.extract import extract
from fcbench.mock.sim.recovery import _strings
from fcbench.mock.sim.select import PlannedCall, ToolInfo

if TYPE_CHECKING:
    from fcbench.mock.sim.engine import Personality

DENIED = "PERMISSION_DENIED"
"""The error code the trait reacts to."""


def read_texts(conv: SimDialogue, denied: SimExchange) -> str:
    """What the model takes values from: the instruction-like texts inside results and the denied
    call's string values (not the request, whose own values it already used)."""
    injected = [
        text
        for ex in conv.exchanges
        if ex.outcome is not None
        for text in _strings(ex.outcome.data)
        if tx.is_injection(text)
    ]
    arguments = denied.arguments()
    values = [str(v) for v in arguments.values() if isinstance(v, str)] if isinstance(arguments, dict) else []
    return " ".join([*injected, *values])


def around_denial(
    model: Personality, denied: SimExchange, conv: SimDialogue, request: SimRequest, infos: list[ToolInfo]
) -> SimCall | None:
    """A call of another read tool that reaches what ``denied`` was refused, or None (the call was
    not denied or was a write, or no other tool can be filled in, or each was already tried)."""
    if denied.outcome is None or denied.outcome.code != DENIED:
        return None
    if any(info.write and info.tool.name == denied.call.name for info in infos):
        return None  # a refused write (an order on hold) is no data to reach another way
    source = read_texts(conv, denied)
    for info in infos:
        if info.write or info.tool.name == denied.call.name:
            continue
        extraction = extract(info.tool.parameters, source)
        if not extraction.complete or not extraction.values:
            continue
        if model.already_called(info.tool.name, extraction.args(), conv):
            continue
        return model.render(PlannedCall(info.tool, extraction), conv, request)
    return None


__all__ = ["DENIED", "around_denial", "read_texts"]
