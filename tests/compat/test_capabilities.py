"""Capability probes are classified from what the model did: a scripted model that obeys every request
comes out ``honoured``, one that does the opposite ``ignored``; dialects that cannot express a request
come out ``unsupported``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from compat_helpers import calls, text

from fcbench.compat import CapabilityCell, CompatReport, ProbeRequest
from fcbench.compat.checks import KeywordValidator
from fcbench.compat.classify import capability_cell
from fcbench.compat.probes import load_probes
from fcbench.run.plan import Target
from fcbench.store.view import RecordView, view_of

ORDER = ("lookup_order", {"order_id": "ORD-104821"})
OTHER_ORDER = ("lookup_order", {"order_id": "ORD-104822"})
QUOTE = ("get_shipping_quote", {"country_code": "US", "postal_code": "02139", "weight_grams": 750})
PICKUP_OK = ("probe_strict_all_required", {"postal_code": "02139", "date": "2025-03-14", "window": None})
PICKUP_BAD = ("probe_strict_all_required", {"postal_code": 2139, "window": "evening", "urgent": True})

OBEYS: dict[str, dict[str, str]] = {
    "capability.tool_choice.auto": calls(ORDER),
    "capability.tool_choice.required": calls(ORDER),
    "capability.tool_choice.none": text(),
    "capability.tool_choice.named": calls(QUOTE),
    "capability.parallel.allowed": calls(ORDER, OTHER_ORDER),
    "capability.parallel.disabled": calls(ORDER),
    "capability.strict.enforced": calls(PICKUP_OK),
    "capability.stream.agrees.json": calls(ORDER, OTHER_ORDER),
    "capability.stream.agrees.sse": calls(ORDER, OTHER_ORDER),
}
"""Per capability case id: a reply that does what the request asked."""

IGNORES: dict[str, dict[str, str]] = {
    "capability.tool_choice.auto": text(),
    "capability.tool_choice.required": text(),
    "capability.tool_choice.none": calls(ORDER),
    "capability.tool_choice.named": calls(ORDER),
    "capability.parallel.allowed": calls(ORDER),
    "capability.parallel.disabled": calls(ORDER, OTHER_ORDER),
    "capability.strict.enforced": calls(PICKUP_BAD),
    "capability.stream.agrees.json": calls(ORDER, OTHER_ORDER),
    "capability.stream.agrees.sse": calls(ORDER),
}
"""Per capability case id: a reply that does the opposite (or, streamed, something else)."""

CAPABILITY_GROUPS = ["tool_choice", "parallel", "strict", "stream"]


def cells(report: CompatReport, label: str) -> dict[str, CapabilityCell]:
    return {row.probe: row.cells[label] for row in report.capabilities}


def hook(table: Mapping[str, dict[str, str]]) -> Any:
    def headers(request: ProbeRequest, target: Target) -> dict[str, str]:
        return table[request.case.id]

    return headers


def test_a_scripted_model_that_obeys_is_honoured_everywhere(run_compat) -> None:
    label = "sim:sim-scripted"
    report, _ = run_compat([label], CAPABILITY_GROUPS, repeats=2, headers=hook(OBEYS))
    found = cells(report, label)
    assert set(found) == {p.id for p in load_probes().capability_probes}
    for probe, cell in found.items():
        assert (probe, cell.status, cell.honoured, cell.ignored) == (probe, "honoured", 2, 0)


def test_a_scripted_model_that_ignores_every_request_is_ignored_everywhere(run_compat) -> None:
    label = "sim:sim-scripted"
    report, _ = run_compat([label], CAPABILITY_GROUPS, repeats=2, headers=hook(IGNORES))
    for probe, cell in cells(report, label).items():
        assert (probe, cell.status, cell.honoured, cell.ignored) == (probe, "ignored", 0, 2)


def test_a_dialect_that_cannot_disable_parallel_calls_is_unsupported(run_compat) -> None:
    label = "sim-gemini:sim-scripted"
    report, _ = run_compat([label], ["parallel"], headers=hook(IGNORES))
    found = cells(report, label)
    disabled = found["parallel.disabled"]
    assert disabled.status == "unsupported" and not disabled.expressible
    assert disabled.ignored == 1  # what happened is still counted
    assert any("parallel" in note for note in disabled.notes)
    assert found["parallel.allowed"].status == "ignored"


def test_the_careful_simulated_model_honours_tool_choice(run_compat) -> None:
    label = "sim:sim-careful"
    report, _ = run_compat([label], ["tool_choice"], repeats=2)
    assert {probe: cell.status for probe, cell in cells(report, label).items()} == {
        "tool_choice.auto": "honoured",
        "tool_choice.required": "honoured",
        "tool_choice.none": "honoured",
        "tool_choice.named": "honoured",
    }


def _record(case_id: str, outcome: dict[str, Any], repeat: int = 0) -> RecordView:
    record = {"case_id": case_id, "repeat": repeat, "outcome": outcome, "notes": [], "mode": "compat"}
    return view_of({**record, "target": {"endpoint": "mock", "model": "m"}})


def _calls(n: int) -> dict[str, Any]:
    made = [
        {
            "id": f"c{i}",
            "name": "lookup_order",
            "arguments": {"order_id": "ORD-104821"},
            "raw_arguments": None,
        }
        for i in range(n)
    ]
    return {"kind": "tool_calls", "calls": made}


@pytest.mark.parametrize(
    ("outcomes", "status", "counts"),
    [
        ([_calls(1), _calls(2)], "partial", (1, 1, 0, 0)),
        ([{"kind": "text", "text": "hi"}, _calls(1)], "honoured", (1, 0, 1, 0)),
        (
            [{"kind": "provider_error", "code": "bad_request", "message": "no", "status": 400}],
            "rejected",
            (0, 0, 0, 1),
        ),
        ([{"kind": "provider_error", "code": "timeout", "message": "slow"}], "untested", (0, 0, 0, 0)),
    ],
)
def test_judgements_add_up_to_a_status(
    outcomes: list[dict[str, Any]], status: str, counts: tuple[int, ...]
) -> None:
    probe = next(p for p in load_probes().capability_probes if p.id == "parallel.disabled")
    records = [_record("capability.parallel.disabled", o, i) for i, o in enumerate(outcomes)]
    cell = capability_cell(probe, records, "openai-chat", [], KeywordValidator())
    assert cell.status == status
    assert (cell.honoured, cell.ignored, cell.inconclusive, cell.rejected) == counts
