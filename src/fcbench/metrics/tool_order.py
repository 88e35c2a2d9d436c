"""Tool-order metrics of a run with ``tool_order`` (``reverse``, ``shuffle:K``; JSON: ``metrics.tool_order``).

Read from the records' ``tool_order`` fields (the order each observation offered the tools in,
:class:`~fcbench.store.records.OfferedOrder`) beside their outcomes and verdicts, per target and mode,
over the accepted observations (provider errors are coverage loss, as everywhere):

* ``consistency``: cases whose **choice** is the same in every observation, out of the cases
  observed in at least two orders. The choice of an observation is the name of its first call,
  or its outcome kind (``text``, ``refusal``) when it called nothing; repeats count too, so a
  model that varies from repeat to repeat is inconsistent whatever the order.
* ``first_offered``: observations whose first call is the first offered of the case's
  **plausible** tools, out of the observations whose first call is one of them, counted only
  where at least two plausible tools were offered. A case's plausible tools are its expected
  tools (a clarification's ``name`` included) and its ``confusable`` ones. ``chance`` is the rate
  a choice blind to the order would reach: the mean of 1 / (plausible tools offered) over the
  same observations. ``biased``: the lower end of ``first_offered``'s 95% interval is above
  ``chance``.
* ``passed_by_order``: passing observations per order index, out of the scorable ones.

Like the metrics, the first accepted record of each (target, case, repeat, mode) is taken.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from fcbench.metrics.models import Rate
from fcbench.store.view import RecordView

MAX_LISTED_CASES = 50
"""Inconsistent cases listed per target and mode (the count covers them all)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class ToolOrderTarget(_Model):
    """How one target's choices in one mode moved with the order of the tools."""

    target: str
    """The target, ``endpoint:model``."""
    mode: str
    """The mode."""
    consistency: Rate = Field(default_factory=Rate)
    """Cases with the same choice in every observation / cases observed in at least two orders."""
    inconsistent: list[str] = Field(default_factory=list)
    """Ids of the cases whose choice changed, sorted (at most :data:`MAX_LISTED_CASES`)."""
    first_offered: Rate = Field(default_factory=Rate)
    """Observations calling the first offered plausible tool / observations calling a plausible
    tool where at least two were offered."""
    chance: float | None = None
    """What ``first_offered`` would be for a choice blind to the order (null when ``d`` is 0)."""
    biased: bool = False
    """The lower end of ``first_offered``'s 95% interval is above ``chance``."""
    passed_by_order: dict[int, Rate] = Field(default_factory=dict)
    """Order index -> passing / scorable observations offered in that order."""


class ToolOrderMetrics(_Model):
    """The tool-order probe of a run (``metrics.tool_order``)."""

    spec: str
    """``reverse`` or ``shuffle:K``, as pinned in the manifest."""
    targets: list[ToolOrderTarget] = Field(default_factory=list)
    """Per target and mode, in the order the records name them."""


@dataclass
class _Tally:
    """What one target and mode's observations add up to so far."""

    choices: dict[str, set[str]] = field(default_factory=dict)
    orders: dict[str, set[int]] = field(default_factory=dict)
    first: int = 0
    plausible: int = 0
    chance: float = 0.0
    passed: dict[int, list[int]] = field(default_factory=dict)

    def add(self, view: RecordView, order: dict[str, object]) -> None:
        """Fold one accepted observation offered in ``order``."""
        index = order.get("index")
        if not isinstance(index, int) or isinstance(index, bool):  # a record is data: fold only an index
            return
        names = view.outcome.call_names()
        choice = names[0] if names else str(view.outcome.kind)
        self.choices.setdefault(view.case_id, set()).add(choice)
        self.orders.setdefault(view.case_id, set()).add(index)
        plausible = order.get("plausible")
        if names and isinstance(plausible, list) and len(plausible) >= 2 and names[0] in plausible:
            self.plausible += 1
            self.first += names[0] == plausible[0]
            self.chance += 1 / len(plausible)
        verdict = view.verdict_data()
        if verdict is not None and verdict.get("decision") != "not_scored":
            counts = self.passed.setdefault(index, [0, 0])
            counts[0] += verdict.get("passed") is True
            counts[1] += 1

    def metrics(self, target: str, mode: str) -> ToolOrderTarget:
        """The figures of the observations folded."""
        observed = [case for case, orders in self.orders.items() if len(orders) >= 2]
        changed = sorted(case for case in observed if len(self.choices[case]) > 1)
        first = Rate(n=self.first, d=self.plausible)
        chance = self.chance / self.plausible if self.plausible else None
        return ToolOrderTarget(
            target=target,
            mode=mode,
            consistency=Rate(n=len(observed) - len(changed), d=len(observed)),
            inconsistent=changed[:MAX_LISTED_CASES],
            first_offered=first,
            chance=None if chance is None else round(chance, 6),
            biased=chance is not None and first.low is not None and first.low > chance,
            passed_by_order={i: Rate(n=n, d=d) for i, (n, d) in sorted(self.passed.items())},
        )


def tool_order_metrics(
    views: Iterable[RecordView], spec: str, modes: set[str] | None = None
) -> ToolOrderMetrics:
    """The tool-order figures of the records ``views`` of a run pinned with ``tool_order: spec``."""
    tallies: dict[tuple[str, str], _Tally] = {}
    seen: set[tuple[str, str, int, str]] = set()
    for view in views:
        order = view.tool_order_data()
        skipped = order is None or view.outcome.kind == "provider_error"  # a later record may replace it
        if skipped or (modes is not None and view.mode not in modes) or view.key in seen:
            continue
        seen.add(view.key)
        assert order is not None
        tallies.setdefault((view.label, view.mode), _Tally()).add(view, order)
    return ToolOrderMetrics(
        spec=spec, targets=[tally.metrics(target, mode) for (target, mode), tally in tallies.items()]
    )


__all__ = ["ToolOrderMetrics", "ToolOrderTarget", "tool_order_metrics"]
