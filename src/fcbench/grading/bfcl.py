"""The ``bfcl`` grading profile: BFCL's AST checker rules, so pass rates are comparable with BFCL's.

Decisions use fcbench's taxonomy; ``passed`` follows BFCL:

* provider errors -> ``not_scored``; a refusal passes only when no call was expected;
* text (no call made) that writes a call (any syntax, offered or not) -> ``call_in_text``, which
  never passes, as under the strict profile (BFCL decodes prompted models' text into calls, so
  such a text is a call of the right shape in the wrong channel, never an abstention);
* names are compared as BFCL spelled them: both the call's and the expectation's names are
  mapped through the case's ``name_map`` (wire-legal name -> original) before comparing;
* ``tool``: exactly one call (more -> ``extra_calls``), of the expected function (else
  ``wrong_tool``), whose arguments satisfy :func:`fcbench.grading.bfcl_rules.check_arguments`;
* ``tools``: exactly as many calls as expected (fewer -> ``missed_call``, more ->
  ``extra_calls``); with ``order: any`` each expected call, in order, takes the first
  still-unmatched call that satisfies it (BFCL's one-to-one matching); ``order: strict`` pairs
  them by position;
* ``text`` and ``clarification``: passes when the model made no call it could decode (BFCL's
  irrelevance rule: a call whose arguments do not parse counts as no call);
* JSON Schema validity is reported (``schema_valid``, ``schema_errors``) but does not decide
  ``passed``: BFCL checks only the rules above; ``tolerant`` keys of an assertion are strict here
  (BFCL has no tolerance), and ``params_match`` is left null.

The ``bfcl_prompt`` profile (:func:`grade_bfcl_prompt`) scores a model run as BFCL runs a
prompted model: its text is the answer. A text that is a call list in BFCL's prompt format
(``[f(a=1), g(b=2)]``, or one call, once surrounding backticks, spaces and newlines are stripped
as BFCL's decoder strips them) is read by the one text-call extractor
(:func:`fcbench.contract.text_calls.calls_in_text`, literals only) into those calls, which the
rules above then score; any other text is no call (BFCL's decoder fails on it, which the
irrelevance rule counts as no call). Real calls are scored as under ``bfcl``.

The possible answer is rebuilt from the case's expectation: an exact object or
``requiredEquals`` gives one accepted value per key, ``oneOf`` several, an ``optional`` key gets
``""`` plus its ``constraints.enum`` values (any value when there is no enum); keys named
nowhere are not accepted. Accepted objects of ``object`` parameters are compared key by key
(BFCL's dict rule).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fcbench.contract import ProviderErrorOutcome, RefusalOutcome, TextOutcome, ToolCall, ToolCallsOutcome
from fcbench.grading.bfcl_rules import CallProblems, check_arguments, item_type, python_type
from fcbench.grading.calls import check_schema
from fcbench.grading.inputs import CallSpec, GradeInput
from fcbench.grading.repairs import calls_from_text
from fcbench.grading.strict import written_call_judgement
from fcbench.grading.text import given_text, read_text
from fcbench.grading.verdict import RIGHT_DECISIONS, Decision, Verdict, WrongValue
from fcbench.suite.models import ExpectTools


def _lift(value: Any, parameter: Mapping[str, Any]) -> Any:
    """A concrete accepted value in BFCL's answer form (objects become per-key lists)."""
    if python_type(parameter) is dict and isinstance(value, Mapping):
        return {key: [item] for key, item in value.items()}
    if item_type(parameter) is dict and isinstance(value, list):
        return [{k: [v] for k, v in item.items()} if isinstance(item, Mapping) else item for item in value]
    return value


def possible_answer(spec: CallSpec, parameters: Mapping[str, Any]) -> dict[str, list[Any] | None] | None:
    """The BFCL possible answer equivalent to one expected call (None: any arguments)."""
    properties = parameters.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    accepted: dict[str, list[Any] | None] = {}
    if spec.arguments.exact is not None:
        accepted = {key: [value] for key, value in spec.arguments.exact.items()}
    elif spec.arguments.assertion is not None:
        assertion = spec.arguments.assertion
        for key in [*assertion.optional, *assertion.constraints]:
            constraint = assertion.constraints.get(key)
            enum = constraint.enum if constraint is not None else None
            accepted[key] = None if enum is None else [*enum, ""]
        accepted.update({key: list(values) for key, values in assertion.oneOf.items()})
        accepted.update({key: [value] for key, value in assertion.requiredEquals.items()})
        for key in assertion.forbidden:
            accepted.pop(key, None)
    else:
        return None
    return {
        key: None if values is None else [_lift(v, properties.get(key) or {}) for v in values]
        for key, values in accepted.items()
    }


@dataclass
class _Judgement:
    decision: Decision
    checks: list[tuple[int, CallProblems]] = field(default_factory=list)
    """``(actual call index, problems)`` for the calls whose arguments were compared."""
    reasons: list[str] = field(default_factory=list)
    failed: bool = False
    """A rule failed that is not an argument problem (wrong count, no match)."""


class _Grader:
    """Checks of one observation: name mapping, per-call BFCL checks, and the decision rules."""

    def __init__(self, inp: GradeInput) -> None:
        self.inp = inp
        self.names = dict(inp.case.name_map or {})

    def original(self, name: str) -> str:
        return self.names.get(name, name)

    def same_function(self, call: ToolCall, spec: CallSpec) -> bool:
        return self.original(call.name) == self.original(spec.name)

    def check(self, call: ToolCall, spec: CallSpec) -> CallProblems:
        parameters = self.inp.tools[spec.name].parameters
        if call.parse_error is not None:
            problems = CallProblems()
            problems.reasons.append(f"arguments did not parse: {call.parse_error}")
            return problems
        return check_arguments(call.arguments, parameters, possible_answer(spec, parameters))

    def matches(self, call: ToolCall, spec: CallSpec) -> bool:
        return self.same_function(call, spec) and self.check(call, spec).ok


def _clarifies(grader: _Grader, text: str | None) -> bool:
    return read_text(text, given_text(grader.inp.case)).clarifies


def _text_instead(grader: _Grader, text: str | None, names: Sequence[str]) -> _Judgement:
    wanted = ", ".join(names)
    if _clarifies(grader, text):
        return _Judgement(
            "unnecessary_clarification", reasons=[f"asked a question instead of calling {wanted}"]
        )
    return _Judgement("missed_call", reasons=[f"answered in text; expected a call to {wanted}"])


def _judge_tool(grader: _Grader, calls: Sequence[ToolCall], text: str | None) -> _Judgement:
    spec = grader.inp.calls[0]
    if not calls:
        return _text_instead(grader, text, [spec.name])
    if len(calls) > 1:
        return _Judgement(
            "extra_calls", reasons=[f"wrong number of functions: {len(calls)} calls, expected 1"]
        )
    call = calls[0]
    if not grader.same_function(call, spec):
        reason = f"called {grader.original(call.name)}; expected {grader.original(spec.name)}"
        return _Judgement("wrong_tool", reasons=[reason])
    return _Judgement("correct_call", checks=[(0, grader.check(call, spec))])


def _judge_tools(grader: _Grader, calls: Sequence[ToolCall], text: str | None) -> _Judgement:
    specs = grader.inp.calls
    if not calls:
        return _text_instead(grader, text, [spec.name for spec in specs])
    if len(calls) != len(specs):
        decision: Decision = "missed_call" if len(calls) < len(specs) else "extra_calls"
        return _Judgement(
            decision, reasons=[f"wrong number of functions: {len(calls)} calls, expected {len(specs)}"]
        )
    case_expected = grader.inp.case.expected
    strict_order = isinstance(case_expected, ExpectTools) and case_expected.order == "strict"
    pairs = list(enumerate(range(len(calls)))) if strict_order else _match_any_order(grader, calls)
    judgement = _Judgement("correct_call")
    matched = {i for i, _ in pairs}
    for i, j in pairs:
        if grader.same_function(calls[j], specs[i]):
            judgement.checks.append((j, grader.check(calls[j], specs[i])))
        else:
            judgement.decision = "wrong_tool"
            expected_name = grader.original(specs[i].name)
            judgement.reasons.append(
                f"call {j} is {grader.original(calls[j].name)}; expected {expected_name}"
            )
    unmatched = [i for i in range(len(specs)) if i not in matched]
    if unmatched:
        judgement.failed = True
        free = [j for j in range(len(calls)) if j not in {j for _, j in pairs}]
        for i in unmatched:
            judgement.reasons.append(f"no call matches expected call {i} ({grader.original(specs[i].name)})")
            same = [j for j in free if grader.same_function(calls[j], specs[i])]
            if same:
                judgement.checks.append((same[0], grader.check(calls[same[0]], specs[i])))
            else:
                judgement.decision = "wrong_tool"
    return judgement


def _match_any_order(grader: _Grader, calls: Sequence[ToolCall]) -> list[tuple[int, int]]:
    """BFCL's matching: each expected call in turn takes the first unmatched call satisfying it."""
    used: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for i, spec in enumerate(grader.inp.calls):
        for j, call in enumerate(calls):
            if j not in used and grader.matches(call, spec):
                used.add(j)
                pairs.append((i, j))
                break
    return pairs


def _judge_no_call(grader: _Grader, calls: Sequence[ToolCall], text: str | None) -> _Judgement:
    if calls and all(call.parse_error is None for call in calls):
        names = ", ".join(call.name for call in calls)
        return _Judgement("unexpected_call", reasons=[f"called {names}; expected no call"], failed=True)
    notes = ["the calls did not decode, which BFCL counts as no call"] if calls else []
    kind = grader.inp.case.expected.kind
    asked = kind == "clarification" and _clarifies(grader, text)
    decision: Decision = "correct_clarification" if asked else "correct_abstention"
    return _Judgement(decision, reasons=notes)


_JUDGES = {
    "tool": _judge_tool,
    "tools": _judge_tools,
    "text": _judge_no_call,
    "clarification": _judge_no_call,
}


def _verdict_fields(judgement: _Judgement, several: bool) -> dict[str, Any]:
    missing: list[str] = []
    unexpected: list[str] = []
    wrong: list[WrongValue] = []
    reasons = list(judgement.reasons)
    for j, problems in judgement.checks:
        prefix = f"calls[{j}]." if several else ""
        missing += [prefix + key for key in problems.missing]
        unexpected += [prefix + key for key in problems.unexpected]
        wrong += [WrongValue(key=prefix + key, expected=exp, actual=act) for key, exp, act in problems.wrong]
        reasons += [prefix + reason if several else reason for reason in problems.reasons]
    exact = all(problems.ok for _, problems in judgement.checks) if judgement.checks else None
    return {"missing": missing, "unexpected": unexpected, "wrong": wrong, "reasons": reasons, "exact": exact}


PROMPT_FORMAT = re.compile(r"\[?\s*[A-Za-z_][A-Za-z0-9_.]*\(")
"""How a text in BFCL's prompt format starts (once BFCL's decoder stripped it): a call list or a call."""
PROMPT_STRIP = "`\n "
"""The characters BFCL's decoder strips from both ends of a prompted model's text."""


def prompt_format_calls(inp: GradeInput, text: str) -> tuple[ToolCall, ...]:
    """The calls a text in BFCL's prompt format holds (none when it is not in that format)."""
    stripped = text.strip(PROMPT_STRIP)
    if not PROMPT_FORMAT.match(stripped):
        return ()
    return tuple(calls_from_text(inp, stripped))


def _early_verdict(inp: GradeInput) -> Verdict | None:
    """The verdict of a provider error or a refusal (the same under both BFCL profiles), else None."""
    outcome = inp.outcome
    kind = inp.case.expected.kind
    if isinstance(outcome, ProviderErrorOutcome):
        status = f" (HTTP {outcome.status})" if outcome.status is not None else ""
        reason = f"not scored: provider error {outcome.code}{status}: {outcome.message}"
        return Verdict(
            passed=False, decision="not_scored", anomalies=list(inp.anomalies), reasons=[reason[:300]]
        )
    if isinstance(outcome, RefusalOutcome):
        no_call = kind in ("text", "clarification")
        return Verdict(
            passed=no_call,
            decision="refusal",
            anomalies=list(inp.anomalies),
            reasons=[] if no_call else [f"refused; expected {kind}"],
        )
    return None


def _scored(inp: GradeInput, calls: tuple[ToolCall, ...], text: str | None, notes: list[str]) -> Verdict:
    """The verdict of ``calls`` (and ``text``) by the BFCL rules (see the module docstring)."""
    kind = inp.case.expected.kind
    judgement = _JUDGES[kind](_Grader(inp), calls, text)
    fields = _verdict_fields(judgement, several=kind == "tools")
    schema = check_schema(calls, inp.tools, inp.validators)
    anomalies = list(inp.anomalies) + [code for code in schema.anomalies if code not in inp.anomalies]
    right = judgement.decision in RIGHT_DECISIONS
    return Verdict(
        passed=right and not judgement.failed and fields["exact"] is not False,
        decision=judgement.decision,
        schema_valid=schema.valid,
        schema_errors=schema.errors,
        semantic_exact=fields["exact"],
        missing=fields["missing"],
        wrong=fields["wrong"],
        unexpected=fields["unexpected"],
        anomalies=anomalies,
        reasons=[*notes, *fields["reasons"]],
        calls_scored=len(judgement.checks),
    )


def grade_bfcl(inp: GradeInput) -> Verdict:
    """Grade one observation by BFCL's AST checker rules (see the module docstring)."""
    early = _early_verdict(inp)
    if early is not None:
        return early
    outcome = inp.outcome
    if not isinstance(outcome, ToolCallsOutcome | TextOutcome):  # handled by _early_verdict
        raise TypeError(f"unexpected outcome kind {outcome.kind}")
    calls = tuple(outcome.calls) if isinstance(outcome, ToolCallsOutcome) else ()
    written = None if calls else written_call_judgement(inp, outcome.text)
    if written is not None:
        noticed = [code for code in written.anomalies if code not in inp.anomalies]
        return Verdict(
            passed=False,
            decision=written.decision,
            anomalies=[*inp.anomalies, *noticed],
            reasons=written.reasons,
        )
    return _scored(inp, calls, outcome.text, [])


def grade_bfcl_prompt(inp: GradeInput) -> Verdict:
    """Grade one observation as BFCL grades a prompted model: a text in BFCL's prompt format is
    decoded into its calls, any other text is no call (see the module docstring)."""
    early = _early_verdict(inp)
    if early is not None:
        return early
    outcome = inp.outcome
    if not isinstance(outcome, TextOutcome):
        return grade_bfcl(inp)
    calls = prompt_format_calls(inp, outcome.text)
    count = len(calls)
    note = (
        f"read {count} call{'' if count == 1 else 's'} from the text in BFCL's prompt format"
        if calls
        else "the text is no call list in BFCL's prompt format: no call, as BFCL's decoder reads it"
    )
    return _scored(inp, calls, None if calls else outcome.text, [note])


__all__ = ["PROMPT_FORMAT", "grade_bfcl", "grade_bfcl_prompt", "possible_answer", "prompt_format_calls"]
