"""Intent coverage of logged traffic: a generated log with known intent shares, covering rules,
bad lines, and the suggested sample reproduced by ``import logs`` itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from intent_logs import BAD_LINES, PROVIDER_ERRORS, SHARES, GeneratedLog, write_log, write_suite

from fcbench.logs.cases import import_logs
from fcbench.logs.coverage import (
    UNPARSED,
    CoverageReport,
    Intent,
    case_shape,
    entry_intent,
    measure_coverage,
)
from fcbench.logs.entries import read_logs
from fcbench.logs.traces import ReadOptions
from fcbench.suite.loader import load_suite
from fcbench.suite.models import Case


def _intent(index: int) -> Intent:
    share = SHARES[index]
    return Intent(share.tool or "(no call)", tuple(sorted(share.arguments)), share.language)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[GeneratedLog, CoverageReport]:
    folder = tmp_path_factory.mktemp("coverage")
    log = write_log(folder / "prod.jsonl")
    suite = load_suite(write_suite(folder / "suite"))
    return log, measure_coverage(suite, [log.path], "wire", ReadOptions("openai-chat"), sample=20)


def test_the_generated_shares_are_reproduced_exactly(generated: tuple[GeneratedLog, CoverageReport]) -> None:
    log, report = generated
    counts = {found.intent: found.requests for found in report.intents}
    assert counts == {_intent(i): share.count for i, share in enumerate(SHARES)}
    covered = {found.intent for found in report.intents if found.covered_by}
    assert covered == {_intent(i) for i, share in enumerate(SHARES) if share.covered}
    assert report.traffic == sum(share.count for share in SHARES)
    assert report.covered_traffic == sum(share.count for share in SHARES if share.covered)
    assert report.not_answers == PROVIDER_ERRORS
    assert report.lines == len(log.kinds)


def test_examples_are_the_first_lines_of_each_intent(generated: tuple[GeneratedLog, CoverageReport]) -> None:
    log, report = generated
    by_intent = {found.intent: found for found in report.intents}
    for index in range(len(SHARES)):
        expected = [f"{log.path}:{n}" for n in log.lines_of(f"share:{index}")[:3]]
        assert by_intent[_intent(index)].examples == expected


def test_uncovered_intents_come_largest_first(generated: tuple[GeneratedLog, CoverageReport]) -> None:
    _, report = generated
    uncovered = sorted((s for s in SHARES if not s.covered), key=lambda s: -s.count)
    assert [found.requests for found in report.uncovered] == [s.count for s in uncovered]
    assert report.to_json(top=2)["largest_uncovered"][0]["intent"] == "search_orders(email,limit) [en]"


def test_bad_lines_are_counted_and_named_never_raised(generated: tuple[GeneratedLog, CoverageReport]) -> None:
    log, report = generated
    assert len(report.bad_lines) == BAD_LINES
    named = [int(bad.split(":")[1]) for bad in report.bad_lines]
    assert named == log.lines_of("bad")


def test_the_suggested_sample_is_the_one_import_logs_draws(
    generated: tuple[GeneratedLog, CoverageReport], tmp_path: Path
) -> None:
    log, report = generated
    suggestion = report.suggestion
    assert suggestion is not None and suggestion.size == 20
    assert f"--sample 20 --seed {suggestion.seed}" in suggestion.command
    imported = import_logs(
        [log.path], "openai-chat", tmp_path / "next", sample=20, seed=suggestion.seed, skip_bad=True
    )
    lines = {int(where.split(":")[1].split()[0]) for where in _imported_lines(tmp_path / "next")}
    uncovered_lines = {n for i, s in enumerate(SHARES) if not s.covered for n in log.lines_of(f"share:{i}")}
    assert imported.imported == 20
    assert len(lines & uncovered_lines) == suggestion.uncovered_requests > 0
    kinds = {log.kinds[n - 1] for n in lines & uncovered_lines}
    assert len(kinds) == suggestion.uncovered_intents


def _imported_lines(folder: Path) -> list[str]:
    suite = load_suite(folder)
    notes = [case.note or "" for case in suite.cases]
    return [note.removeprefix("imported from ").split(";")[0] for note in notes]


def _case(expected: dict[str, object], prompt: str = "Where is my order ORD-1?") -> Case:
    return Case.model_validate({"id": "c", "prompt": prompt, "expected": expected})


@pytest.mark.parametrize(
    ("arguments", "keys", "covered"),
    [
        ({"order_id": "ORD-1"}, ("order_id",), True),
        ({"order_id": "ORD-1"}, ("order_id", "note"), False),
        ({"order_id": "ORD-1"}, (), False),
        ({"requiredEquals": {"order_id": "ORD-1"}, "optional": ["note"]}, ("note", "order_id"), True),
        ({"requiredEquals": {"order_id": "ORD-1"}, "optional": ["note"]}, ("order_id",), True),
        ({"requiredEquals": {"order_id": "ORD-1"}, "optional": ["note"]}, ("note",), False),
        ({"requiredEquals": {}, "constraints": {"limit": {"maximum": 5}}}, ("limit",), True),
        ({"requiredEquals": {}, "optional": ["a", "b"], "forbidden": ["b"]}, ("a", "b"), False),
        ({"requiredEquals": {}, "oneOf": {"status": ["a", "b"]}}, (), False),
        (None, ("anything", "at_all"), True),
        (None, (UNPARSED,), True),
    ],
)
def test_a_case_covers_exactly_the_key_sets_it_accepts(
    arguments: dict[str, object] | None, keys: tuple[str, ...], covered: bool
) -> None:
    shape = case_shape(_case({"kind": "tool", "name": "lookup_order", "arguments": arguments}))
    assert shape.covers(Intent("lookup_order", keys, "en")) is covered
    assert not shape.covers(Intent("lookup_order", keys, "zh"))
    assert not shape.covers(Intent("search_orders", keys, "en"))


def test_several_calls_and_no_call_cases() -> None:
    calls = [{"name": "b", "arguments": {"x": 1}}, {"name": "a", "arguments": {"y": 2}}]
    several = case_shape(_case({"kind": "tools", "calls": calls}))
    assert several.covers(Intent("a+b", ("x", "y"), "en"))
    assert not several.covers(Intent("a+b", ("x",), "en"))
    asking = case_shape(_case({"kind": "clarification", "missing": ["order_id"]}, "Where is my order?"))
    assert asking.covers(Intent("(no call)", (), "en"))


def test_an_entry_of_unparsed_arguments_has_the_unparsed_key(tmp_path: Path) -> None:
    log = write_log(tmp_path / "one.jsonl")
    lines = (tmp_path / "one.jsonl").read_text().splitlines()
    first = next(n for n, kind in enumerate(log.kinds) if kind == "share:0")
    broken = lines[first].replace('\\"order_id\\"', "order_id")
    (tmp_path / "broken.jsonl").write_text(broken + "\n")
    entry = read_logs([tmp_path / "broken.jsonl"], "openai-chat").entries[0]
    assert entry_intent(entry) == Intent("lookup_order", (UNPARSED,), "en")
