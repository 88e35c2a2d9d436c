"""A large, realistic run directory for the HTML report and ``fcbench view``: passes and failures of
every kind, provider errors, anomalies, multi-turn recovery conversations, and raw exchanges
compacted into the blob store exactly as the runner writes them.

Used by the HTML report's scale tests, the viewer's tests and ``benchmarks/html_report.py``;
:func:`running_view` starts a real ``fcbench view`` process for the viewer's tests.
"""

from __future__ import annotations

import json
import random
import re
import select
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cli_run import stop
from records_builder import call_outcome, error_outcome, text_outcome, verdict

from fcbench.store.records import (
    RECORDS_FILE,
    Manifest,
    Record,
    RecordWriter,
    write_manifest,
)

TARGETS = [
    ("sim", "openai-chat", "sim-careful"),
    ("sim-gemini", "gemini", "sim-flaky"),
    ("sim-anthropic", "anthropic-messages", "sim-sloppy"),
    ("sim-responses", "openai-responses", "sim-eager"),
]
TOOLS = [
    {
        "name": f"tool_{i}",
        "description": f"Tool number {i}: looks things up and changes them. " * 4,
        "parameters": {
            "type": "object",
            "properties": {
                "order_id": {"type": "string", "pattern": "^ORD-[0-9]{6}$"},
                "weight_grams": {"type": "integer", "minimum": 1},
                "note": {"type": "string", "maxLength": 200},
            },
            "required": ["order_id"],
        },
    }
    for i in range(8)
]
RECOVERY_SHARE = 10
"""One case in this many is a recovery scenario (recorded with its turns)."""


def case_prompt(case: int) -> str:
    """The prompt of case number ``case``."""
    return f"Where is order ORD-{case:06d}? It weighs {case * 10 + 5} grams."


def _observation(case: int, rng: random.Random) -> tuple[dict[str, Any], dict[str, Any] | None, list[Any]]:
    """Outcome, verdict and anomalies of one observation of ``case``."""
    good_args = {"order_id": f"ORD-{case:06d}", "weight_grams": case * 10 + 5}
    roll = rng.random()
    if roll < 0.03:
        return error_outcome("rate_limited", 429), None, []
    if roll < 0.75:
        return call_outcome(("tool_1", good_args)), verdict(), []
    if roll < 0.85:
        bad = {**good_args, "weight_grams": str(case * 10 + 5)}
        wrong = [{"key": "weight_grams", "expected": case * 10 + 5, "actual": str(case * 10 + 5)}]
        reasons = ["weight_grams: expected an integer, got a string"]
        out = verdict(
            "correct_call", False, schema_valid=False, semantic_exact=False, wrong=wrong, reasons=reasons
        )
        return call_outcome(("tool_1", bad)), out, []
    if roll < 0.92:
        missing = verdict("correct_call", False, semantic_exact=False, missing=["weight_grams"])
        return call_outcome(("tool_1", {"order_id": good_args["order_id"]})), missing, []
    if roll < 0.97:
        anomaly = [{"code": "json_call_in_text", "detail": "a call written as JSON in the text"}]
        return text_outcome(f"I would call tool_1 for ORD-{case:06d}."), verdict("missed_call"), anomaly
    return call_outcome(("tool_2", good_args)), verdict("wrong_tool"), []


def _turns(case: int, outcome: dict[str, Any]) -> list[dict[str, Any]]:
    """A two-turn recovery conversation: the first call gets an error back, the second is repaired."""
    first = {"order_id": f"ORD-{case:06d}", "weight_grams": "heavy"}
    error = {
        "ok": False,
        "error": {"code": "INVALID_ARGUMENTS", "message": "weight_grams must be an integer"},
    }
    return [
        {
            "turn": 1,
            "outcome": call_outcome(("tool_1", first)),
            "finish_reason": "tool_calls",
            "results": [
                {
                    "call_id": "call_0",
                    "name": "tool_1",
                    "content": error,
                    "is_error": True,
                    "source": "inject",
                }
            ],
        },
        {
            "turn": 2,
            "outcome": outcome,
            "finish_reason": "tool_calls",
            "results": [{"call_id": "call_0", "name": "tool_1", "content": {"ok": True}, "is_error": False}],
        },
    ]


def write_suite(folder: Path, cases: int) -> Path:
    """The suite of the synthetic run: ``cases`` cases expecting ``tool_1`` with exact arguments."""
    folder.mkdir(parents=True, exist_ok=True)
    info = {"name": "synthetic", "dataset_version": "1.0.0", "description": "HTML report scale tests"}
    (folder / "suite.json").write_text(json.dumps(info), encoding="utf-8")
    (folder / "tools.core.json").write_text(json.dumps({"tools": TOOLS}), encoding="utf-8")
    lines = [
        json.dumps(
            {
                "id": f"case-{case:04d}",
                "prompt": case_prompt(case),
                "expected": {
                    "kind": "tool",
                    "name": "tool_1",
                    "arguments": {"order_id": f"ORD-{case:06d}", "weight_grams": case * 10 + 5},
                },
                "category": ["normal", "boundary", "adversarial"][case % 3],
                "tags": [f"tag{case % 7}"],
            }
        )
        for case in range(cases)
    ]
    (folder / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def scale_manifest(run_id: str, suite: Path, n: int, repeats: int) -> Manifest:
    """The manifest of a synthetic run of ``n`` observations (4 targets, selection and recovery)."""
    return Manifest(
        run_id=run_id,
        fcbench_version="0.1.0",
        suite="synthetic",
        suite_ref=str(suite.resolve()),
        dataset_version="1.0.0",
        dataset_hash="0" * 64,
        config_hash="c" * 64,
        targets=[
            {"label": f"{e}:{m}", "endpoint": e, "dialect": d, "model": m, "base_url": "http://127.0.0.1:1"}
            for e, d, m in TARGETS
        ],
        modes=["selection", "recovery"],
        repeats=repeats,
        temperature=0.0,
        seed=0,
        planned=n,
        started_at="2026-01-01T00:00:00Z",
        finished_at="2026-01-01T01:00:00Z",
    )


def scale_record(seq: int, cases: int, run_id: str, rng: random.Random) -> dict[str, Any]:
    """Observation ``seq`` of a synthetic run of ``cases`` cases, as the fields of a
    :class:`~fcbench.store.records.Record` (its raw exchange not yet compacted)."""
    endpoint, dialect, model = TARGETS[seq % len(TARGETS)]
    case = (seq // len(TARGETS)) % cases
    recovery = case % RECOVERY_SHARE == RECOVERY_SHARE - 1
    outcome, verdict_, anomalies = _observation(case, rng)
    turns = _turns(case, outcome) if recovery and outcome["kind"] != "provider_error" else []
    request = {
        "model": model,
        "messages": [{"role": "system", "content": "You are a shop assistant."}, case_prompt(case)],
        "tools": TOOLS,
    }
    response = {"id": f"resp-{seq}", "model": model, "output": outcome, "usage": {"in": 420, "out": 25}}
    return {
        "run_id": run_id,
        "seq": seq,
        "started_at": "2026-01-01T00:00:00.000Z",
        "dataset_version": "1.0.0",
        "target": {"endpoint": endpoint, "dialect": dialect, "model": model},
        "case_id": f"case-{case:04d}",
        "case": {
            "category": ["normal", "boundary", "adversarial"][case % 3],
            "tags": [f"tag{case % 7}"],
            "expected_kind": "tool",
            "prompt": case_prompt(case),
        },
        "repeat": seq // (cases * len(TARGETS)),
        "mode": "recovery" if recovery else "selection",
        "outcome": outcome,
        "anomalies": anomalies,
        "verdict": verdict_,
        "latency_ms": round(rng.uniform(50, 900), 3),
        "usage": {"input_tokens": 420, "output_tokens": 25},
        "cost_usd": 0.0001,
        "turns": turns,
        "raw": {"request": request, "response": response},
    }


def scale_run(run_dir: Path, n: int = 10_000, *, seed: int = 7, repeats: int = 5, run_id: str = "") -> Path:
    """Write a run of ``n`` observations (4 targets, ``n / (4 * repeats)`` cases) and return its folder;
    its suite is written to the folder ``suite`` inside it."""
    rng = random.Random(seed)
    cases = max(1, n // (len(TARGETS) * repeats))
    run_dir.mkdir(parents=True, exist_ok=True)
    run_id = run_id or run_dir.name
    suite = write_suite(run_dir / "suite", cases)
    write_manifest(run_dir, scale_manifest(run_id, suite, n, repeats))
    with RecordWriter(run_dir / RECORDS_FILE) as writer:
        for seq in range(n):
            writer.append(Record.model_validate(scale_record(seq, cases, run_id, rng)))
    return run_dir


def start_view(path: Path, *options: str, timeout: float = 60.0) -> tuple[subprocess.Popen[str], str]:
    """A real ``fcbench view PATH --no-open OPTIONS`` process and the URL it printed (no slash at the
    end); the caller stops it (:func:`cli_run.stop`)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "fcbench", "view", str(path), "--no-open", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    line = proc.stdout.readline() if ready else ""
    match = re.search(r"http://127\.0\.0\.1:\d+", line)
    if match is None:
        proc.kill()
        raise AssertionError(f"fcbench view printed no URL: {line!r} {proc.communicate()[1]}")
    return proc, match.group(0)


@contextmanager
def running_view(path: Path, *options: str, timeout: float = 60.0) -> Iterator[str]:
    """A real ``fcbench view PATH --no-open OPTIONS`` process (on a port of its choosing unless
    ``--port`` is among the options); yields the URL it prints and stops the process afterwards."""
    proc, url = start_view(path, *options, timeout=timeout)
    try:
        yield url
    finally:
        stop(proc)


CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
"""Debian's chromium, which Playwright drives (None when it is not installed)."""


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium driven by Playwright (the test is skipped without the package)."""
    import pytest

    sync_api = pytest.importorskip("playwright.sync_api")
    if CHROMIUM is None:
        pytest.skip("chromium is not installed")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            yield browser
        finally:
            browser.close()


OPENED = """n => document.getElementById('obs-title').textContent.indexOf('#' + n + ' ·') === 0
  && document.getElementById('obs-request').textContent !== 'loading…'"""
"""Whether the report page shows observation ``n``, raw bodies loaded."""


def open_row(tab: Any, row: Any) -> int:
    """Click an observation row of the report page and wait until it is shown; returns its number."""
    n = int(row.get_attribute("data-n"))
    row.click()
    tab.wait_for_function(OPENED, arg=n)
    return n
