"""Log lines are split on newlines only, and a line nested too deeply is a bad line like any other
(named with its file and line, skipped and counted with ``--skip-bad``), never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from cli_run import fcbench

from fcbench.logs.cases import import_logs

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"


def _good_lines() -> list[str]:
    return (LOGS / "gemini.constructed.jsonl").read_text(encoding="utf-8").split("\n")[:2]


def test_a_line_holding_unicode_line_separators_stays_one_line(tmp_path: Path) -> None:
    first, second = _good_lines()
    row = json.loads(first)
    row["request"]["contents"][-1]["parts"][0]["text"] += " one\u2028two\x85three"
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps(row, ensure_ascii=False) + "\n" + second + "\n", encoding="utf-8")
    report = import_logs([log], "gemini", tmp_path / "s")
    assert report.imported == 2 and report.lines == 2 and report.bad_lines == []


def test_a_line_nested_too_deeply_is_skipped_and_counted_with_skip_bad(tmp_path: Path) -> None:
    first, second = _good_lines()
    log = tmp_path / "log.jsonl"
    deep = '{"request": ' + "[" * 100_000 + "]" * 100_000 + ', "response": {}}'
    log.write_text("\n".join([first, deep, second]) + "\n", encoding="utf-8")
    out = tmp_path / "s"
    refused = fcbench("import", "logs", str(log), "--dialect", "gemini", "--out", str(out))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert f"{log}:2:" in refused.stderr and "nested too deeply" in refused.stderr, refused.stderr
    skipped = fcbench("import", "logs", str(log), "--dialect", "gemini", "--out", str(out), "--skip-bad")
    assert skipped.returncode == 0, skipped.stderr
    assert "Traceback" not in skipped.stderr
    assert "1 bad lines skipped" in skipped.stdout
