"""``fcbench coverage`` as a user runs it: a generated log of about 3,000 lines with known intent
shares (one real subprocess), and the text the command prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import fcbench
from intent_logs import BAD_LINES, PROVIDER_ERRORS, SHARES, write_log, write_suite

from fcbench.cli.coverage import BAD_LINES_SHOWN, coverage_lines
from fcbench.logs.coverage import measure_coverage
from fcbench.logs.traces import ReadOptions
from fcbench.suite.loader import load_suite


def _label(index: int) -> str:
    share = SHARES[index]
    return f"{share.tool or '(no call)'}({','.join(sorted(share.arguments))}) [{share.language}]"


def test_coverage_reproduces_the_generated_shares_exactly(tmp_path: Path) -> None:
    log = write_log(tmp_path / "prod.jsonl")
    suite = write_suite(tmp_path / "suite")
    result = fcbench("coverage", str(suite), str(log.path), "--dialect", "openai-chat", "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    traffic = sum(share.count for share in SHARES)
    covered = sum(share.count for share in SHARES if share.covered)
    assert data["traffic"] == {"n": covered, "d": traffic}
    assert data["intents_covered"] == {"n": sum(s.covered for s in SHARES), "d": len(SHARES)}
    assert {i["intent"]: i["requests"] for i in data["intents"]} == {
        _label(n): share.count for n, share in enumerate(SHARES)
    }
    assert {i["intent"]: i["share"] for i in data["intents"]} == {
        _label(n): round(share.count / traffic, 6) for n, share in enumerate(SHARES)
    }
    assert [i["intent"] for i in data["largest_uncovered"]] == [
        _label(n) for n, s in sorted(enumerate(SHARES), key=lambda p: -p[1].count) if not s.covered
    ]
    assert data["provider_errors"] == PROVIDER_ERRORS
    assert [bad.split(":")[1] for bad in data["bad_lines"]] == [str(n) for n in log.lines_of("bad")]
    assert data["suggestion"]["command"].startswith(f"fcbench import logs {log.path} --dialect openai-chat")


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    folder = tmp_path_factory.mktemp("coverage-text")
    log = write_log(folder / "prod.jsonl")
    report = measure_coverage(
        load_suite(write_suite(folder / "suite")), [log.path], "wire", ReadOptions("openai-chat"), sample=20
    )
    return coverage_lines(report, top=2)


def test_text_names_the_shares_the_largest_uncovered_and_the_next_import(printed: list[str]) -> None:
    traffic = sum(share.count for share in SHARES)
    covered = sum(share.count for share in SHARES if share.covered)
    assert printed[1] == f"traffic covered: {covered}/{traffic} ({100 * covered / traffic:.1f}%)"
    assert printed[2] == "distinct intents covered: 5/8 (62.5%)"
    assert printed[3] == "largest uncovered intents (of 3):"
    assert printed[4].startswith("  150 (5.1%) search_orders(email,limit) [en]; e.g. ")
    assert printed[5].startswith("  90 (3.0%) lookup_order(order_id) [de]; e.g. ")
    assert sum(line.startswith("bad line ") for line in printed) == BAD_LINES_SHOWN
    assert f"{BAD_LINES - BAD_LINES_SHOWN} more bad lines (all in --format json)" in printed
    assert printed[-1].startswith("import next (20 cases holding ")
    assert "--sample 20 --seed " in printed[-1]


def test_a_missing_log_file_is_a_clear_error(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite")
    result = fcbench("coverage", str(suite), str(tmp_path / "nope.jsonl"), "--dialect", "openai-chat")
    assert result.returncode == 2
    assert "nope.jsonl" in result.stderr and "no such log file" in result.stderr
    assert "Traceback" not in result.stderr
