"""Unexpected writes: calls of write tools that the case did not expect (``verdict.unexpected_writes``).

A call the case did not ask for is a wrong decision whatever the tool; when the tool writes
(cancels, refunds, sends) it would have changed something in a real system, so reports show it
apart, as more severe than an unexpected read. A tool writes when the offered tool says
``side_effect: write``, and only then: its name never decides (a user's read-only tool named
``create_refund`` is a read), and the built-in suites declare ``write`` on their write tools. The
fake tools' executor reads the same field (:meth:`fcbench.fake_tools.FakeToolbox.writes`).

Which calls were not expected does not depend on the profile's decision: the expected calls'
names are matched one to one with the calls made (in call order, each expected name used once),
and every call left over is unexpected. So a case expecting text or a clarification expects no
call (``unexpected_call``, ``guessed_missing``: every call), a call of another tool is left over
(``wrong_tool``), and so is a second refund where one was expected (``extra_calls``). A right
decision has none. A call written as text was never made, so it is never a write.

A **duplicate side effect** (:func:`duplicate_writes`) is a retry of a write whose result was lost
(tool fault ``lost_result``: the write committed, the model was answered with a timeout) under
a new call id with the same canonical arguments (:func:`fcbench.grading.key.call_key`): a real
system would have refunded or cancelled twice. It is as severe as an unexpected write and
counted with them. A retry under the same call id is the idempotent replay the fakes answer
with the first result, so it is no duplicate; a status check before deciding is what a careful
application does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence

from fcbench.contract import Tool, ToolCall, ToolCallsOutcome
from fcbench.grading.inputs import GradeInput
from fcbench.grading.key import call_key
from fcbench.grading.transcript import ExecutedCall
from fcbench.grading.verdict import RIGHT_DECISIONS, Verdict


def write_tools(tools: Mapping[str, Tool] | Iterable[Tool]) -> frozenset[str]:
    """Names of the tools that write (:attr:`fcbench.contract.Tool.writes`: ``side_effect: write``)."""
    found = tools.values() if isinstance(tools, Mapping) else tools
    return frozenset(tool.name for tool in found if tool.writes)


def unexpected_calls(expected: Iterable[str], calls: Iterable[ToolCall]) -> list[ToolCall]:
    """The calls left over once each expected name is matched with one call of that name, in order."""
    left = Counter(expected)
    extra: list[ToolCall] = []
    for call in calls:
        if left[call.name] > 0:
            left[call.name] -= 1
        else:
            extra.append(call)
    return extra


def unexpected_write_names(
    expected: Iterable[str], calls: Iterable[ToolCall], writes: Collection[str]
) -> list[str]:
    """The tool name of each unexpected call (:func:`unexpected_calls`) of a write tool, in call order."""
    return [call.name for call in unexpected_calls(expected, calls) if call.name in writes]


def with_unexpected_writes(inp: GradeInput, verdict: Verdict) -> Verdict:
    """``verdict`` with ``unexpected_writes`` set from the observation's calls (unchanged when none)."""
    outcome = inp.outcome
    if verdict.decision in RIGHT_DECISIONS or not isinstance(outcome, ToolCallsOutcome) or not outcome.calls:
        return verdict
    names = unexpected_write_names((spec.name for spec in inp.calls), outcome.calls, write_tools(inp.tools))
    if not names:
        return verdict
    return verdict.model_copy(update={"unexpected_writes": names})


def duplicate_writes(calls: Sequence[ExecutedCall]) -> list[str]:
    """The tool name of each call (in order) that repeats a write whose result was lost: the same
    tool and canonical arguments as that write, under another call id, made after it."""
    lost: dict[str, str | None] = {}
    found: list[str] = []
    for executed in calls:
        key = call_key(executed.call)
        if key in lost and executed.result_id != lost[key]:
            found.append(executed.call.name)
        if executed.lost_result:
            lost.setdefault(key, executed.result_id)
    return found


__all__ = [
    "duplicate_writes",
    "unexpected_calls",
    "unexpected_write_names",
    "with_unexpected_writes",
    "write_tools",
]
