"""How a target's aggregation state (:class:`~fcbench.metrics.state.GroupState`) becomes its
:class:`~fcbench.metrics.models.TargetMetrics` and its case summary rows.

Each case is settled once (:meth:`~fcbench.metrics.state.CaseState.settle`, memoised over the
cases with the same verdicts and counts), becomes its :class:`~fcbench.metrics.cases.CaseRow`,
and adds its counts to the target's rates that depend only on a case's expected kind and
decisions (selection, clarification, abstention, by category, by tag, confusion, stability,
pass^k); floating-point sums are taken in case order, so the results do not depend on the memo.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any

from fcbench.grading import RIGHT_DECISIONS
from fcbench.metrics import stats
from fcbench.metrics.cases import CaseGroup, CaseInfo, CaseRow
from fcbench.metrics.models import Latency, Rate, Stability, TargetMetrics, Tokens
from fcbench.metrics.observe import SELECTION_KINDS
from fcbench.metrics.state import GroupState, Settled, SettleMemo

COUNTED_CASE_KINDS = 65536
"""Distinct (counts, expected kind, category, tags) of cases held before they are added up."""


def target_metrics(
    label: str, mode: str, planned: int, g: GroupState, *, repairs: bool = False
) -> tuple[TargetMetrics, CaseGroup]:
    """Every metric of target ``label`` in ``mode`` from its state ``g``, and its case summary rows
    by case id; ``repairs``: the profile repairs, so say how many observations needed a repair.
    The cases are released as they are summarised."""
    stab_sum = 0.0
    hat_ids: dict[tuple[int, int], int] = {}  # (n, c) -> its index
    hat_cases = array("l")  # the (n, c) index of each case with a scorable repeat, in order
    rows: list[CaseRow] = []
    cases = g.cases
    memo = SettleMemo()
    counts = _CaseCounts()
    for case_id in list(cases):
        case = cases.pop(case_id)
        settled = case.settle(g, memo)
        rows.append(case.row(case_id, settled))
        n = settled.scorable
        info = case.info
        key = (id(settled), info.expected_kind, info.category, info.tags)
        same = counts.cases.get(key)
        if same is None:
            if len(counts.cases) >= COUNTED_CASE_KINDS:
                counts.flush()
            hat_id = -1
            if n:
                hat_id = hat_ids.get((n, settled.passes), -1)
                if hat_id < 0:
                    hat_id = hat_ids[n, settled.passes] = len(hat_ids)
            same = counts.cases[key] = [settled, info, 0, hat_id]
        same[2] += 1
        if n:
            stab_sum += settled.top / n
            hat_cases.append(same[3])
    counts.flush()
    memo.count_verdicts(g)
    hat = _pass_hats_by_k(hat_ids, hat_cases)
    g.add_verdicts()
    stab = Stability(
        mean=stab_sum / counts.stab_cases if counts.stab_cases else None,
        n=counts.stab_n,
        d=counts.stab_d,
        cases=counts.stab_cases,
        unstable_cases=counts.unstable,
    )
    lat = sorted(g.latencies)
    cost = None if g.cost_unknown else g.cost
    rows.sort(key=_case_id)
    metrics = TargetMetrics(
        target=label,
        endpoint=g.endpoint,
        dialect=g.dialect,
        model=g.model,
        mode=mode,
        planned=planned,
        observed=g.observed,
        scorable=counts.scorable,
        accepted=Rate(n=g.accepted, d=g.observed),
        provider_errors=dict(sorted(g.provider_errors.items())),
        provider_error_examples={c: m for c, m in sorted(g.error_examples.items()) if c in g.provider_errors},
        selection_accuracy=Rate(n=counts.selection[0], d=counts.selection[1]),
        schema_valid=Rate(n=g.schema[0], d=g.schema[1]),
        semantic_exact=Rate(n=g.semantic[0], d=g.semantic[1]),
        params_match=Rate(n=g.params[0], d=g.params[1]),
        clarification_accuracy=Rate(n=counts.clarification[0], d=counts.clarification[1]),
        abstention_accuracy=Rate(n=counts.abstention[0], d=counts.abstention[1]),
        recovery_success=Rate(n=g.recovery[0], d=g.recovery[1]),
        recovery_outcomes=dict(sorted(g.recovery_outcomes.items())),
        pass_rate=Rate(n=counts.passes, d=counts.scorable),
        stability=stab,
        pass_hat_k={k: sum(v) / len(v) for k, v in enumerate(hat, 1)},
        pass_hat_k_cases={k: len(v) for k, v in enumerate(hat, 1)},
        coverage=Rate(n=counts.scorable, d=planned),
        by_category={k: Rate(n=v[0], d=v[1]) for k, v in sorted(counts.by_category.items())},
        by_tag={k: Rate(n=v[0], d=v[1]) for k, v in sorted(counts.by_tag.items())},
        confusion={k: dict(sorted(v.items())) for k, v in sorted(counts.confusion.items())},
        decisions=dict(sorted(counts.decisions.items())),
        latency_ms=Latency(p50=stats.percentile(lat, 50), p95=stats.percentile(lat, 95), count=len(lat)),
        tokens=Tokens(input=g.tok_in, output=g.tok_out, unreported=g.tok_unreported),
        cost_usd=cost,
        cost_per_pass=cost / counts.passes if cost is not None and counts.passes else None,
        duplicates=g.duplicates,
        anomalies=dict(sorted(g.anomalies.items())),
        with_anomalies=Rate(n=g.anomalous, d=g.accepted),
        drifting_cases=counts.drifting,
        repairs=dict(sorted(g.repairs.items())),
        repaired=Rate(n=g.repaired, d=counts.scorable) if repairs else None,
        unexpected_writes=Rate(n=g.unexpected_writes, d=counts.scorable),
        unexpected_write_calls=g.unexpected_write_calls,
        side_effects=g.side_effects,
        replayed_writes=g.replayed,
        limit_hits=dict(sorted(g.limit_hits.items())),
    )
    return metrics, CaseGroup(label, mode, rows)


def _case_id(row: CaseRow) -> str:
    return row.case_id


def _pass_hats_by_k(hat_ids: dict[tuple[int, int], int], hat_cases: array[int]) -> list[list[float]]:
    """k - 1 -> pass^k of each case (in order) with at least k scorable repeats, from the (n, c) index
    of each case."""
    values = [stats.pass_hat_ks(n, c) for n, c in hat_ids]
    out: list[list[float]] = []
    for k in range(max((len(v) for v in values), default=0)):
        if all(len(v) > k for v in values):
            out.append([values[i][k] for i in hat_cases])
        else:
            out.append([values[i][k] for i in hat_cases if len(values[i]) > k])
    return out


@dataclass(slots=True)
class _CaseCounts:
    """The integer counts a target's metrics add up over its cases; cases with the same settled
    counts (one object per memoised :class:`Settled`), expected kind, category and tags are added
    once, times their number."""

    cases: dict[tuple[int, str, str, tuple[str, ...]], list[Any]] = field(default_factory=dict)
    """(id of the counts, expected kind, category, tags) -> [counts, case info, cases, pass^k index]
    (the list keeps the counts alive, so their id stays theirs)."""
    scorable: int = 0
    passes: int = 0
    drifting: int = 0
    selection: list[int] = field(default_factory=lambda: [0, 0])
    clarification: list[int] = field(default_factory=lambda: [0, 0])
    abstention: list[int] = field(default_factory=lambda: [0, 0])
    by_category: dict[str, list[int]] = field(default_factory=dict)
    by_tag: dict[str, list[int]] = field(default_factory=dict)
    confusion: dict[str, dict[str, int]] = field(default_factory=dict)
    decisions: dict[str, int] = field(default_factory=dict)
    stab_n: int = 0
    stab_d: int = 0
    stab_cases: int = 0
    unstable: int = 0

    def flush(self) -> None:
        """Add up the cases held so far."""
        for settled, info, times, _ in self.cases.values():
            self._add(settled, info, times)
        self.cases = {}

    def _add(self, settled: Settled, info: CaseInfo, times: int) -> None:
        n, c = settled.scorable * times, settled.passes * times
        if settled.drift:
            self.drifting += times
        self.scorable += n
        self.passes += c
        if not n:
            return
        kind = info.expected_kind
        correct = 0
        row = self.confusion.setdefault(kind, {})
        for decision, count in settled.decisions.items():
            count *= times
            if decision in RIGHT_DECISIONS:
                correct += count
            row[decision] = row.get(decision, 0) + count
            self.decisions[decision] = self.decisions.get(decision, 0) + count
        if kind in SELECTION_KINDS:
            self.selection[0] += correct
            self.selection[1] += n
        if kind == "clarification":
            self.clarification[0] += correct
            self.clarification[1] += n
        elif kind == "text":
            self.abstention[0] += correct
            self.abstention[1] += n
        for slot in (
            self.by_category.setdefault(info.category, [0, 0]),
            *(self.by_tag.setdefault(tag, [0, 0]) for tag in info.tags),
        ):
            slot[0] += c
            slot[1] += n
        self.stab_n += settled.top * times
        self.stab_d += n
        self.stab_cases += times
        if settled.distinct > 1:
            self.unstable += times
