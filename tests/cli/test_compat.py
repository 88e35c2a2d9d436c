"""``fcbench compat`` as a user runs it: a subprocess on the default (simulated) targets, no keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import fcbench

from fcbench.compat import CompatReport, KeywordCell, KeywordRow, render
from fcbench.endpoints import DEFAULT_TARGETS
from fcbench.store.records import RECORDS_FILE, iter_record_dicts, read_manifest


def only_run_dir(out: Path) -> Path:
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    return run_dir


def test_default_run_prints_both_matrices_and_keeps_raw_records(tmp_path: Path) -> None:
    proc = fcbench("compat", "--repeats", "1", "--out", str(tmp_path / "runs"), "--no-progress", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "## Schema keywords x targets" in out and "## Capabilities x targets" in out
    header = next(line for line in out.splitlines() if line.startswith("| keyword |"))
    assert all(label in header for label in DEFAULT_TARGETS)
    assert "| pattern |" in out and "| pattern [strict] |" in out
    assert "| tool_choice none: no call |" in out
    assert "rejected" in out and "transformed (" in out and "violated:" in out and "enforced:" in out
    assert "## Rejections (provider messages)" in out

    run_dir = only_run_dir(tmp_path / "runs")
    manifest = read_manifest(run_dir)
    assert manifest.modes == ["compat"] and manifest.finished_at is not None
    assert [t.label for t in manifest.targets] == list(DEFAULT_TARGETS)
    records = list(iter_record_dicts(run_dir / RECORDS_FILE))
    assert len(records) == manifest.planned > 0
    assert {r["mode"] for r in records} == {"compat"}
    saved = json.loads((run_dir / "compat.json").read_text(encoding="utf-8"))
    rows = [line for line in out.split("## Capabilities")[0].splitlines() if line.startswith("| ")][1:]
    assert len(saved["keywords"]) == len(rows)
    assert (run_dir / "compat.md").read_text(encoding="utf-8") == out


def test_json_and_html_outputs(tmp_path: Path) -> None:
    common = ["--repeats", "1", "--probe", "pattern", "--probe", "tool_choice", "--no-progress"]
    proc = fcbench("compat", *common, "--format", "json", "--out", str(tmp_path / "a"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [row["case_id"] for row in data["keywords"]] == ["compat.pattern", "compat.pattern.strict"]
    assert [row["probe"] for row in data["capabilities"]] == [
        "tool_choice.auto",
        "tool_choice.required",
        "tool_choice.none",
        "tool_choice.named",
    ]
    assert set(data["keywords"][0]["cells"]) == set(DEFAULT_TARGETS)

    page = tmp_path / "compat.html"
    proc = fcbench(
        "compat", *common, "--format", "html", "-o", str(page), "--out", str(tmp_path / "b"), cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert "Schema keywords x targets" in html and "Capabilities x targets" in html
    assert "<script" not in html and "http" not in html.split("</style>")[0]


def test_config_file_targets_and_endpoint_headers(tmp_path: Path) -> None:
    reply = {"kind": "calls", "calls": [{"name": "probe_pattern", "arguments": {"sku": "ab-1234"}}]}
    config = {
        "repeats": 2,
        "targets": ["scripted:sim-scripted"],
        "endpoints": {
            "scripted": {
                "dialect": "openai-chat",
                "base_url": "{mock}/v1",
                "headers": {"X-Fcbench-Sim-Reply": json.dumps(reply)},
                "key_required": False,
                "local": True,
            }
        },
    }
    path = tmp_path / "fcbench.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    args = ["--config", str(path), "--probe", "pattern", "--strict", "off", "--no-progress"]
    proc = fcbench("compat", *args, "--out", str(tmp_path / "runs"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "| keyword | scripted:sim-scripted |" in proc.stdout
    assert "| pattern | violated: 0/2 calls ok |" in proc.stdout
    assert read_manifest(only_run_dir(tmp_path / "runs")).planned == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "pdf"], "unknown format"),
        (["--strict", "maybe"], "--strict"),
        (["--probe", "no-such-probe"], "unknown compat probe"),
        (["--target", "nowhere:model"], "unknown endpoint"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    proc = fcbench("compat", *args, "--out", str(tmp_path), "--no-progress", cwd=tmp_path)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert not any(tmp_path.iterdir())


def test_html_escapes_provider_text() -> None:
    evil = "<img src=x onerror=alert(1)> & 'quote'"
    cell = KeywordCell(status="rejected", observations=1, rejected=1, messages=[evil])
    report = CompatReport(
        run_id="r<1>",
        run_dir="runs/r",
        repeats=1,
        targets=[{"label": "ep:<model>", "endpoint": "ep", "dialect": "openai-chat", "model": "<model>"}],
        keywords=[
            KeywordRow(
                case_id="compat.x",
                probe="x",
                keyword="<b>kw</b>",
                strict=False,
                tool="t",
                cells={"ep:<model>": cell},
            )
        ],
        capabilities=[],
    )
    page = render(report, "html")
    assert "<img" not in page and "<b>kw" not in page and "<model>" not in page
    assert "&lt;img src=x onerror=alert(1)&gt; &amp; &#x27;quote&#x27;" in page
    assert "| keyword | ep:<model> |" in render(report, "md")
