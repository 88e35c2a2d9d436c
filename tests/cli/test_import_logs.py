"""``fcbench import logs`` as a user runs it (real subprocesses), then ``fcbench cases validate``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_run import fcbench

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
DIALECTS = ("openai-chat", "openai-responses", "anthropic-messages", "gemini")


def _fcbench(*args: str) -> subprocess.CompletedProcess[str]:
    return fcbench(*args)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("kind", ["recorded", "constructed"])
def test_imported_logs_make_a_suite_validate_accepts(tmp_path: Path, dialect: str, kind: str) -> None:
    out = tmp_path / "suite"
    imported = _fcbench(
        "import", "logs", str(LOGS / f"{dialect}.{kind}.jsonl"), "--dialect", dialect, "--out", str(out)
    )
    assert imported.returncode == 0, imported.stderr
    report = json.loads((out / "import_report.json").read_text())
    assert f"imported {report['imported']} pending cases" in imported.stdout
    assert f"confirm the cases with: fcbench cases review {out}" in imported.stdout
    validated = _fcbench("cases", "validate", str(out))
    assert validated.returncode == 0, validated.stderr
    assert f"{report['imported']} cases" in validated.stdout
    assert f"warning: {report['imported']} of {report['imported']} cases are pending" in validated.stderr
    summary = json.loads(_fcbench("cases", "validate", str(out), "--json").stdout)
    assert summary["pending"] == summary["cases"] == report["imported"]


def test_import_prints_flags_and_sample(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    result = _fcbench(
        "import", "logs", str(LOGS / "openai-responses.constructed.jsonl"), "--dialect", "openai-responses",
        "--out", str(out), "--sample", "3", "--seed", "1",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    strata = "(no call) 1/1, get_shipping_quote 1/1, lookup_order 1/1, search_orders 0/1"
    assert f"sample of 3 (seed 1) by tool called: {strata}" in result.stdout
    assert "needs review: log-0003: secret (openai_or_anthropic_key) redacted" in result.stdout
    assert "sk-live-" not in (out / "cases.jsonl").read_text()


def test_malformed_line_exits_two_naming_file_and_line(tmp_path: Path) -> None:
    log = tmp_path / "prod.jsonl"
    lines = (LOGS / "openai-chat.constructed.jsonl").read_text().splitlines()
    log.write_text("\n".join([lines[0], lines[1], "{not json", lines[2]]) + "\n")
    result = _fcbench("import", "logs", str(log), "--dialect", "openai-chat", "--out", str(tmp_path / "s"))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert f"{log}:3: not a JSON line" in result.stderr
    skipped = _fcbench(
        "import", "logs", str(log), "--dialect", "openai-chat", "--out", str(tmp_path / "s"), "--skip-bad"
    )
    assert skipped.returncode == 0, skipped.stderr
    assert "3 usable, 0 skipped, 1 bad lines skipped" in skipped.stdout


def test_unknown_dialect_exits_two() -> None:
    result = _fcbench(
        "import", "logs", str(LOGS / "gemini.constructed.jsonl"), "--dialect", "gemini-pro", "--out", "x"
    )
    assert result.returncode == 2
    assert "unknown dialect 'gemini-pro'" in result.stderr
