"""Per-call checks: schema validity against the offered tool, and pairing calls with expectations.

Schema validity is judged on the arguments exactly as produced (no coercion, no defaults, no
removal). A call whose arguments did not parse, or that names a tool that was not offered, is
schema-invalid; the grader also records an anomaly code for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from fcbench.contract import ANOMALY_CODES, Tool, ToolCall
from fcbench.schema.validate import ValidatorCache

MAX_ERROR_CHARS = 300
"""Schema error messages quote the offending value; longer messages are cut to this length."""

EXHAUSTIVE_MATCH_LIMIT = 10
"""Up to this many calls, pairing with expected calls is optimal; beyond it, greedy."""


@dataclass
class SchemaCheck:
    """Schema validity of all the calls of one outcome."""

    valid: bool | None = None
    """None when there were no calls."""
    errors: list[str] = field(default_factory=list)
    anomalies: list[str] = field(default_factory=list)
    """Codes the grader noticed (from :data:`fcbench.contract.ANOMALY_CODES`): ``tool_not_offered``,
    ``unparseable_arguments``, ``arguments_not_object``; the adapter usually noticed them first,
    and each code is recorded once."""


def _cut(message: str) -> str:
    return message if len(message) <= MAX_ERROR_CHARS else message[: MAX_ERROR_CHARS - 3] + "..."


def _note(check: SchemaCheck, code: str) -> None:
    assert code in ANOMALY_CODES, code
    if code not in check.anomalies:
        check.anomalies.append(code)


def check_schema(
    calls: Sequence[ToolCall], tools: Mapping[str, Tool], validators: ValidatorCache
) -> SchemaCheck:
    """Validate every call's arguments against the schema of the tool it names, as produced."""
    check = SchemaCheck()
    if not calls:
        return check
    for position, call in enumerate(calls):
        prefix = f"call {position} ({call.name}): " if len(calls) > 1 else ""
        tool = tools.get(call.name)
        if tool is None:
            check.errors.append(_cut(f"{prefix}tool {call.name!r} was not offered"))
            _note(check, "tool_not_offered")
        if call.parse_error is not None:
            check.errors.append(_cut(f"{prefix}arguments did not parse as JSON: {call.parse_error}"))
            _note(check, "unparseable_arguments")
            continue
        if not isinstance(call.arguments, dict):
            _note(check, "arguments_not_object")
        if tool is None:
            continue
        try:
            result = validators.validate(tool.parameters, call.arguments)
        except RecursionError:
            check.errors.append(f"{prefix}arguments are too deeply nested to validate")
            continue
        check.errors.extend(_cut(prefix + message) for message in result.errors)
    check.valid = not check.errors
    return check


PairScore = Callable[[int, int], int]
"""Score of pairing expected call ``i`` with actual call ``j`` (higher is better, always positive)."""


def _pair_strict(expected: int, actual: int) -> list[tuple[int, int]]:
    return [(i, i) for i in range(min(expected, actual))]


def _pair_greedy(expected: int, actual: int, score: PairScore) -> list[tuple[int, int]]:
    scored = [(score(i, j), i, j) for i in range(expected) for j in range(actual)]
    ranked = sorted(scored, key=lambda t: (-t[0], t[1], t[2]))
    used_i: set[int] = set()
    used_j: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for _, i, j in ranked:
        if i not in used_i and j not in used_j:
            used_i.add(i)
            used_j.add(j)
            pairs.append((i, j))
    return sorted(pairs)


def _pair_optimal(expected: int, actual: int, score: PairScore) -> list[tuple[int, int]]:
    """Maximum-total-score one-to-one pairing by dynamic programming over subsets of actual calls."""
    table = [[score(i, j) for j in range(actual)] for i in range(expected)]
    best: dict[int, tuple[int, tuple[tuple[int, int], ...]]] = {0: (0, ())}
    for i in range(expected):
        nxt: dict[int, tuple[int, tuple[tuple[int, int], ...]]] = {}
        for used, (total, pairs) in best.items():
            options = [(used, total, pairs)]
            options += [
                (used | (1 << j), total + table[i][j], (*pairs, (i, j)))
                for j in range(actual)
                if not used & (1 << j)
            ]
            for mask, value, chosen in options:
                if mask not in nxt or value > nxt[mask][0]:
                    nxt[mask] = (value, chosen)
        best = nxt
    _, pairs = max(best.values(), key=lambda entry: entry[0])
    return list(pairs)


def pair_calls(expected: int, actual: int, score: PairScore, *, strict_order: bool) -> list[tuple[int, int]]:
    """Pair expected calls with actual calls one-to-one, as ``(expected_index, actual_index)``.

    ``strict_order`` pairs them position by position; otherwise the pairing maximises the total
    ``score`` (optimal up to :data:`EXHAUSTIVE_MATCH_LIMIT` calls, greedy beyond). As every pair
    scores above zero, ``min(expected, actual)`` pairs are always made.
    """
    if strict_order:
        return _pair_strict(expected, actual)
    if actual <= EXHAUSTIVE_MATCH_LIMIT:
        return sorted(_pair_optimal(expected, actual, score))
    return _pair_greedy(expected, actual, score)
