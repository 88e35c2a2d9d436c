"""Tool-order probes (config ``tool_order``): the same case offered with its tools in other orders.

A model that picks by meaning calls the same tool whatever the order; one that picks the first
tool that fits calls whichever comes first. ``tool_order`` names the orders of a run:

* ``reverse``: two orders, the suite's (order 0) and its reverse (order 1);
* ``shuffle:K``: K seeded permutations per case, drawn from the run's ``seed`` and the case id
  (the same for the same seed, the same for every target), distinct while the tools allow as
  many (three tools have six orders; a seventh repeats the first).

Each case is observed in every order, ``repeats`` times each: the plan holds ``repeats x K``
repeats per case and mode, and repeat ``r`` is offered in order ``r mod K``. Each record names
its order (:class:`~fcbench.store.records.OfferedOrder`: the index, the offered names, the
plausible ones among them); the metrics are in :mod:`fcbench.metrics.tool_order`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from math import factorial

from fcbench.contract import Tool
from fcbench.store.records import OfferedOrder
from fcbench.suite.models import Case

SHUFFLE_PREFIX = "shuffle:"
"""``shuffle:K`` names K seeded permutations."""


@dataclass(frozen=True)
class ToolOrders:
    """The orders a run offers each case's tools in."""

    spec: str
    """``reverse`` or ``shuffle:K``, as configured."""
    count: int
    """How many orders each case is offered in."""
    seed: int
    """The run's seed (permutations of ``shuffle:K``)."""

    def permutation(self, case_id: str, index: int, size: int) -> list[int]:
        """Order ``index`` of a case's ``size`` tools, as positions into the suite's order."""
        identity = list(range(size))
        if self.spec == "reverse":
            return identity[::-1] if index % 2 else identity
        rng = random.Random(f"{self.seed}:{case_id}")
        wanted = min(self.count, factorial(size))
        drawn: list[list[int]] = []
        while len(drawn) < wanted:
            candidate = rng.sample(identity, size)
            if candidate not in drawn:
                drawn.append(candidate)
        return drawn[index % len(drawn)]


def tool_orders(spec: str | None, seed: int) -> ToolOrders | None:
    """The orders of config ``tool_order`` (validated by the config), None when it is unset."""
    if spec is None:
        return None
    count = 2 if spec == "reverse" else int(spec.removeprefix(SHUFFLE_PREFIX))
    return ToolOrders(spec=spec, count=count, seed=seed)


def orders_per_case(spec: str | None) -> int:
    """How many orders config ``tool_order`` offers each case in (1 when unset)."""
    found = tool_orders(spec, 0)
    return 1 if found is None else found.count


def plausible_tools(case: Case) -> set[str]:
    """The tools a model could plausibly pick for ``case``: its expected tools (the one a
    clarification would lead to included) and its ``confusable`` ones."""
    return {*case.expected_tool_names, *case.confusable}


def offered_order(
    orders: ToolOrders, case: Case, repeat: int, tools: Sequence[Tool]
) -> tuple[list[Tool], OfferedOrder]:
    """``tools`` in the order repeat ``repeat`` of ``case`` offers them, and the record's note of it."""
    index = repeat % orders.count
    offered = [tools[position] for position in orders.permutation(case.id, index, len(tools))]
    names = [tool.name for tool in offered]
    plausible = plausible_tools(case)
    return offered, OfferedOrder(index=index, names=names, plausible=[n for n in names if n in plausible])


__all__ = ["ToolOrders", "offered_order", "orders_per_case", "plausible_tools", "tool_orders"]
