"""Every metric on small hand-built run directories with known answers."""

from __future__ import annotations

from pathlib import Path

import pytest
from records_builder import RunBuilder, call_outcome, error_outcome, text_outcome, verdict

from fcbench.errors import RunStateError
from fcbench.metrics import (
    Rate,
    RunMetrics,
    TargetMetrics,
    compute_metrics,
    failure_reasons,
)
from fcbench.store.records import RECORDS_FILE

CALL = call_outcome(("lookup_order", {"order_id": "ORD-104821"}))


def only(metrics: RunMetrics) -> TargetMetrics:
    assert len(metrics.targets) == 1
    return metrics.targets[0]


def rate(n: int, d: int) -> Rate:
    return Rate(n=n, d=d)


def test_partial_coverage_and_provider_errors_are_not_model_failures(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path, planned=10)
    b.add("c1", CALL, verdict())
    b.add("c2", CALL, verdict("correct_call", False, semantic_exact=False))
    b.add(
        "c3",
        text_outcome("Which postal code?"),
        verdict("correct_clarification"),
        expected_kind="clarification",
    )
    b.add("c4", text_outcome("Hello"), verdict("missed_call", schema_valid=None, semantic_exact=None))
    b.add("c5", error_outcome("rate_limited"), None)
    b.add("c6", error_outcome("timeout", None), None)
    t = only(compute_metrics(b.write()))
    assert t.planned == 10
    assert t.observed == 6
    assert t.scorable == 4
    assert t.accepted == rate(4, 6)
    assert t.provider_errors == {"rate_limited": 1, "timeout": 1}
    assert t.coverage == rate(4, 10)
    assert t.pass_rate == rate(2, 4)
    assert t.selection_accuracy == rate(3, 4)
    assert t.schema_valid == rate(2, 2)
    assert t.semantic_exact == rate(1, 2)
    assert t.clarification_accuracy == rate(1, 1)
    assert t.abstention_accuracy == rate(0, 0)
    assert t.abstention_accuracy.rate is None
    assert t.coverage.rate == pytest.approx(0.4)


def test_all_provider_errors_leave_model_metrics_empty(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path, repeats=2)
    for case in ("c1", "c2"):
        for r in range(2):
            b.add(case, error_outcome("auth", 401), None, repeat=r, cost_usd=None, latency_ms=50.0)
    m = compute_metrics(b.write())
    t = only(m)
    assert t.observed == 4
    assert t.accepted == rate(0, 4)
    assert t.provider_errors == {"auth": 4}
    for name in ("pass_rate", "selection_accuracy", "schema_valid", "semantic_exact"):
        assert getattr(t, name) == rate(0, 0)
    assert t.coverage == rate(0, 4)
    assert t.pass_hat_k == {}
    assert t.stability.mean is None
    assert t.latency_ms.p50 is None and t.latency_ms.count == 0
    assert t.cost_usd == 0.0  # rejected requests with no cost are not unknown spend
    assert t.confusion == {}
    assert [(c.case_id, c.passed, c.errors) for c in m.cases] == [
        ("c1", rate(0, 0), 2),
        ("c2", rate(0, 0), 2),
    ]


def test_single_repeat(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path)
    b.add("c1", CALL, verdict())
    b.add("c2", text_outcome("no"), verdict("missed_call"))
    b.add("c3", CALL, verdict())
    t = only(compute_metrics(b.write()))
    assert t.pass_hat_k == {1: pytest.approx(2 / 3)}
    assert t.pass_hat_k_cases == {1: 3}
    assert t.stability.mean == 1.0
    assert (t.stability.n, t.stability.d, t.stability.unstable_cases) == (3, 3, 0)


def test_pass_hat_k_combinatorics(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path, repeats=5)
    plan = {"a": (5, 3), "b": (5, 5), "c": (3, 1)}
    for case, (n, c) in plan.items():
        for r in range(n):
            passed = r < c
            b.add(case, CALL, verdict("correct_call", passed, semantic_exact=passed), repeat=r)
    t = only(compute_metrics(b.write()))
    assert t.pass_hat_k_cases == {1: 3, 2: 3, 3: 3, 4: 2, 5: 2}
    assert t.pass_hat_k[1] == pytest.approx((3 / 5 + 1 + 1 / 3) / 3)
    assert t.pass_hat_k[2] == pytest.approx((3 / 10 + 1 + 0) / 3)
    assert t.pass_hat_k[3] == pytest.approx((1 / 10 + 1 + 0) / 3)
    assert t.pass_hat_k[4] == pytest.approx(0.5)
    assert t.pass_hat_k[5] == pytest.approx(0.5)
    assert t.pass_rate == rate(9, 13)


def test_stability_counts_the_most_common_normalised_outcome(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path, repeats=4)
    flaky = [
        call_outcome(("get_quote", {"a": 1, "b": 2})),
        call_outcome(("get_quote", {"b": 2, "a": 1})),  # same call, keys in another order
        call_outcome(("get_quote", {"a": 1, "b": 3})),
        text_outcome("Which country?"),
    ]
    decisions = ["correct_call", "correct_call", "correct_call", "missed_call"]
    for r, (outcome, decision) in enumerate(zip(flaky, decisions, strict=True)):
        b.add("flaky", outcome, verdict(decision, r < 2), repeat=r)
    for r in range(3):
        b.add("steady", CALL, verdict(), repeat=r)
    b.add("steady", error_outcome(), None, repeat=3)
    m = compute_metrics(b.write())
    t = only(m)
    assert (t.stability.n, t.stability.d) == (2 + 3, 4 + 3)
    assert t.stability.mean == pytest.approx((2 / 4 + 3 / 3) / 2)
    assert (t.stability.cases, t.stability.unstable_cases) == (2, 1)
    cases = {c.case_id: c for c in m.cases}
    assert cases["flaky"].stability == rate(2, 4)
    assert cases["flaky"].distinct_outcomes == 3
    assert cases["steady"].stability == rate(3, 3)
    assert cases["steady"].distinct_outcomes == 1
    assert cases["steady"].errors == 1


def test_confusion_and_decision_rates(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path)
    rows = [
        ("t1", "tool", CALL, "correct_call"),
        ("t2", "tool", text_outcome("?"), "missed_call"),
        ("t3", "tool", call_outcome(("a", {}), ("b", {})), "extra_calls"),
        ("x1", "text", text_outcome("Hi"), "correct_abstention"),
        ("x2", "text", CALL, "unexpected_call"),
        ("q1", "clarification", text_outcome("Postal code?"), "correct_clarification"),
        ("q2", "clarification", CALL, "guessed_missing"),
        ("q3", "clarification", CALL, "guessed_missing"),
    ]
    for case, kind, outcome, decision in rows:
        b.add(case, outcome, verdict(decision, schema_valid=decision != "extra_calls"), expected_kind=kind)
    t = only(compute_metrics(b.write()))
    assert t.confusion == {
        "clarification": {"correct_clarification": 1, "guessed_missing": 2},
        "text": {"correct_abstention": 1, "unexpected_call": 1},
        "tool": {"correct_call": 1, "extra_calls": 1, "missed_call": 1},
    }
    assert t.selection_accuracy == rate(3, 8)
    assert t.clarification_accuracy == rate(1, 3)
    assert t.abstention_accuracy == rate(1, 2)
    assert t.schema_valid == rate(4, 5)  # five observations had calls; the extra_calls one was invalid
    assert t.semantic_exact == rate(1, 1)
    assert t.decisions["guessed_missing"] == 2


def test_latency_percentiles_use_accepted_observations_only(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path, repeats=6)
    for r, latency in enumerate([40.0, 10.0, 100.0, 30.0, 20.0]):
        b.add("c1", CALL, verdict(), repeat=r, latency_ms=latency)
    b.add("c1", error_outcome("timeout", None), None, repeat=5, latency_ms=30_000.0)
    t = only(compute_metrics(b.write()))
    assert t.latency_ms.count == 5
    assert t.latency_ms.p50 == 30.0
    assert t.latency_ms.p95 == pytest.approx(88.0)


def test_cost_is_null_when_any_accepted_cost_is_unknown(tmp_path: Path) -> None:
    known = RunBuilder(tmp_path / "known")
    known.add("c1", CALL, verdict(), cost_usd=0.25)
    known.add("c2", CALL, verdict(), cost_usd=0.5)
    known.add("c3", text_outcome("x"), verdict("missed_call"), cost_usd=0.25)
    t = only(compute_metrics(known.write()))
    assert t.cost_usd == pytest.approx(1.0)
    assert t.cost_per_pass == pytest.approx(0.5)

    unknown = RunBuilder(tmp_path / "unknown")
    unknown.add("c1", CALL, verdict(), cost_usd=0.25)
    unknown.add("c2", CALL, verdict(), cost_usd=None)
    t = only(compute_metrics(unknown.write()))
    assert t.cost_usd is None
    assert t.cost_per_pass is None


def test_tokens_sum_and_count_unreported(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path)
    b.add("c1", CALL, verdict(), usage=(100, 20))
    b.add("c2", CALL, verdict(), usage=(50, None))
    b.add("c3", error_outcome(), None, usage=(None, None))
    t = only(compute_metrics(b.write()))
    assert (t.tokens.input, t.tokens.output, t.tokens.unreported) == (150, 20, 1)


def test_by_category_and_by_tag(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path)
    b.add("n1", CALL, verdict(), category="normal", tags=["selection", "exact-id"])
    b.add("n2", text_outcome("?"), verdict("missed_call"), category="normal", tags=["selection"])
    b.add("a1", CALL, verdict(), category="adversarial", tags=["safety"])
    b.add("a2", error_outcome(), None, category="adversarial", tags=["lost"])
    t = only(compute_metrics(b.write()))
    assert t.by_category == {"adversarial": rate(1, 1), "normal": rate(1, 2)}
    assert t.by_tag == {"exact-id": rate(1, 1), "safety": rate(1, 1), "selection": rate(1, 2)}


def test_recovery_block_is_counted(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path, modes=["recovery"])
    outcomes = [("repaired", True), ("repeated_same_error", False), ("hallucinated_success", False)]
    for i, (name, ok) in enumerate(outcomes):
        rec = {"outcome": name, "success": ok, "turns": 2}
        b.add(f"r{i}", CALL, verdict("correct_call", ok, recovery=rec), mode="recovery")
    m = compute_metrics(b.write())
    t = only(m)
    assert t.mode == "recovery"
    assert t.recovery_success == rate(1, 3)
    assert t.recovery_outcomes == {"hallucinated_success": 1, "repaired": 1, "repeated_same_error": 1}
    reasons = {c.case_id: c.reasons for c in m.cases}
    assert reasons["r1"] == {"recovery: repeated_same_error": 1}


def test_harness_and_ungraded_records_are_coverage_loss(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path)
    b.add("c1", CALL, verdict("not_scored", False), error="grader crashed")
    b.add("c2", CALL, None)
    b.add("c3", CALL, verdict())
    t = only(compute_metrics(b.write()))
    assert t.provider_errors == {"harness": 1, "ungraded": 1}
    assert t.accepted == rate(3, 3)
    assert t.pass_rate == rate(1, 1)


def test_a_retried_error_is_replaced_and_other_duplicates_ignored(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path, planned=2)
    b.add("c1", error_outcome("rate_limited"), None)
    b.add("c1", CALL, verdict())  # resumed run retried the key
    b.add("c2", CALL, verdict())
    b.add("c2", text_outcome("?"), verdict("missed_call"))  # duplicate of a scored key: ignored
    t = only(compute_metrics(b.write()))
    assert t.observed == 2
    assert t.provider_errors == {}
    assert t.pass_rate == rate(2, 2)
    assert t.duplicates == 1
    assert t.tokens.input == 40  # every request was billed


def test_targets_modes_and_mode_filter(tmp_path: Path) -> None:
    targets = [("ep", "m1"), ("ep", "m2")]
    b = RunBuilder(tmp_path, targets=targets, modes=["selection", "forced"], planned=8)
    for target in targets:
        for mode in ("selection", "forced"):
            b.add("c1", CALL, verdict(), target=target, mode=mode)
    b.add("c2", CALL, verdict("wrong_tool"), target=("ep", "m2"), mode="forced")
    m = compute_metrics(b.write())
    assert [(t.target, t.mode) for t in m.targets] == [
        ("ep:m1", "selection"),
        ("ep:m1", "forced"),
        ("ep:m2", "selection"),
        ("ep:m2", "forced"),
    ]
    assert all(t.planned == 2 for t in m.targets)
    forced = compute_metrics(tmp_path, modes=["forced"])
    assert [(t.target, t.mode) for t in forced.targets] == [("ep:m1", "forced"), ("ep:m2", "forced")]
    assert forced.find("ep:m2", "forced").pass_rate == rate(1, 2)  # type: ignore[union-attr]
    assert forced.run.modes == ["forced"]


def test_unobserved_target_is_reported_with_zero_coverage(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path, targets=[("ep", "m1"), ("ep", "m2")], planned=4)
    b.add("c1", CALL, verdict(), target=("ep", "m1"))
    m = compute_metrics(b.write())
    silent = m.find("ep:m2", "selection")
    assert silent is not None
    assert silent.observed == 0 and silent.coverage == rate(0, 2)


def test_torn_last_line_is_skipped(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path)
    b.add("c1", CALL, verdict())
    run = b.write()
    with (run / RECORDS_FILE).open("a", encoding="utf-8") as fh:
        fh.write('{"run_id": "run-test", "seq": 1, "case_id": "c2"')
    m = compute_metrics(run)
    assert m.records_read == 1
    assert only(m).pass_rate == rate(1, 1)


def test_missing_manifest_is_a_run_state_error(tmp_path: Path) -> None:
    with pytest.raises(RunStateError):
        compute_metrics(tmp_path)


def test_failure_reasons_prefer_the_verdicts_own_reasons() -> None:
    own = verdict("wrong_tool", reasons=["called search_orders instead of lookup_order"])
    assert failure_reasons(own) == ["called search_orders instead of lookup_order"]
    derived = verdict(
        "correct_call",
        False,
        schema_valid=False,
        schema_errors=["weight_grams: '750' is not of type 'integer'"],
        wrong=[{"key": "weight_grams", "expected": 750, "actual": "750"}],
        missing=["service"],
    )
    assert failure_reasons(derived) == [
        "schema: weight_grams: '750' is not of type 'integer'",
        "missing: service",
        'wrong weight_grams: expected 750, got "750"',
    ]
    assert failure_reasons(verdict("correct_call", False)) == ["failed"]


def test_metrics_json_round_trips(tmp_path: Path) -> None:
    b = RunBuilder(tmp_path, repeats=2)
    b.add("c1", CALL, verdict(), repeat=0, tags=["t"])
    b.add("c1", text_outcome("?"), verdict("missed_call"), repeat=1, tags=["t"])
    m = compute_metrics(b.write())
    again = RunMetrics.from_json(m.to_json())
    assert again == m
    assert again.targets[0].pass_hat_k == {1: 0.5, 2: 0.0}
