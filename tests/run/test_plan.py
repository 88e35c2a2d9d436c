"""Plan order, shards and case filters."""

from __future__ import annotations

import pytest

from fcbench.endpoints import BUILTIN_ENDPOINTS
from fcbench.errors import ConfigError
from fcbench.run.plan import Shard, Target, build_plan, select_cases
from fcbench.suite.models import Case


def _cases(n: int) -> list[Case]:
    return [
        Case.model_validate(
            {
                "id": f"c{i}",
                "prompt": "hi",
                "expected": {"kind": "text"},
                "category": "boundary" if i % 2 else "normal",
                "tags": ["even" if i % 2 == 0 else "odd"],
            }
        )
        for i in range(n)
    ]


def test_plan_is_target_case_repeat_mode_with_stable_seq() -> None:
    targets = [Target(BUILTIN_ENDPOINTS["sim"], "a"), Target(BUILTIN_ENDPOINTS["sim-gemini"], "b")]
    plan = list(build_plan(targets, _cases(3), repeats=2, modes=["selection", "forced"]))
    assert len(plan) == 2 * 3 * 2 * 2
    assert [p.seq for p in plan] == list(range(24))
    assert len({p.key for p in plan}) == 24
    assert plan[0].key == ("sim:a", "c0", 0, "selection")
    assert plan[1].key == ("sim:a", "c0", 0, "forced")
    assert plan[-1].key == ("sim-gemini:b", "c2", 1, "forced")


def test_shards_partition_the_plan() -> None:
    plan = list(build_plan([Target(BUILTIN_ENDPOINTS["sim"], "a")], _cases(7), 3, ["selection"]))
    shards = [Shard.parse(f"{i}/3") for i in (1, 2, 3)]
    owned = [[p.seq for p in plan if s.owns(p.seq)] for s in shards]
    assert sorted(sum(owned, [])) == [p.seq for p in plan]
    assert all(owned)
    for bad in ("0/3", "4/3", "x", "1-3"):
        with pytest.raises(ConfigError, match="--shard"):
            Shard.parse(bad)


def test_case_filters() -> None:
    cases = _cases(6)
    assert [c.id for c in select_cases(cases, ["boundary"], [], [])] == ["c1", "c3", "c5"]
    assert [c.id for c in select_cases(cases, [], ["even"], ["c2", "c3"])] == ["c2"]
    with pytest.raises(ConfigError, match="no such case: nope"):
        select_cases(cases, [], [], ["nope"])
    with pytest.raises(ConfigError, match="select no case"):
        select_cases(cases, ["adversarial"], [], [])
