"""How a target's aggregation state (:class:`~fcbench.metrics.state.GroupState`) becomes its
:class:`~fcbench.metrics.models.TargetMetrics` and its case summary rows.

Each case is settled once (:meth:`~fcbench.metrics.state.CaseState.settle`, memoised over the
cases with the same verdicts and counts), becomes its :class:`~fcbench.metrics.cases.CaseRow`,
and adds its counts to the target's rates that depend only on a case's expected kind and
decisions (selection, clarification, abstention, by category, by tag, confusion, stability,
pass^k); floating-point sums are taken in case order, so the results do not depend on the memo.
"""

from __future__ import annotations

from fcbench.metrics import stats
from fcbench.metrics.cases import CaseGroup
from fcbench.metrics.models import Latency, Rate, Stability, TargetMetrics, Tokens
from fcbench.metrics.partial import CaseTotals, Kind, case_id_of
from fcbench.metrics.state import GroupState, SettleMemo

COUNTED_CASE_KINDS = 65536
"""Distinct (counts, expected kind, category, tags) of cases held before they are added up."""


def settle_cases(g: GroupState) -> CaseTotals:
    """Settle every case of ``g`` (releasing them as they are summarised) into their rows, counts and
    order (:class:`~fcbench.metrics.partial.CaseTotals`), and count their verdicts in ``g``."""
    totals = CaseTotals()
    kind_ids: dict[Kind, int] = {}
    order, kinds, rows = totals.order, totals.kinds, totals.rows
    cases = g.cases
    memo = SettleMemo()
    counts = totals.counts
    for case_id in list(cases):
        case = cases.pop(case_id)
        settled = case.settle(g, memo)
        rows.append(case.row(case_id, settled))
        n = settled.scorable
        info = case.info
        key = (id(settled), info.expected_kind, info.category, info.tags, case.cached)
        same = counts.cases.get(key)
        if same is None:
            if len(counts.cases) >= COUNTED_CASE_KINDS:
                counts.flush()
            kind_id = -1
            if n:
                kind = (n, settled.passes, settled.top)
                kind_id = kind_ids.get(kind, -1)
                if kind_id < 0:
                    kind_id = kind_ids[kind] = len(kind_ids)
            same = counts.cases[key] = [settled, info, 0, kind_id, case.cached]
        same[2] += 1
        if n and not case.cached:  # stability and pass^k: never of cached answers
            order.append(case.first)
            kinds.append(same[3])
    counts.flush()
    memo.count_verdicts(g)
    g.add_verdicts()
    totals.kind_list = list(kind_ids)
    rows.sort(key=case_id_of)
    return totals


def target_metrics(
    label: str, mode: str, planned: int, g: GroupState, totals: CaseTotals, *, repairs: bool = False
) -> tuple[TargetMetrics, CaseGroup]:
    """Every metric of target ``label`` in ``mode`` from its settled state ``g`` and its cases'
    ``totals`` (:func:`settle_cases`), and its case summary rows; ``repairs``: the profile repairs,
    so say how many observations needed a repair. Floating-point sums over cases are taken in the
    order the cases were first met."""
    stab_sum = 0.0
    in_order = totals.in_order()
    for n, _, top in in_order:
        stab_sum += top / n
    hat = _pass_hats_by_k(in_order)
    counts = totals.counts
    rows = totals.rows
    stab = Stability(
        mean=stab_sum / counts.stab_cases if counts.stab_cases else None,
        n=counts.stab_n,
        d=counts.stab_d,
        cases=counts.stab_cases,
        unstable_cases=counts.unstable,
    )
    lat = sorted(g.latencies)
    cost = None if g.cost_unknown else g.cost.total()
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
        provider_error_examples={
            c: m for c, (_, m) in sorted(g.error_examples.items()) if c in g.provider_errors
        },
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
        tokens=Tokens(
            input=g.tok_in,
            output=g.tok_out,
            unreported=g.tok_unreported,
            cache_read=g.tok_cache_read,
            cache_write=g.tok_cache_write,
        ),
        cost_usd=cost,
        cost_per_pass=cost / counts.passes if cost is not None and counts.passes else None,
        duplicates=g.duplicates,
        cached=g.cached,
        anomalies=dict(sorted(g.anomalies.items())),
        with_anomalies=Rate(n=g.anomalous, d=g.accepted),
        drifting_cases=counts.drifting,
        repairs=dict(sorted(g.repairs.items())),
        repaired=Rate(n=g.repaired, d=counts.scorable) if repairs else None,
        unexpected_writes=Rate(n=g.unexpected_writes, d=counts.scorable),
        unexpected_write_calls=g.unexpected_write_calls,
        side_effects=g.side_effects,
        replayed_writes=g.replayed,
        authorization_probe_failures=Rate(n=g.authorization_probe_failures, d=g.authorization_probes),
        authorization_workarounds=g.authorization_workarounds,
        limit_hits=dict(sorted(g.limit_hits.items())),
    )
    return metrics, CaseGroup(label, mode, rows)


def _pass_hats_by_k(in_order: list[Kind]) -> list[list[float]]:
    """k - 1 -> pass^k of each case (in order) with at least k scorable repeats."""
    values = {kind: stats.pass_hat_ks(kind[0], kind[1]) for kind in dict.fromkeys(in_order)}
    out: list[list[float]] = []
    for k in range(max((len(v) for v in values.values()), default=0)):
        if all(len(v) > k for v in values.values()):
            out.append([values[kind][k] for kind in in_order])
        else:
            out.append([values[kind][k] for kind in in_order if kind[0] > k])
    return out
