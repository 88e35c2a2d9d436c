"""Property: the one "same outcome" key is what stability, compare and recovery scoring use.

Random calls with nested arguments are rewritten the ways a provider may write the same outcome
(calls in another order, object keys in another order, ``750`` as ``750.0``); every rewrite must
be the same outcome for the grader's key, for the stability metric (and so for ``fcbench
compare``, which compares these metrics), and for recovery's "re-sent the same failing call".
A rewrite that changes a value must be a different outcome everywhere.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from records_builder import RunBuilder, call_outcome, verdict

from fcbench.contract import ToolCall, canonical_json
from fcbench.grading import normalised_outcome_key
from fcbench.grading.jsonvalues import json_equal
from fcbench.grading.recovery import repeated_failures
from fcbench.grading.transcript import ExecutedCall
from fcbench.metrics import compute_metrics
from fcbench.report.compare import compare_runs

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(max_size=6),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(min_size=1, max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
arguments = st.dictionaries(st.text(min_size=1, max_size=5), json_values, min_size=1, max_size=4)
calls = st.lists(st.tuples(st.sampled_from(["f", "g", "h"]), arguments), min_size=1, max_size=3)


def same_written_differently(value: Any, rng: random.Random) -> Any:
    """``value`` with object keys reordered and integral numbers written as floats (or back)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return float(value) if abs(value) < 2**53 and rng.random() < 0.7 else value
    if isinstance(value, float):
        return int(value) if value.is_integer() and rng.random() < 0.5 else value
    if isinstance(value, list):
        return [same_written_differently(v, rng) for v in value]
    items = list(value.items())
    rng.shuffle(items)
    return {k: same_written_differently(v, rng) for k, v in items}


def rewritten(pairs: list[tuple[str, Any]], seed: int) -> list[tuple[str, Any]]:
    rng = random.Random(seed)
    out = [(name, same_written_differently(args, rng)) for name, args in pairs]
    rng.shuffle(out)
    return out


def changed(pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The same calls with one argument given a value no generated value equals."""
    name, args = pairs[0]
    first = sorted(args)[0]
    return [(name, {**args, first: {"changed": [args[first]]}}), *pairs[1:]]


def stability(tmp: Path, outcomes: list[dict[str, Any]]) -> tuple[int, int]:
    builder = RunBuilder(tmp, repeats=len(outcomes))
    for repeat, outcome in enumerate(outcomes):
        builder.add("case-1", outcome, verdict("correct_call"), repeat=repeat)
    target = compute_metrics(builder.write()).targets[0]
    return target.stability.n, target.stability.d


def failing(name: str, args: Any) -> ExecutedCall:
    call = ToolCall(id=None, name=name, arguments=args, raw_arguments=canonical_json(args))
    return ExecutedCall(call, None, {"ok": False, "error": {"code": "NOT_FOUND", "message": "no"}})


SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SETTINGS
@given(pairs=calls, seed=st.integers(0, 2**16))
def test_rewrites_are_the_same_outcome_for_the_key_and_the_grader(
    pairs: list[tuple[str, Any]], seed: int
) -> None:
    again = rewritten(pairs, seed)
    key = normalised_outcome_key(call_outcome(*pairs), "extra_calls")
    assert normalised_outcome_key(call_outcome(*again), "extra_calls") == key
    assert normalised_outcome_key(call_outcome(*changed(pairs)), "extra_calls") != key
    for _, args in pairs:
        assert json_equal(args, same_written_differently(args, random.Random(seed)))


@SETTINGS
@given(pairs=calls, seed=st.integers(0, 2**16))
def test_stability_and_compare_use_the_key(
    tmp_path_factory: Any, pairs: list[tuple[str, Any]], seed: int
) -> None:
    same = [
        call_outcome(*pairs),
        call_outcome(*rewritten(pairs, seed)),
        call_outcome(*rewritten(pairs, seed + 1)),
    ]
    assert stability(tmp_path_factory.mktemp("same"), same) == (3, 3)
    one_differs = [same[0], same[1], call_outcome(*changed(pairs))]
    assert stability(tmp_path_factory.mktemp("differs"), one_differs) == (2, 3)
    # compare reads the same metrics: a run written differently is no change in stability
    base = tmp_path_factory.mktemp("base")
    new = tmp_path_factory.mktemp("new")
    for folder, outcomes in ((base, same), (new, [call_outcome(*rewritten(pairs, seed + 2))] * 3)):
        builder = RunBuilder(folder, repeats=3)
        for repeat, outcome in enumerate(outcomes):
            builder.add("case-1", outcome, verdict("correct_call"), repeat=repeat)
        builder.write()
    comparison = compare_runs(compute_metrics(base), compute_metrics(new))
    target = comparison.targets[0]
    stab = {d.metric: d for d in target.deltas}["stability"]
    assert (stab.base.n, stab.base.d, stab.new.n, stab.new.d) == (3, 3, 3, 3)


@SETTINGS
@given(pairs=calls, seed=st.integers(0, 2**16))
def test_recovery_counts_a_rewritten_failing_call_as_the_same_call(
    pairs: list[tuple[str, Any]], seed: int
) -> None:
    name, args = pairs[0]
    again = same_written_differently(args, random.Random(seed))
    assert repeated_failures([failing(name, args), failing(name, again)]) == 1
    assert repeated_failures([failing(name, args), failing(name, changed(pairs)[0][1])]) == 0
