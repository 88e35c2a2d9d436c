"""The streaming pass behind :func:`fcbench.metrics.compute_metrics`: fold record dicts into state.

State is kept per target x mode and per case (:mod:`fcbench.metrics.state`); nothing is kept per
record except one float per accepted observation for exact latency percentiles, and one short
outcome key per scorable observation of the two modes stream parity compares.

* Anomalies: per accepted observation, the codes of the record's and the verdict's anomalies, each
  code once, counted per code and per case; ``with_anomalies`` counts observations with any.
* Argument drift: see :mod:`fcbench.metrics.drift`.
* Stream parity (per target, when ``selection`` and ``stream`` are both reported): over the
  (case, repeat) pairs scored in both modes, those with the same
  :func:`~fcbench.grading.normalised_outcome_key`; computed in :meth:`RunAccumulator.finish`.
* Repairs (profiles that repair): per scorable observation, the repairs its verdict lists, counted
  per kind, and whether it needed any.
"""

from __future__ import annotations

from typing import Any

from fcbench.endpoints import label_of
from fcbench.grading import normalised_outcome_key
from fcbench.grading.repairs import repair_counts
from fcbench.metrics.drift import DriftState
from fcbench.metrics.models import CaseSummary, ParityDifference, Rate, RunInfo, RunMetrics, TargetMetrics
from fcbench.metrics.observe import failure_reasons, record_anomalies
from fcbench.metrics.state import CaseState, GroupState
from fcbench.store.records import Manifest

MAX_REASONS_PER_CASE = 12


MAX_EXAMPLE_CHARS = 300
"""Provider error messages kept as examples are cut to this length (they are redacted already)."""

PARITY_MODES = ("selection", "stream")
"""The two modes (names in :data:`fcbench.contract.MODES`) whose outcomes stream parity compares."""


class RunAccumulator:
    """Streaming aggregation of record dicts, grouped by target label and mode."""

    def __init__(self, *, repairs: bool = False) -> None:
        self.repairs = repairs  # graded by a profile that repairs: say how many observations needed one
        self.groups: dict[tuple[str, str], GroupState] = {}
        self._index: dict[tuple[Any, Any, Any], GroupState] = {}

    def _group(self, rec: dict[str, Any]) -> GroupState:
        target = rec.get("target") or {}
        mode = rec.get("mode")
        fast = (target.get("endpoint"), target.get("model"), mode)
        group = self._index.get(fast)
        if group is None:
            key = (label_of(target), str(mode))
            group = self.groups.get(key)
            if group is None:
                group = self.groups[key] = GroupState.of(target)
            self._index[fast] = group
        return group

    def add(self, rec: dict[str, Any]) -> None:
        """Fold one record dict into the aggregates."""
        group = self._group(rec)
        outcome = rec.get("outcome") or {}
        accepted = outcome.get("kind") != "provider_error"
        _add_spend(group, rec, accepted)

        case_id = str(rec.get("case_id"))
        case = group.cases.get(case_id)
        if case is None:
            case = group.cases[case_id] = CaseState.of(rec.get("case") or {})
        repeat = int(rec.get("repeat") or 0)
        bit = 1 << repeat
        if case.seen & bit:
            prior = case.error_repeats.pop(repeat, None) if case.error_repeats else None
            if prior is None:
                group.duplicates += 1
                return
            _undo_error(group, case, prior)
        case.seen |= bit
        group.observed += 1
        verdict = rec.get("verdict")
        codes: tuple[str, ...] = ()
        if accepted:
            group.accepted += 1
            latency = rec.get("latency_ms")
            if isinstance(latency, int | float):
                group.latencies.append(float(latency))
            codes = record_anomalies(rec)
            _count_anomalies(group, case, codes, 1)

        decision = verdict.get("decision") if isinstance(verdict, dict) else None
        if not isinstance(verdict, dict) or not accepted or decision is None or decision == "not_scored":
            if not accepted:
                code = str(outcome.get("code") or "unknown")
            else:
                code = "ungraded" if verdict is None and not rec.get("error") else "harness"
            group.provider_errors[code] = group.provider_errors.get(code, 0) + 1
            if code not in group.error_examples:
                message = outcome.get("message") if not accepted else rec.get("error")
                group.error_examples[code] = str(message or "(no message)")[:MAX_EXAMPLE_CHARS]
            case.errors += 1
            if case.error_repeats is None:
                case.error_repeats = {}
            case.error_repeats[repeat] = (code, accepted, codes)
            return
        key = _add_scorable(group, case, outcome, verdict, str(decision))
        if rec.get("mode") in PARITY_MODES:
            if case.repeat_keys is None:
                case.repeat_keys = {}
            case.repeat_keys[repeat] = key

    def finish(self, manifest: Manifest, read: int, wanted: set[str] | None) -> RunMetrics:
        """Build the metrics; ``wanted`` restricts the manifest's modes (None: all of them).

        Targets come in manifest order (every target x mode, observed or not), then any target
        or mode found only in the records. The per-case state is released as it is summarised.
        """
        modes = [m for m in manifest.modes if wanted is None or m in wanted]
        targets: dict[str, dict[str, Any]] = {}
        for t in manifest.targets:
            targets.setdefault(label_of(t), t)
        ordered = [(label, m) for label in targets for m in modes]
        ordered += [k for k in self.groups if k not in ordered]
        per_group_planned = manifest.planned / max(1, len(manifest.targets) * len(manifest.modes))
        out: list[TargetMetrics] = []
        cases: list[CaseSummary] = []
        parity: dict[str, dict[str, Any]] = {}
        if all(m in {mode for _, mode in ordered} for m in PARITY_MODES):
            for label in dict.fromkeys(label for label, _ in ordered):
                parity[label] = self._stream_parity(label)
        for label, mode in ordered:
            group = self.groups.get((label, mode)) or GroupState.of(targets.get(label, {}))
            known = label in targets and mode in manifest.modes
            if manifest.planned_by:
                planned = max(manifest.planned_by.get(label, {}).get(mode, 0), group.observed)
            else:
                planned = max(round(per_group_planned) if known else 0, group.observed)
            named = str(targets.get(label, {}).get("name") or label)
            update: dict[str, Any] = {"name": named}
            if mode == PARITY_MODES[1] and label in parity:
                update.update(parity[label])
            metrics = group.metrics(label, mode, planned, repairs=self.repairs)
            out.append(metrics.model_copy(update=update))
            cases += [c.summary(label, mode, cid) for cid, c in sorted(group.cases.items())]
            group.cases.clear()
        info = RunInfo(
            run_id=manifest.run_id,
            suite=manifest.suite,
            dataset_version=manifest.dataset_version,
            dataset_hash=manifest.dataset_hash,
            fcbench_version=manifest.fcbench_version,
            started_at=manifest.started_at,
            finished_at=manifest.finished_at,
            repeats=manifest.repeats,
            modes=modes,
            planned=manifest.planned,
        )
        return RunMetrics(run=info, records_read=read, targets=out, cases=cases)

    def _stream_parity(self, label: str) -> dict[str, Any]:
        """``stream_parity`` and ``stream_parity_differences`` of one target (both modes reported)."""
        first, second = ((self.groups.get((label, m)) or GroupState.of({})).cases for m in PARITY_MODES)
        same = total = 0
        differences: list[ParityDifference] = []
        for case_id in sorted(set(first) & set(second)):
            a = first[case_id].repeat_keys or {}
            b = second[case_id].repeat_keys or {}
            repeats = sorted(set(a) & set(b))
            differing = [r for r in repeats if a[r] != b[r]]
            total += len(repeats)
            same += len(repeats) - len(differing)
            if differing:
                differences.append(
                    ParityDifference(
                        case_id=case_id,
                        differing=Rate(n=len(differing), d=len(repeats)),
                        repeats=differing,
                        selection=[_decision_of(a[r]) for r in differing],
                        stream=[_decision_of(b[r]) for r in differing],
                    )
                )
        return {"stream_parity": Rate(n=same, d=total), "stream_parity_differences": differences}


def _decision_of(key: str) -> str:
    """The decision part of a :func:`~fcbench.grading.normalised_outcome_key` (``decision:digest``)."""
    return key.rpartition(":")[0]


def _count_anomalies(group: GroupState, case: CaseState, codes: tuple[str, ...], sign: int) -> None:
    """Add (``sign`` 1) or take back (-1) one observation's anomaly codes."""
    if not codes:
        return
    group.anomalous += sign
    if case.anomalies is None:
        case.anomalies = {}
    for counts in (group.anomalies, case.anomalies):
        for code in codes:
            counts[code] = counts.get(code, 0) + sign
            if not counts[code]:
                del counts[code]


def _add_spend(group: GroupState, rec: dict[str, Any], accepted: bool) -> None:
    """Tokens and cost of every record, duplicates included: every request was billed."""
    usage = rec.get("usage") or {}
    tin, tout = usage.get("input_tokens"), usage.get("output_tokens")
    if isinstance(tin, int):
        group.tok_in += tin
    if isinstance(tout, int):
        group.tok_out += tout
    if accepted and (tin is None or tout is None):
        group.tok_unreported += 1
    cost = rec.get("cost_usd")
    if isinstance(cost, int | float):
        group.cost += float(cost)
    elif accepted:
        group.cost_unknown += 1


def _undo_error(group: GroupState, case: CaseState, prior: tuple[str, bool, tuple[str, ...]]) -> None:
    """Forget an earlier error observation that a later record of the same key replaces."""
    code, was_accepted, codes = prior
    _count_anomalies(group, case, codes, -1)
    group.observed -= 1
    group.accepted -= int(was_accepted)
    group.provider_errors[code] -= 1
    if not group.provider_errors[code]:
        del group.provider_errors[code]
    case.errors -= 1


def _add_scorable(
    group: GroupState, case: CaseState, outcome: dict[str, Any], verdict: dict[str, Any], decision: str
) -> str:
    """Fold in one scorable observation; return its normalised outcome key."""
    passed = verdict.get("passed") is True
    case.scorable += 1
    case.passes += passed
    case.decisions[decision] = case.decisions.get(decision, 0) + 1
    repairs = repair_counts(verdict)
    recorded_calls = outcome.get("kind") == "tool_calls"
    if recorded_calls or "call_from_text" in repairs:  # the calls graded: recorded, or read from text
        group.schema[1] += 1
        group.schema[0] += verdict.get("schema_valid") is True
    if recorded_calls:
        if case.drift is None:
            case.drift = DriftState()
        case.drift.add(outcome.get("calls"))
    if decision == "correct_call":
        group.semantic[1] += 1
        group.semantic[0] += verdict.get("semantic_exact") is True
        params_match = verdict.get("params_match")
        if params_match is not None:
            group.params[1] += 1
            group.params[0] += params_match is True
    if repairs:
        group.repaired += 1
        for kind, count in repairs.items():
            group.repairs[kind] = group.repairs.get(kind, 0) + count
    recovery = verdict.get("recovery")
    if isinstance(recovery, dict):
        group.recovery[1] += 1
        group.recovery[0] += recovery.get("success") is True
        name = str(recovery.get("outcome"))
        group.recovery_outcomes[name] = group.recovery_outcomes.get(name, 0) + 1
    if not passed:
        if case.reasons is None:
            case.reasons = {}
        for reason in failure_reasons(verdict):
            if reason in case.reasons or len(case.reasons) < MAX_REASONS_PER_CASE:
                case.reasons[reason] = case.reasons.get(reason, 0) + 1
    key = normalised_outcome_key(outcome, decision)
    case.outcomes[key] = case.outcomes.get(key, 0) + 1
    return key
