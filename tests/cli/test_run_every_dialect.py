"""``fcbench run`` keyless on a simulated target of every registered dialect (real subprocess).

Every dialect of the adapter registry has a built-in ``sim*`` endpoint on the embedded mock, so a
new dialect is measured end to end, plain and streamed, with no test written for it; the run
must record real tool calls and answers, never provider errors.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_run import fcbench

from fcbench import adapters
from fcbench.endpoints import BUILTIN_ENDPOINTS

CASES = ("select-lookup-01", "types-01", "abstain-01", "clarify-01")


def sim_endpoints() -> dict[str, str]:
    """Dialect -> the built-in simulated endpoint that speaks it."""
    found: dict[str, str] = {}
    for name, endpoint in sorted(BUILTIN_ENDPOINTS.items()):
        if endpoint.managed == "mock":
            found.setdefault(endpoint.dialect, name)
    return found


def test_every_dialect_has_a_simulated_endpoint() -> None:
    assert sorted(sim_endpoints()) == adapters.dialects()
    assert {"sim-bedrock", "sim-interactions"} <= set(sim_endpoints().values())


def test_a_keyless_run_over_every_dialect_records_real_answers(tmp_path: Path) -> None:
    targets = [f"{name}:sim-careful" for name in sim_endpoints().values()]
    args = ["run", "--out", str(tmp_path), "--repeats", "1", "--mode", "selection", "--mode", "stream"]
    args += [a for t in targets for a in ("--target", t)] + [a for c in CASES for a in ("--case", c)]
    env_free = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    result = fcbench(*args, "--no-progress", env=env_free)
    assert result.returncode == 0, result.stdout + result.stderr
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    rows = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    assert len(rows) == len(targets) * len(CASES) * 2
    by_dialect: dict[str, list[dict[str, object]]] = {}
    for row in rows:
        by_dialect.setdefault(row["target"]["dialect"], []).append(row)
    assert sorted(by_dialect) == adapters.dialects()
    for dialect, seen in by_dialect.items():
        kinds = [r["outcome"]["kind"] for r in seen]  # type: ignore[index]
        assert "provider_error" not in kinds, (dialect, [r["outcome"] for r in seen])
        assert kinds.count("tool_calls") >= 2, (dialect, kinds)
        passed = sum(bool(r["verdict"]["passed"]) for r in seen)  # type: ignore[index]
        assert passed >= len(seen) - 2, (dialect, passed)
