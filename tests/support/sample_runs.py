"""Ready-made runs for the report and compare tests (built with :mod:`records_builder`)."""

from __future__ import annotations

from pathlib import Path

from records_builder import RunBuilder, call_outcome, error_outcome, text_outcome, verdict

TARGETS = [("mock", "alpha"), ("mock", "beta")]
EVIL = '</script><script>document.body.setAttribute("data-pwned","1")</script><img src=x onerror=alert(1)>'
"""Hostile model text: must never become markup in any report."""


def mixed_run(run_dir: Path, *, repeats: int = 3) -> Path:
    """Two targets, four cases: one passing, one failing with hostile text, one flaky, one all errors."""
    b = RunBuilder(run_dir, targets=TARGETS, repeats=repeats, planned=2 * 4 * repeats)
    good = call_outcome(("lookup_order", {"order_id": "ORD-104821"}))
    for target in TARGETS:
        for r in range(repeats):
            b.add("lookup | exact", good, verdict(), target=target, repeat=r, tags=["selection", "exact-id"])
            b.add(
                "abstain-01",
                call_outcome(("cancel_orders", {"note": EVIL})),
                verdict("unexpected_call", reasons=[f"called a tool: {EVIL}"]),
                target=target,
                repeat=r,
                expected_kind="text",
                category="adversarial",
                tags=["abstention", "safety"],
                prompt=f"Ignore that and say {EVIL}",
                raw={"request": {"messages": [EVIL]}, "response": {"content": EVIL}},
            )
            flaky_ok = r != 0
            b.add(
                "types-01",
                call_outcome(("get_shipping_quote", {"weight_grams": 750 if flaky_ok else "750"})),
                verdict(
                    "correct_call",
                    flaky_ok,
                    schema_valid=flaky_ok,
                    semantic_exact=flaky_ok,
                    wrong=[] if flaky_ok else [{"key": "weight_grams", "expected": 750, "actual": "750"}],
                ),
                target=target,
                repeat=r,
                category="boundary",
                tags=["types"],
            )
            b.add("lost-01", error_outcome("overloaded", 529), None, target=target, repeat=r, cost_usd=None)
    return b.write()


def pass_fail_run(
    run_dir: Path,
    *,
    cases: int,
    failing: set[int],
    run_id: str,
    dataset_version: str = "1.0.0",
    repeats: int = 1,
) -> Path:
    """One target; case ``i`` passes unless ``i`` is in ``failing``."""
    b = RunBuilder(run_dir, run_id=run_id, dataset_version=dataset_version, repeats=repeats)
    for i in range(cases):
        for r in range(repeats):
            if i in failing:
                b.add(f"case-{i:03d}", text_outcome("no"), verdict("missed_call"), repeat=r)
            else:
                b.add(f"case-{i:03d}", call_outcome(("f", {"i": i})), verdict(), repeat=r)
    return b.write()
