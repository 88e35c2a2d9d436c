"""Derived probes run against the mock provider over real HTTP and are classified per target."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from compat_helpers import calls

from fcbench.compat import CompatReport, KeywordCell, prepare_compat, render, report_from_run
from fcbench.config import RunConfig
from fcbench.endpoints import RunningService
from fcbench.errors import ConfigError
from fcbench.run import execute
from fcbench.run.plan import Planned
from fcbench.store.blobs import expand_blobs, load_blobs
from fcbench.store.records import RECORDS_FILE, iter_record_dicts, read_manifest

SCRIPTED_CHAT = "sim:sim-scripted"
SCRIPTED_ANTHROPIC = "sim-anthropic:sim-scripted"

QUOTE = {
    "name": "quote",
    "description": "Quote shipping.",
    "side_effect": "read",
    "parameters": {
        "type": "object",
        "required": ["postal_code"],
        "properties": {
            "postal_code": {"type": "string", "pattern": "^[0-9]{5}$"},
            "note": {"type": "string", "maxLength": 5},
        },
    },
}
FIND = {
    "name": "find_customer",
    "description": "Find a customer by email or by number.",
    "side_effect": "read",
    "parameters": {
        "type": "object",
        "properties": {"email": {"type": "string"}, "number": {"type": "integer"}},
        "anyOf": [{"required": ["email"]}, {"required": ["number"]}],
    },
}


RunSuite = Callable[..., tuple[CompatReport, Path]]
WriteSuite = Callable[[Path, list[dict[str, Any]]], Path]


@pytest.fixture
def run(mock_server: str, tmp_path: Path, write_suite: WriteSuite) -> RunSuite:
    """``run(name, targets, replies, strict=)``: the derived probes of suite ``tmp/name/suite`` only."""

    def go(
        name: str, targets: list[str], replies: Mapping[str, dict[str, str]], strict: str = "off"
    ) -> tuple[CompatReport, Path]:
        folder = tmp_path / name / "suite"
        if not folder.exists():
            write_suite(folder, [QUOTE, FIND])
        config = RunConfig(targets=targets, repeats=1, max_retries=0, concurrency=4)
        spec, _ = prepare_compat(
            config,
            out_root=tmp_path / name / "runs",
            strict=strict,
            suite=str(folder),
            only_suite=True,  # type: ignore[arg-type]
        )

        def headers(planned: Planned, turn: int) -> Mapping[str, str] | None:
            return replies.get(planned.case.id.removesuffix(".strict"))

        done = asyncio.run(execute(spec, services={"mock": RunningService(mock_server)}, headers=headers))
        return report_from_run(done.run_dir), done.run_dir

    return go


def cell(report: CompatReport, case_id: str, label: str) -> KeywordCell:
    return next(r for r in report.keywords if r.case_id == case_id).cells[label]


PATTERN = "suite.quote.#/properties/postal_code.pattern"
ANY_OF = "suite.find_customer.#.anyOf"


def replies(postal_code: Any) -> dict[str, dict[str, str]]:
    return {
        PATTERN: calls(("quote", {"postal_code": postal_code})),
        ANY_OF: calls(("find_customer", {"email": "a@example.com"})),
    }


def test_scripted_calls_make_a_derived_use_violated_or_enforced(run: RunSuite) -> None:
    bad, _ = run("bad", [SCRIPTED_CHAT], replies("2139"))
    good, run_dir = run("good", [SCRIPTED_CHAT], replies("02139"))
    violated = cell(bad, PATTERN, SCRIPTED_CHAT)
    assert violated.status == "accepted_violated"
    assert any("postal_code" in v and "[pattern]" in v for v in violated.violations)
    assert cell(good, PATTERN, SCRIPTED_CHAT).status == "accepted_enforced"
    row = next(r for r in good.keywords if r.case_id == PATTERN)
    assert (row.derived, row.property, row.pointer, row.tool) == (
        True,
        "postal_code",
        "/properties/postal_code",
        "quote",
    )
    assert good.suite is not None and good.suite.name == "mine"
    manifest = read_manifest(run_dir)
    assert manifest.filters["suite"]["probes_hash"] == good.suite.probes_hash
    assert manifest.filters["only_suite"] is True


def test_root_any_of_is_rejected_by_one_dialect_only(run: RunSuite) -> None:
    report, _ = run("a", [SCRIPTED_CHAT, SCRIPTED_ANTHROPIC], replies("02139"))
    anthropic = cell(report, ANY_OF, SCRIPTED_ANTHROPIC)
    chat = cell(report, ANY_OF, SCRIPTED_CHAT)
    assert anthropic.status == "rejected"
    assert any("oneOf, allOf, or anyOf at the top level" in m for m in anthropic.messages)
    assert chat.status == "accepted_enforced"
    page = render(report, "html")
    assert "Your tools: suite mine 1.0.0" in page
    assert f"find_customer: anyOf -&gt; rejected by {SCRIPTED_ANTHROPIC}; enforced by {SCRIPTED_CHAT}" in page
    text = render(report, "md")
    assert "## Schema keywords x targets" not in text  # --only-suite: no shipped keyword rows
    assert "| quote.postal_code: pattern | enforced: 1/1 calls ok |" in text


def test_strict_transform_of_a_derived_keyword_is_named(run: RunSuite) -> None:
    long_note = calls(("quote", {"postal_code": "02139", "note": "far too long"}))
    report, run_dir = run("a", [SCRIPTED_CHAT], {"suite.quote.#/properties/note.maxLength": long_note}, "on")
    strict = cell(report, "suite.quote.#/properties/note.maxLength.strict", SCRIPTED_CHAT)
    assert strict.status == "transformed"
    assert strict.transforms == ["maxLength removed at /properties/note"]
    assert strict.violating_calls == 1  # still judged against the tool as given
    blobs = load_blobs(run_dir)
    sent = next(
        expand_blobs(r, blobs)
        for r in iter_record_dicts(run_dir / RECORDS_FILE)
        if r["case_id"] == "suite.quote.#/properties/note.maxLength.strict"
    )
    wire = sent["raw"]["request"]["body"]["tools"][0]["function"]["parameters"]
    assert (
        "maxLength" not in wire["properties"]["note"]
        and QUOTE["parameters"]["properties"]["note"]["maxLength"] == 5
    )
    untouched = cell(report, "suite.quote.#/properties/postal_code.pattern.strict", SCRIPTED_CHAT)
    assert untouched.status != "transformed"  # strict mode changed other keywords of the tool, not this one


def test_a_changed_suite_no_longer_matches_the_run(
    run: RunSuite, tmp_path: Path, write_suite: WriteSuite
) -> None:
    _, run_dir = run("a", [SCRIPTED_CHAT], replies("02139"))
    changed = json.loads(json.dumps(QUOTE))
    changed["parameters"]["properties"]["postal_code"]["pattern"] = "^[0-9]{4}$"
    write_suite(tmp_path / "a" / "suite", [changed, FIND])
    with pytest.raises(ConfigError, match="no longer derives the probes this run pinned"):
        report_from_run(run_dir)
