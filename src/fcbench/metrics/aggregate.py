"""The streaming pass behind :func:`fcbench.metrics.compute_metrics`: fold records into state.

Records arrive as :class:`~fcbench.store.view.RecordView` (decoded straight from their line, or
from the dict of a line the decoder refused). State is kept per target x mode and per case
(:mod:`fcbench.metrics.state`):
per case, a count per distinct scorable observation; nothing per record except one float per
accepted observation for exact latency percentiles and, in the two modes stream parity compares,
one small index per scorable repeat. What is derived from a verdict or an anomaly list is derived
once per distinct JSON text and memoised (at most :data:`MEMO_ENTRIES` texts each); equal calls
texts share one object.

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

import json
from collections.abc import Iterable
from typing import Any

import msgspec

from fcbench.endpoints import label_of
from fcbench.metrics.cases import CaseGroup, CaseInfo, CaseSummaries, case_info
from fcbench.metrics.models import ParityDifference, Rate, RunInfo, TargetMetrics
from fcbench.metrics.observe import VerdictFacts, anomaly_list, attempt, codes_of, kept_value
from fcbench.metrics.partial import CaseTotals, ParityPart, RunPart, merge_parts
from fcbench.metrics.result import RunMetrics
from fcbench.metrics.state import CaseState, GroupState, same_outcome
from fcbench.metrics.targets import settle_cases, target_metrics
from fcbench.store.records import Manifest, PinnedTarget
from fcbench.store.view import EMPTY_LIST, RecordView, encode_calls

MAX_EXAMPLE_CHARS = 300
"""Provider error messages kept as examples are cut to this length (they are redacted already)."""

PARITY_MODES = ("selection", "stream")
"""The two modes (names in :data:`fcbench.contract.MODES`) whose outcomes stream parity compares."""

MEMO_ENTRIES = 65536
"""Distinct texts remembered per kind (verdicts, anomaly lists, calls) before starting over."""


class Undecodable(Exception):
    """A part of a line that the record decoder passed is not JSON to :func:`json.loads` (the dict pass
    skipped such a line): raised before the line changed any state."""


class RunAccumulator:
    """Streaming aggregation of records, grouped by target label and mode."""

    def __init__(self, *, repairs: bool = False, parity: bool = True) -> None:
        self.repairs = repairs  # graded by a profile that repairs: say how many observations needed one
        self.groups: dict[tuple[str, str], GroupState] = {}
        self._index: dict[tuple[Any, Any, Any], GroupState] = {}
        self._verdicts: dict[bytes, VerdictFacts] = {}
        self._anomalies: dict[bytes, list[Any] | BaseException] = {}
        self._calls: dict[bytes, bytes] = {}  # one object per distinct calls text (cases keep many)
        self._infos: dict[bytes, CaseInfo] = {}  # one object per distinct case text (targets share it)
        # The modes whose repeats' observations are kept for stream parity (see parity_missed).
        self._parity = frozenset(PARITY_MODES) if parity else frozenset()
        self.line = 0
        """The order index of the record being folded (its line number; set by the caller)."""
        self.damaged = 0
        """Lines the caller skipped as damaged (not JSON, a torn last line), for ``damaged_lines``."""

    def add(self, rec: RecordView, facts: VerdictFacts | None = None) -> None:
        """Fold one record view; ``facts`` of its verdict when the caller has them.

        Raises :class:`Undecodable` (before changing anything) when a part of the record is not JSON.
        """
        if facts is None:
            text = bytes(rec.verdict)
            facts = self._verdicts.get(text)
            if facts is None:
                facts = self._facts(text, _loads(text))
        anomalies = self._anomalies_of(rec)
        mode, target = rec.mode, rec.target
        group = self._index.get((target.endpoint, target.model, mode))
        case = None if group is None else group.cases.get(rec.case_id)
        if group is None or case is None:
            group, case = self._case_of(rec, group)
        accepted = rec.outcome.kind != "provider_error"
        cached = rec.cached is True
        if cached:  # answered before: counted, never measured again
            group.cached += 1
            case.cached = True
        else:
            _spend(group, rec, accepted)
        repeat = rec.repeat
        bit = 1 << repeat
        if case.seen & bit:
            prior = case.error_repeats.pop(repeat, None) if case.error_repeats else None
            if prior is None:
                group.duplicates += 1
                return
            _undo_error(group, case, prior)
        case.seen |= bit
        codes: tuple[str, ...] = ()
        if accepted:
            latency = None if cached else rec.latency_ms
            if latency.__class__ is float:
                group.latencies.append(latency)
            elif isinstance(latency, int | float):
                group.latencies.append(float(latency))
            if anomalies or facts.anomalous:
                codes = codes_of(kept_value(anomalies), facts)
                _count_anomalies(group, case, codes, 1)
            if facts.scores:
                self._score(rec, case, facts)
                return
        self._lost(rec, group, case, (accepted, facts, codes))

    def _anomalies_of(self, rec: RecordView) -> list[Any] | BaseException:
        """The record's anomaly list (memoised by its text; [] for almost every record)."""
        if rec.anomalies == EMPTY_LIST:
            return []
        text = bytes(rec.anomalies)
        found = self._anomalies.get(text)
        if found is None:
            found = _remember(self._anomalies, text, attempt(anomaly_list, _loads(text)))
        return found

    def _score(self, rec: RecordView, case: CaseState, facts: VerdictFacts) -> None:
        """Count a scorable observation among its case's distinct observations (and keep its index
        for stream parity in the modes it compares)."""
        if facts.unscorable is not None:  # raise here what the record pass raised on this record
            raise facts.unscorable
        outcome = rec.outcome
        calls = encode_calls(outcome.calls or []) if outcome.kind == "tool_calls" else None
        observation = (facts, calls)
        observations = case.observations
        index = observations.get(observation)
        if index is None:
            if calls is not None:  # one object per distinct calls text: cases keep many
                known = self._calls
                if len(known) >= MEMO_ENTRIES:
                    known.clear()
                observation = (facts, known.setdefault(calls, calls))
            index = observations[observation] = len(case.counts)
            case.counts.append(1)
        else:
            case.counts[index] += 1
        if rec.mode in self._parity:
            near = case.near
            repeat = rec.repeat
            if near is not None and repeat == len(near):
                near.append(index)
            else:
                case.keep(repeat, index)

    def _lost(
        self,
        rec: RecordView,
        group: GroupState,
        case: CaseState,
        how: tuple[bool, VerdictFacts, tuple[str, ...]],
    ) -> None:
        """Count an observation lost to a provider or harness error (or without a verdict)."""
        accepted, facts, codes = how
        outcome = rec.outcome
        if not accepted:
            code = str(outcome.code or "unknown")
        else:
            code = "ungraded" if facts.is_none and not rec.error else "harness"
        group.provider_errors[code] = group.provider_errors.get(code, 0) + 1
        if code not in group.error_examples:
            message = outcome.message if not accepted else rec.error
            group.error_examples[code] = (self.line, str(message or "(no message)")[:MAX_EXAMPLE_CHARS])
        case.errors += 1
        if case.error_repeats is None:
            case.error_repeats = {}
        case.error_repeats[rec.repeat] = (code, accepted, codes)

    def _facts(self, text: bytes, verdict: Any) -> VerdictFacts:
        return _remember(self._verdicts, text, VerdictFacts(verdict))

    def _info(self, case: msgspec.Raw) -> CaseInfo:
        """The case fields of a record's ``case`` text (one object per distinct text)."""
        text = bytes(case)
        info = self._infos.get(text)
        if info is None:
            info = _remember(self._infos, text, case_info(_loads(text) or {}))
        return info

    def _case_of(self, rec: RecordView, group: GroupState | None) -> tuple[GroupState, CaseState]:
        """The group (when ``group`` is None) and the new case of a record whose case was not met
        before under this target and mode.

        Groups are found as the record dicts found them: by the target's endpoint and model (absent
        or null alike) and the mode, else by label and mode.
        """
        info = self._info(rec.case)
        if group is None:
            target = rec.target.as_dict()
            mode = rec.mode
            fast = (target.get("endpoint"), target.get("model"), mode)
            group = self._index.get(fast)
            if group is None:
                label = (label_of(target), str(mode))
                group = self.groups.get(label)
                if group is None:
                    group = self.groups[label] = GroupState.of(target)
                    group.first = self.line
                self._index[fast] = group
            # An absent endpoint or model: found by the record's own key from now on.
            self._index[rec.target.endpoint, rec.target.model, mode] = group
        case = group.cases.get(rec.case_id)  # met before under another key of the same group
        if case is None:
            case = group.cases[rec.case_id] = CaseState(info, self.line)
        return group, case

    def parity_missed(self, manifest: Manifest, wanted: set[str] | None) -> bool:
        """Whether stream parity is reported (both its modes among the manifest's and the records')
        but this accumulator was made without keeping what it compares (``parity=False``): fold
        the records again with it."""
        return not self._parity and needs_parity(manifest, wanted, self.groups)

    def finish(self, manifest: Manifest, read: int, wanted: set[str] | None) -> RunMetrics:
        """Build the metrics of the records folded in, ``read`` lines read; ``wanted`` restricts
        the manifest's modes (None: all of them). The per-case state is released."""
        return finish_parts(manifest, [self.part(read)], wanted, repairs=self.repairs)

    def part(self, read: int) -> RunPart:
        """What the records folded in add up to (:class:`~fcbench.metrics.partial.RunPart`), ``read``
        lines read; the per-case state is released as it is summarised."""
        parity: dict[str, ParityPart] = {}
        for label, mode in self.groups:
            if mode == PARITY_MODES[1] and (label, PARITY_MODES[0]) in self.groups:
                parity[label] = self._stream_parity(label)
        groups: dict[tuple[str, str], tuple[GroupState, CaseTotals]] = {}
        for key, group in self.groups.items():
            group.count()
            groups[key] = (group, settle_cases(group))
        self.groups = {}
        self._index = {}
        return RunPart(read, groups, parity, self.damaged)

    def _stream_parity(self, label: str) -> ParityPart:
        """The stream parity of one target over the cases folded in (both modes met)."""
        first, second = (self.groups[label, m].cases for m in PARITY_MODES)
        found = ParityPart()
        for case_id in sorted(set(first) & set(second)):
            a = first[case_id].kept()
            b = second[case_id].kept()
            repeats = sorted(set(a) & set(b))
            differing = [r for r in repeats if not same_outcome(a[r], b[r])]
            found.total += len(repeats)
            found.same += len(repeats) - len(differing)
            if differing:
                found.differences.append(
                    ParityDifference(
                        case_id=case_id,
                        differing=Rate(n=len(differing), d=len(repeats)),
                        repeats=differing,
                        selection=[a[r][0].decision_text for r in differing],
                        stream=[b[r][0].decision_text for r in differing],
                    )
                )
        return found


def keeps_parity(manifest: Manifest, wanted: set[str] | None) -> bool:
    """Whether a pass keeps what stream parity compares from the start: when the manifest alone
    reports it (else it is hardly ever reported: see :meth:`RunAccumulator.parity_missed`)."""
    return needs_parity(manifest, wanted, ())


def needs_parity(manifest: Manifest, wanted: set[str] | None, found: Iterable[tuple[str, str]]) -> bool:
    """Whether stream parity is reported: both its modes among the reported ones (the manifest's,
    restricted to ``wanted``, and the modes of the (target, mode) groups ``found`` in the records)."""
    modes = {m for m in manifest.modes if wanted is None or m in wanted} | {mode for _, mode in found}
    return all(m in modes for m in PARITY_MODES)


def finish_parts(
    manifest: Manifest, parts: list[RunPart], wanted: set[str] | None, *, repairs: bool = False
) -> RunMetrics:
    """The metrics of a run from what its parts added up to (every record of a case in one part);
    ``wanted`` restricts the manifest's modes (None: all of them).

    Targets come in manifest order (every target x mode, observed or not), then any target or
    mode found only in the records, in the order they were first met.
    """
    merged = merge_parts(parts)
    modes = [m for m in manifest.modes if wanted is None or m in wanted]
    targets: dict[str, PinnedTarget] = {}
    for t in manifest.targets:
        targets.setdefault(t.ident, t)
    ordered = [(label, m) for label in targets for m in modes]
    found = sorted(merged.groups, key=lambda key: merged.groups[key][0].first)
    ordered += [k for k in found if k not in ordered]
    per_group_planned = manifest.planned / max(1, len(manifest.targets) * len(manifest.modes))
    out: list[TargetMetrics] = []
    cases: list[CaseGroup] = []
    parity = needs_parity(manifest, wanted, merged.groups)
    for label, mode in ordered:
        group, totals = merged.groups.get((label, mode)) or _unobserved(targets[label])
        known = label in targets and mode in manifest.modes
        if manifest.planned_by:
            planned = max(manifest.planned_by.get(label, {}).get(mode, 0), group.observed)
        else:
            planned = max(round(per_group_planned) if known else 0, group.observed)
        named = targets[label].shown_name if label in targets else label
        update: dict[str, Any] = {"name": named}
        if mode == PARITY_MODES[1] and parity:
            same = merged.parity.get(label) or ParityPart()
            update["stream_parity"] = Rate(n=same.same, d=same.total)
            update["stream_parity_differences"] = same.differences
        metrics, rows = target_metrics(label, mode, planned, group, totals, repairs=repairs)
        out.append(metrics.model_copy(update=update))
        cases.append(rows)
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
    return RunMetrics(
        run=info,
        records_read=merged.read,
        damaged_lines=merged.damaged,
        targets=out,
        cases=CaseSummaries(cases),
    )


def _spend(group: GroupState, rec: RecordView, accepted: bool) -> None:
    """Count the tokens and cost of every record, duplicates included: every request was billed."""
    usage = rec.usage
    spend = (
        (accepted, None, None, None, None)
        if usage is None
        else (
            accepted,
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_input_tokens,
            usage.cache_creation_input_tokens,
        )
    )
    spent = group.usage
    spent[spend] = spent.get(spend, 0) + 1
    cost = rec.cost_usd
    if cost.__class__ is float:
        if cost:  # adding 0.0 changes nothing
            group.cost.add(cost)
    elif isinstance(cost, int | float):
        group.cost.add(float(cost))
    elif accepted:
        group.cost_unknown += 1


def _unobserved(target: PinnedTarget) -> tuple[GroupState, CaseTotals]:
    """The state of a target and mode no record was met of."""
    group = GroupState(endpoint=target.endpoint, dialect=target.dialect, model=target.model)
    group.count()
    return group, CaseTotals()


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


def _undo_error(group: GroupState, case: CaseState, prior: tuple[str, bool, tuple[str, ...]]) -> None:
    """Forget an earlier error observation that a later record of the same key replaces."""
    code, _, codes = prior
    _count_anomalies(group, case, codes, -1)
    group.provider_errors[code] -= 1
    if not group.provider_errors[code]:
        del group.provider_errors[code]
    case.errors -= 1


def _loads(text: bytes) -> Any:
    """A part of a line, decoded as the record dicts were; :class:`Undecodable` when it is not JSON."""
    try:
        return json.loads(text.decode())  # UTF-8: the line was checked, a dumped text is ASCII
    except (ValueError, RecursionError) as exc:
        raise Undecodable(str(exc)) from None


def _remember(memo: dict[bytes, Any], text: bytes, value: Any) -> Any:
    """Remember ``value`` under ``text`` (at most :data:`MEMO_ENTRIES` entries, then start over)."""
    if len(memo) >= MEMO_ENTRIES:
        memo.clear()
    memo[text] = value
    return value
