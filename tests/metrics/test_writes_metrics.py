"""Unexpected write calls and side effects per target, from the verdicts of a run's records."""

from __future__ import annotations

from pathlib import Path

from records_builder import RunBuilder, call_outcome, error_outcome, text_outcome, verdict

from fcbench.metrics import Rate, compute_metrics
from fcbench.report.markdown import render_markdown

REFUND = call_outcome(("create_refund", {"order_id": "ORD-001"}))


def flagged(decision: str, *names: str) -> dict:
    return verdict(decision, False, schema_valid=True, semantic_exact=None) | {
        "unexpected_writes": list(names)
    }


def recovery(side_effects: int, replayed: int = 0) -> dict:
    score = {"outcome": "completed", "success": True, "turns": 1, "side_effects": side_effects}
    return verdict(recovery=score | {"replayed": replayed})


def test_unexpected_writes_are_counted_per_target_and_mode(tmp_path: Path) -> None:
    b = RunBuilder(
        tmp_path, targets=[("mock", "a"), ("mock", "b")], modes=["selection", "recovery"], repeats=2
    )
    # target a: one text case answered with two refunds (one observation, two calls), once right
    b.add(
        "t1",
        call_outcome(("create_refund", {}), ("create_refund", {})),
        flagged("unexpected_call", "create_refund", "create_refund"),
        target=("mock", "a"),
        expected_kind="text",
    )
    b.add(
        "t1",
        text_outcome("Sure."),
        verdict("correct_abstention"),
        target=("mock", "a"),
        repeat=1,
        expected_kind="text",
    )
    b.add("t2", REFUND, flagged("wrong_tool", "create_refund"), target=("mock", "a"))
    b.add("t2", error_outcome(), None, target=("mock", "a"), repeat=1)  # coverage loss: not in the rate
    # target b: nothing unexpected
    b.add(
        "t1", text_outcome("Sure."), verdict("correct_abstention"), target=("mock", "b"), expected_kind="text"
    )
    # recovery conversations: side effects and replays summed over the scorable ones
    b.add("r1", REFUND, recovery(1, 1), target=("mock", "a"), mode="recovery")
    b.add("r1", REFUND, recovery(2), target=("mock", "a"), mode="recovery", repeat=1)
    metrics = compute_metrics(b.write())
    a = metrics.find("mock:a", "selection")
    assert a is not None
    assert a.unexpected_writes == Rate(n=2, d=3)
    assert a.unexpected_write_calls == 3
    assert a.side_effects == 0
    b_sel = metrics.find("mock:b", "selection")
    assert (
        b_sel is not None and b_sel.unexpected_writes == Rate(n=0, d=1) and b_sel.unexpected_write_calls == 0
    )
    rec = metrics.find("mock:a", "recovery")
    assert rec is not None
    assert (rec.side_effects, rec.replayed_writes) == (3, 1)
    assert rec.unexpected_writes == Rate(n=0, d=2)
    # the report shows them, the severe ones marked, and leaves out targets with nothing to show
    report = render_markdown(metrics)
    section = report.split("## Unexpected write calls and side effects", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| mock:")]
    assert len(lines) == 2
    assert lines[0].startswith("| mock:a | selection | **66.7% (2/3)") and lines[0].endswith("| 3 | 0 | 0 |")
    assert lines[1].startswith("| mock:a | recovery | 0.0% (0/2)") and lines[1].endswith("| 0 | 3 | 1 |")


def test_a_run_without_writes_shows_no_section(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path)
    b.add("t1", call_outcome(("lookup_order", {"order_id": "ORD-104821"})), verdict())
    metrics = compute_metrics(b.write())
    (target,) = metrics.targets
    assert target.unexpected_writes == Rate(n=0, d=1) and target.side_effects == 0
    assert "Unexpected write calls" not in render_markdown(metrics)


def test_metrics_json_from_before_the_fields_reads_back(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path)
    b.add("t1", REFUND, flagged("unexpected_call", "create_refund"), expected_kind="text")
    metrics = compute_metrics(b.write())
    data = metrics.model_dump(mode="json")
    for name in ("unexpected_writes", "unexpected_write_calls", "side_effects", "replayed_writes"):
        data["targets"][0].pop(name)
    old = type(metrics).model_validate(data)
    assert old.targets[0].unexpected_writes == Rate() and old.targets[0].side_effects == 0
    assert metrics.targets[0].unexpected_write_calls == 1
