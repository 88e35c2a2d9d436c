"""Every keyword status is reachable through real HTTP against the mock provider.

``sim-scripted`` (reply set per request by header) forces violations and honoured calls; the
mock's per-dialect acceptance rules produce real rejections; mock faults produce untested cells.
"""

from __future__ import annotations

import json
from pathlib import Path

from compat_helpers import FAULT_HEADER, calls, text

from fcbench.compat import CompatReport, KeywordCell
from fcbench.compat.render import keyword_label
from fcbench.store.blobs import expand_blobs, load_blobs
from fcbench.store.records import RECORDS_FILE, iter_record_dicts

SCRIPTED_CHAT = "sim:sim-scripted"
SCRIPTED_ANTHROPIC = "sim-anthropic:sim-scripted"


def kcell(report: CompatReport, case_id: str, label: str) -> KeywordCell:
    row = next(r for r in report.keywords if r.case_id == case_id)
    return row.cells[label]


def records(run_dir: Path) -> list[dict]:
    """The run's records with their raw exchanges expanded from the blob store."""
    blobs = load_blobs(run_dir)
    return [expand_blobs(r, blobs) for r in iter_record_dicts(run_dir / RECORDS_FILE)]


def test_a_call_breaking_the_pattern_is_accepted_violated(run_compat) -> None:
    bad = calls(("probe_pattern", {"sku": "ab-12"}))
    report, run_dir = run_compat([SCRIPTED_CHAT], ["pattern"], repeats=2, headers=lambda req, t: bad)
    cell = kcell(report, "compat.pattern", SCRIPTED_CHAT)
    assert cell.status == "accepted_violated"
    assert (cell.observations, cell.calls, cell.violating_calls) == (2, 2, 2)
    assert any("sku" in v and "[pattern]" in v for v in cell.violations)
    assert all(r["mode"] == "compat" and r["case_id"] == "compat.pattern" for r in records(run_dir))


def test_one_bad_call_among_good_ones_is_a_violation(run_compat) -> None:
    mixed = calls(("probe_pattern", {"sku": "AB-1234"}), ("probe_pattern", {"sku": "AB1234"}))
    report, _ = run_compat([SCRIPTED_CHAT], ["pattern"], headers=lambda req, t: mixed)
    cell = kcell(report, "compat.pattern", SCRIPTED_CHAT)
    assert cell.status == "accepted_violated"
    assert (cell.calls, cell.violating_calls) == (2, 1)


def test_only_the_probed_keyword_counts(run_compat) -> None:
    # The extra key breaks additionalProperties (the record's full grade says so), not the pattern.
    good = calls(("probe_pattern", {"sku": "AB-1234", "note": "extra"}))
    report, run_dir = run_compat([SCRIPTED_CHAT], ["pattern"], headers=lambda req, t: good)
    cell = kcell(report, "compat.pattern", SCRIPTED_CHAT)
    assert cell.status == "accepted_enforced"
    assert (cell.calls, cell.violating_calls, cell.omitted) == (1, 0, 0)
    (record,) = records(run_dir)
    assert record["verdict"]["schema_valid"] is False


def test_a_call_leaving_the_value_out_tests_nothing(run_compat) -> None:
    empty = calls(("probe_pattern", {}))
    report, _ = run_compat([SCRIPTED_CHAT], ["pattern"], headers=lambda req, t: empty)
    cell = kcell(report, "compat.pattern", SCRIPTED_CHAT)
    assert cell.status == "untested"
    assert (cell.calls, cell.omitted) == (1, 1)
    assert keyword_label(cell) == "untested (no call carried the value)"


def test_one_call_carrying_the_value_decides_beside_calls_leaving_it_out(run_compat) -> None:
    good = calls(("probe_pattern", {}), ("probe_pattern", {"sku": "AB-1234"}))
    report, _ = run_compat([SCRIPTED_CHAT], ["pattern"], headers=lambda req, t: good)
    assert kcell(report, "compat.pattern", SCRIPTED_CHAT).status == "accepted_enforced"
    bad = calls(("probe_pattern", {}), ("probe_pattern", {"sku": "ab-12"}))
    report, _ = run_compat([SCRIPTED_CHAT], ["pattern"], headers=lambda req, t: bad)
    assert kcell(report, "compat.pattern", SCRIPTED_CHAT).status == "accepted_violated"


def test_rejection_keeps_the_providers_message(run_compat) -> None:
    valid = calls(("probe_all_of", {"name": "Jane", "zip": "10001"}))
    report, run_dir = run_compat([SCRIPTED_ANTHROPIC], ["all-of"], repeats=2, headers=lambda req, t: valid)
    cell = kcell(report, "compat.all-of", SCRIPTED_ANTHROPIC)
    assert cell.status == "rejected"
    assert cell.rejected == 2 and cell.calls == 0
    (message,) = cell.messages
    assert "does not support oneOf, allOf, or anyOf at the top level" in message
    for record in records(run_dir):
        assert record["outcome"]["code"] == "schema_rejected"
        assert record["outcome"]["status"] == 400
        assert record["raw"]["response"]["status"] == 400


def test_strict_rules_reject_in_one_dialect_and_not_another(run_compat) -> None:
    targets = ["sim:sim-careful", "sim-gemini:sim-careful"]
    report, _ = run_compat(targets, ["all-of"], strict="on")
    openai = kcell(report, "compat.all-of.strict", "sim:sim-careful")
    gemini = kcell(report, "compat.all-of.strict", "sim-gemini:sim-careful")
    assert openai.status == "rejected"
    assert any("'allOf' is not permitted" in m for m in openai.messages)
    assert gemini.status != "rejected" and gemini.rejected == 0


def test_fcbench_transform_is_reported_and_named(run_compat) -> None:
    short = calls(("probe_string_length", {"message": "Hi"}))
    report, run_dir = run_compat(
        [SCRIPTED_CHAT], ["string-length"], strict="both", headers=lambda req, t: short
    )
    strict = kcell(report, "compat.string-length.strict", SCRIPTED_CHAT)
    plain = kcell(report, "compat.string-length", SCRIPTED_CHAT)
    assert strict.status == "transformed"
    assert "minLength removed at /properties/message" in strict.transforms
    assert strict.violating_calls == 1  # still judged against the original schema
    assert plain.status == "accepted_violated" and not plain.transforms
    sent = next(r for r in records(run_dir) if r["case_id"] == "compat.string-length.strict")
    function = sent["raw"]["request"]["body"]["tools"][0]["function"]
    assert function["strict"] is True
    assert "minLength" not in json.dumps(function["parameters"])


def test_no_call_leaves_the_keyword_untested(run_compat) -> None:
    report, _ = run_compat([SCRIPTED_CHAT], ["pattern"], repeats=2, headers=lambda req, t: text())
    cell = kcell(report, "compat.pattern", SCRIPTED_CHAT)
    assert cell.status == "untested"
    assert (cell.no_call, cell.calls) == (2, 0)


def test_provider_failures_leave_the_keyword_untested_not_rejected(run_compat) -> None:
    faults = {"compat.pattern": "server_error", "compat.const": "rate_limit"}
    report, _ = run_compat(
        [SCRIPTED_CHAT], ["pattern", "const"], headers=lambda req, t: {FAULT_HEADER: faults[req.case.id]}
    )
    server = kcell(report, "compat.pattern", SCRIPTED_CHAT)
    limited = kcell(report, "compat.const", SCRIPTED_CHAT)
    assert (server.status, server.errors, server.rejected) == ("untested", {"server": 1}, 0)
    assert (limited.status, limited.errors) == ("untested", {"rate_limited": 1})


def test_simulated_models_give_a_non_trivial_matrix(run_compat) -> None:
    careful, eager, sloppy = "sim:sim-careful", "sim-responses:sim-eager", "sim-anthropic:sim-sloppy"
    probes = ["min-max", "all-of", "string-length"]
    report, _ = run_compat([careful, eager, sloppy], probes, strict="both")
    statuses = {cell.status for row in report.keywords for cell in row.cells.values()}
    assert {"rejected", "transformed", "accepted_violated", "accepted_enforced"} <= statuses
    assert kcell(report, "compat.all-of", sloppy).status == "rejected"  # Anthropic: no root allOf
    assert kcell(report, "compat.min-max", careful).status == "accepted_enforced"
    assert kcell(report, "compat.min-max", eager).status == "accepted_violated"
    assert kcell(report, "compat.string-length.strict", careful).status == "transformed"
