"""The ``strict`` grading profile: fcbench's own rules.

Decision rules, by what the case expects (refusals and provider errors are decided first):

* any expectation, ``provider_error`` outcome -> ``not_scored`` (coverage loss, never a failure);
* any expectation, ``refusal`` outcome -> ``refusal``, which passes only when text was expected
  (declining is then a correct abstention);
* any expectation, text (no call made) that writes a call in any syntax (found by the grader
  itself, :func:`fcbench.grading.text.written_calls`, or recorded by the adapter as
  ``json_call_in_text``) -> ``call_in_text``, which never passes: it is no abstention, no
  clarification and no call (scoring the written call would be a repair); a written call of a
  tool that was not offered adds the ``tool_not_offered`` anomaly and names the tool;
* ``tool``: one call of the right name -> ``correct_call``; calls none of which is of the right
  tool -> ``wrong_tool``; several calls -> ``extra_calls`` (the best call of the right name is
  still graded); text that clarifies (asks, and asserts no value the user never gave) ->
  ``unnecessary_clarification``; other text -> ``missed_call``;
* ``tools``: calls paired one-to-one with the expected calls (``order: any``: the best pairing by
  name, then by arguments; ``order: strict``: position by position); the decision names the
  worst stage: a paired call of another name -> ``wrong_tool`` (a lone call of the wrong tool
  too), else fewer calls -> ``missed_call``, more -> ``extra_calls``, otherwise
  ``correct_call``; text as for ``tool``;
* ``text``: any text -> ``correct_abstention``; any call -> ``unexpected_call``;
* ``clarification``: text that asks something and asserts no value the conversation never gave
  is judged by what it asks for (:mod:`fcbench.grading.clarify`): a missing value ->
  ``correct_clarification``; only values the user gave -> ``unnecessary_clarification``;
  anything else -> ``wrong_clarification``; text stating a value for a missing argument ->
  ``guessed_missing``;
  text that asks nothing, or states other values never given (a price, a date, a status, an id,
  a number: an answer) -> ``missed_call``; a call that supplies a value for a missing argument ->
  ``guessed_missing``; any other call -> ``unexpected_call`` (:mod:`fcbench.grading.text`).

``passed`` requires a right decision, no schema failure and no semantic failure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from fcbench.contract import ProviderErrorOutcome, RefusalOutcome, TextOutcome, ToolCall, ToolCallsOutcome
from fcbench.grading.calls import check_schema, pair_calls
from fcbench.grading.clarify import judge_question
from fcbench.grading.inputs import CallSpec, GradeInput
from fcbench.grading.jsonvalues import short
from fcbench.grading.semantics import ArgumentReport, compare_arguments, error_count, merge_reports
from fcbench.grading.text import given_text, read_text, written_calls
from fcbench.grading.verdict import Decision, Verdict, decision_is_right
from fcbench.suite.models import ExpectClarification, ExpectTools

_NAME_WEIGHT = 1_000_000
_EXACT_WEIGHT = 1_000


@dataclass(frozen=True)
class Observed:
    """What the model did, reduced to what the decision rules look at."""

    calls: tuple[ToolCall, ...] = ()
    text: str | None = None


@dataclass
class Judgement:
    """A decision with the argument comparison behind it and the reasons to report."""

    decision: Decision
    report: ArgumentReport | None = None
    calls_scored: int = 0
    reasons: list[str] = field(default_factory=list)
    anomalies: list[str] = field(default_factory=list)
    """Anomaly codes the decision noticed (``tool_not_offered`` for a written call of such a tool)."""


def _names(calls: tuple[ToolCall, ...]) -> str:
    return ", ".join(call.name for call in calls)


def _text_instead_of_calls(inp: GradeInput, obs: Observed, expected: list[str]) -> Judgement:
    wanted = ", ".join(expected)
    if read_text(obs.text, given_text(inp.case)).clarifies:
        reason = f"asked a question instead of calling {wanted}"
        return Judgement("unnecessary_clarification", reasons=[reason])
    return Judgement("missed_call", reasons=[f"answered in text; expected a call to {wanted}"])


def _judge_tool(inp: GradeInput, obs: Observed) -> Judgement:
    spec = inp.calls[0]
    if not obs.calls:
        return _text_instead_of_calls(inp, obs, [spec.name])
    reports = [
        compare_arguments(spec.arguments, call.arguments) for call in obs.calls if call.name == spec.name
    ]
    best = min(reports, key=error_count) if reports else None
    if best is None:
        return Judgement("wrong_tool", reasons=[f"called {_names(obs.calls)}; expected {spec.name}"])
    if len(obs.calls) > 1:
        reasons = [f"made {len(obs.calls)} calls ({_names(obs.calls)}); expected one call to {spec.name}"]
        return Judgement("extra_calls", best, 1, reasons)
    return Judgement("correct_call", best, 1)


def _pair_score(specs: tuple[CallSpec, ...], calls: tuple[ToolCall, ...]) -> Callable[[int, int], int]:
    def score(i: int, j: int) -> int:
        if calls[j].name != specs[i].name:
            return 1
        report = compare_arguments(specs[i].arguments, calls[j].arguments)
        closeness = max(0, _EXACT_WEIGHT - 1 - error_count(report))
        return 1 + _NAME_WEIGHT + (_EXACT_WEIGHT if report.exact else 0) + closeness

    return score


def _judge_tools(inp: GradeInput, obs: Observed) -> Judgement:
    specs = inp.calls
    if not obs.calls:
        return _text_instead_of_calls(inp, obs, [spec.name for spec in specs])
    strict = isinstance(inp.case.expected, ExpectTools) and inp.case.expected.order == "strict"
    pairs = pair_calls(len(specs), len(obs.calls), _pair_score(specs, obs.calls), strict_order=strict)
    reports: list[ArgumentReport] = []
    misnamed: list[str] = []
    for i, j in pairs:
        call, spec = obs.calls[j], specs[i]
        if call.name == spec.name:
            reports.append(compare_arguments(spec.arguments, call.arguments, prefix=f"calls[{j}]."))
        else:
            misnamed.append(f"call {j} is {call.name}; expected {spec.name}")
    report = merge_reports(reports)
    paired_expected = {i for i, _ in pairs}
    paired_actual = {j for _, j in pairs}
    suffix = " (order is strict)" if strict else ""
    if misnamed:
        counted = (
            [] if len(obs.calls) == len(specs) else [f"made {len(obs.calls)} of {len(specs)} expected calls"]
        )
        return Judgement("wrong_tool", report, len(reports), [m + suffix for m in misnamed] + counted)
    if len(obs.calls) < len(specs):
        left = [specs[i].name for i in range(len(specs)) if i not in paired_expected]
        reasons = [f"made {len(obs.calls)} of {len(specs)} expected calls; not made: {', '.join(left)}"]
        return Judgement("missed_call", report, len(reports), reasons)
    if len(obs.calls) > len(specs):
        extra = [obs.calls[j].name for j in range(len(obs.calls)) if j not in paired_actual]
        reasons = [f"made {len(obs.calls)} calls; expected {len(specs)}; extra: {', '.join(extra)}"]
        return Judgement("extra_calls", report, len(reports), reasons)
    return Judgement("correct_call", report, len(reports))


def _judge_text(inp: GradeInput, obs: Observed) -> Judgement:
    if obs.calls:
        return Judgement("unexpected_call", reasons=[f"called {_names(obs.calls)}; expected no call"])
    return Judgement("correct_abstention")


def _guesses(expected: ExpectClarification, calls: tuple[ToolCall, ...]) -> list[str]:
    found: list[str] = []
    for position, call in enumerate(calls):
        if expected.name is not None and call.name != expected.name:
            continue
        if not isinstance(call.arguments, Mapping):
            continue
        for key in expected.missing:
            value = call.arguments.get(key)
            if value is None or (isinstance(value, str) and not value.strip()):
                continue
            found.append(f"call {position} ({call.name}) guessed {key} = {short(value)}")
    return found


def _judge_clarification(inp: GradeInput, obs: Observed) -> Judgement:
    expected = inp.case.expected
    if not isinstance(expected, ExpectClarification):  # the registry routes only clarifications here
        raise TypeError(f"expected a clarification, got {expected.kind}")
    wanted = ", ".join(expected.missing)
    if obs.calls:
        guesses = _guesses(expected, obs.calls)
        if guesses:
            return Judgement("guessed_missing", reasons=guesses)
        reason = f"called {_names(obs.calls)} instead of asking for {wanted}"
        return Judgement("unexpected_call", reasons=[reason])
    reading = read_text(obs.text, given_text(inp.case), expected.missing)
    if reading.guessed:
        return Judgement("guessed_missing", reasons=[f"the text guessed {g}" for g in reading.guessed])
    if not reading.asks:
        return Judgement("missed_call", reasons=[f"answered without asking for {wanted}"])
    if reading.asserted:
        values = ", ".join(reading.asserted)
        reason = f"asked, but stated values the user never gave ({values}): an answer, not a question"
        return Judgement("missed_call", reasons=[reason])
    topic = judge_question(reading.asking, obs.text or "", expected, inp.tools)
    return Judgement(topic.decision, reasons=list(topic.reasons))


_JUDGES: Mapping[str, Callable[[GradeInput, Observed], Judgement]] = {
    "tool": _judge_tool,
    "tools": _judge_tools,
    "text": _judge_text,
    "clarification": _judge_clarification,
}


def written_call_judgement(inp: GradeInput, text: str | None) -> Judgement | None:
    """``call_in_text`` when a text outcome writes a call (any syntax, any name), else None.

    Shared by the strict and BFCL profiles (a call written as text is not a call under either).
    A written call of a tool that was not offered is named as such, with ``tool_not_offered``.
    """
    offered = [*inp.tools, *(inp.case.name_map or {}).values()]
    names = written_calls(text, offered, inp.anomalies)
    if names is None:
        return None
    stray = [name for name in names if name not in offered]
    shown = ", ".join(f"{name} (not offered)" if name in stray else name for name in names)
    wrote = f"wrote a call to {shown} as text" if names else "wrote a call as text"
    expected = inp.case.expected
    if isinstance(expected, ExpectClarification):
        instead = f"expected a question asking for {', '.join(expected.missing)}"
    elif inp.calls:
        instead = f"expected a call to {', '.join(spec.name for spec in inp.calls)}"
    else:
        instead = "expected no call"
    anomalies = ["tool_not_offered"] if stray else []
    return Judgement(
        "call_in_text", reasons=[f"{wrote} instead of making it; {instead}"], anomalies=anomalies
    )


def _not_scored(outcome: ProviderErrorOutcome, anomalies: tuple[str, ...]) -> Verdict:
    status = f" (HTTP {outcome.status})" if outcome.status is not None else ""
    reason = f"not scored: provider error {outcome.code}{status}: {outcome.message}"
    return Verdict(passed=False, decision="not_scored", anomalies=list(anomalies), reasons=[reason[:300]])


def _observe(outcome: ToolCallsOutcome | TextOutcome) -> Observed:
    if isinstance(outcome, ToolCallsOutcome):
        return Observed(calls=tuple(outcome.calls), text=outcome.text)
    return Observed(text=outcome.text)


def grade_strict(inp: GradeInput) -> Verdict:
    """Grade one observation by fcbench's own rules (see the module docstring)."""
    outcome = inp.outcome
    if isinstance(outcome, ProviderErrorOutcome):
        return _not_scored(outcome, inp.anomalies)
    kind = inp.case.expected.kind
    if isinstance(outcome, RefusalOutcome):
        judgement = Judgement("refusal", reasons=[] if kind == "text" else [f"refused; expected {kind}"])
        obs = Observed(text=outcome.text)
    else:
        obs = _observe(outcome)
        judgement = (None if obs.calls else written_call_judgement(inp, obs.text)) or _JUDGES[kind](inp, obs)
    schema = check_schema(obs.calls, inp.tools, inp.validators)
    report = judgement.report
    reasons = list(judgement.reasons)
    if schema.valid is False:
        more = f" (+{len(schema.errors) - 1} more)" if len(schema.errors) > 1 else ""
        reasons.append(f"schema: {schema.errors[0]}{more}")
    if report is not None:
        reasons.extend(report.reasons)
    right = decision_is_right(judgement.decision, kind)
    noticed = [*judgement.anomalies, *schema.anomalies]
    anomalies = list(inp.anomalies) + [code for code in dict.fromkeys(noticed) if code not in inp.anomalies]
    return Verdict(
        passed=right and schema.valid is not False and (report is None or report.exact),
        decision=judgement.decision,
        schema_valid=schema.valid,
        schema_errors=schema.errors,
        semantic_exact=None if report is None else report.exact,
        params_match=None if report is None or not judgement.calls_scored else report.params_match,
        missing=[] if report is None else report.missing,
        wrong=[] if report is None else report.wrong,
        unexpected=[] if report is None else report.unexpected,
        anomalies=anomalies,
        reasons=reasons,
        calls_scored=judgement.calls_scored,
    )
