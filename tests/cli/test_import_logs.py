"""``fcbench import logs`` as a user runs it (real subprocesses), then ``fcbench cases validate``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_run import fcbench
from secret_samples import every_secret, one_text_of_each

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
    assert "needs review: log-0003: secret (openai_key) redacted" in result.stdout
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


def test_no_secret_of_any_kind_reaches_any_file_or_the_terminal(tmp_path: Path) -> None:
    """Every kind in a prompt, the system prompt, a tool description and call arguments; in a
    skipped line's provider error (quoted in the report) and in a bad line's reason."""
    text = one_text_of_each()
    lines = [json.loads(line) for line in (LOGS / "replay.openai-chat.jsonl").read_text().splitlines()]
    first, error = lines[0], lines[5]
    first["request"]["messages"][0]["content"] += " " + text
    first["request"]["messages"][1]["content"] += " " + text
    first["request"]["tools"][0]["function"]["description"] += " " + text
    free_form = {"type": "object", "properties": {"text": {"type": "string"}, "password": {"type": "string"}}}
    note = {"name": "note_it", "description": "Keep a note.", "parameters": free_form}
    first["request"]["tools"].append({"type": "function", "function": note})
    call = first["response"]["choices"][0]["message"]["tool_calls"][0]["function"]
    call.update(name="note_it", arguments=json.dumps({"text": text, "password": "hunter two"}))
    error["response"]["error"]["message"] = f"Incorrect API key provided: {text}"
    bad = {**lines[2], "latency_ms": text + " \x1b[2J\x9b31m a:b:m"}
    log = tmp_path / "secrets.jsonl"
    log.write_text("".join(json.dumps(x) + "\n" for x in (first, lines[2], error, bad)), encoding="utf-8")
    out = tmp_path / "suite"
    result = _fcbench("import", "logs", str(log), "--dialect", "openai-chat", "--out", str(out), "--skip-bad")
    assert result.returncode == 0, result.stderr
    report = json.loads((out / "import_report.json").read_text())
    assert report["skipped_by_reason"] == {"provider_error": 1} and len(report["bad_lines"]) == 1
    assert "needs-review:secret" in (out / "cases.jsonl").read_text()
    files = {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()}
    outputs = {**files, "stdout": result.stdout, "stderr": result.stderr}
    leaks = {
        (name, s)
        for name, written in outputs.items()
        for s in [*every_secret(), "hunter two"]
        if s in written
    }
    assert not leaks
    assert not {"\x1b", "\x9b"} & set(result.stdout + result.stderr)
    assert _fcbench("cases", "validate", str(out)).returncode == 0
