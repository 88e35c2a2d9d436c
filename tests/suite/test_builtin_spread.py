"""The built-in suites tell the simulated models apart: each fails, and each fails differently.

A real run of each suite (selection mode, one repeat, the four default simulated models over
their four dialects on the mock, in process) is read back: no model passes every case, no two
models fail the same set of cases, and no two show the same mix of failure decisions.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest
from robust_run import records, run_in_process

from fcbench.endpoints import DEFAULT_TARGETS


@pytest.mark.parametrize("suite", ["core", "refunds"])
def test_every_simulated_model_fails_and_each_differently(
    suite: str, tmp_path: Path, mock_server: str
) -> None:
    config = {"suite": suite, "repeats": 1, "modes": ["selection"]}
    result = run_in_process(config, tmp_path, mock_server)
    rows = records(result.run_dir)
    failed: dict[str, set[str]] = {target: set() for target in DEFAULT_TARGETS}
    kinds: dict[str, Counter[str]] = {target: Counter() for target in DEFAULT_TARGETS}
    for row in rows:
        target = f"{row['target']['endpoint']}:{row['target']['model']}"
        assert row["outcome"]["kind"] != "provider_error", row["outcome"]
        if not row["verdict"]["passed"]:
            failed[target].add(row["case_id"])
            kinds[target][row["verdict"]["decision"]] += 1
    assert len(rows) == len({row["case_id"] for row in rows}) * len(DEFAULT_TARGETS)
    for target, cases in failed.items():
        assert cases, f"{target} passes every case of {suite}"
        assert len(cases) < len(rows) // len(DEFAULT_TARGETS), f"{target} fails every case of {suite}"
    for a, b in combinations(DEFAULT_TARGETS, 2):
        assert failed[a] != failed[b], (suite, a, b)
        assert kinds[a] != kinds[b], (suite, a, b, kinds[a])
