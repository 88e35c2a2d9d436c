"""The terminal summary ranks targets by pass rate with intervals, says where each one fails in one
line, and adds a recovery column in recovery mode."""

from __future__ import annotations

import io
from pathlib import Path

from records_builder import RunBuilder, call_outcome, error_outcome, text_outcome, verdict
from rich.console import Console

from fcbench.report.terminal import print_summary

BETTER, WORSE = ("mock", "zz-better"), ("mock", "aa-worse")


def recovery(success: bool) -> dict[str, object]:
    outcome = "repaired" if success else "gave_up_gracefully"
    return {"outcome": outcome, "success": success, "turns": 2, "reasons": ["test"], "failed_turns": []}


def summary(run: Path) -> str:
    out = io.StringIO()
    print_summary(Console(file=out, width=200, emoji=False, highlight=False, soft_wrap=True), run)
    return out.getvalue()


def test_ranked_with_intervals_and_a_failure_line(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path / "run", targets=[WORSE, BETTER], repeats=1)
    good = call_outcome(("f", {}))
    for i in range(4):
        b.add(f"c{i}", good, verdict(), target=BETTER)
    b.add("c0", good, verdict(), target=WORSE)
    b.add("c1", text_outcome("no"), verdict("missed_call"), target=WORSE)
    b.add("c2", good, verdict("correct_call", False, schema_valid=False, semantic_exact=False), target=WORSE)
    b.add("c3", error_outcome("timeout", None), None, target=WORSE)
    text = summary(b.write())
    lines = text.splitlines()
    better = next(i for i, line in enumerate(lines) if "mock:zz-better" in line)
    worse = next(i for i, line in enumerate(lines) if "mock:aa-worse" in line)
    assert better < worse  # best first, not alphabetical
    assert "100% (4/4) [51–100]" in lines[better] and "33% (1/3) [6–79]" in lines[worse]
    assert "recovery" not in lines[1]
    assert "fails mock:aa-worse [selection]: decision 1 (missed_call 1) · schema 1 · coverage loss 1" in text
    assert "fails mock:zz-better" not in text


def test_recovery_mode_has_a_recovery_column(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path / "run", targets=[WORSE, BETTER], modes=["recovery"], repeats=1)
    good = call_outcome(("f", {}))
    for i in range(3):
        b.add(f"c{i}", good, verdict(recovery=recovery(True)), target=BETTER, mode="recovery")
        ok = i == 0
        b.add(
            f"c{i}", good, verdict("correct_call", ok, recovery=recovery(ok)), target=WORSE, mode="recovery"
        )
    text = summary(b.write())
    header = next(line for line in text.splitlines() if "target" in line and "pass" in line)
    assert header.rstrip(" ┃").endswith("recovery")
    worse = next(line for line in text.splitlines() if "mock:aa-worse" in line and "%" in line)
    assert worse.count("33% (1/3) [6–79]") == 2  # pass and recovery success
    assert "fails mock:aa-worse [recovery]: recovery 2" in text
