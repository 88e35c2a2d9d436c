"""Hostile text for report tests, and a run directory built from records that carry it everywhere."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from fcbench.store.records import (
    RECORDS_FILE,
    CaseRef,
    Manifest,
    Record,
    RecordWriter,
    TargetRef,
    write_manifest,
)
from fcbench.suite.loader import BUILTIN_DIR

XSS: tuple[str, ...] = (
    "<script>window.__pwned = 'script'; alert(1)</script>",
    "<img src=x onerror=\"window.__pwned = 'img'; alert(2)\">",
    "</script><script>window.__pwned = 'breakout'</script>",
    "<svg/onload=window.__pwned=1>",
    '<a href="javascript:window.__pwned=1">click</a>',
    '"><iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
    "';window.__pwned=1;//",
    "<!-- unclosed comment",
)
MARKDOWN: tuple[str, ...] = (
    "| cell | injection |",
    "[link](javascript:alert(1))",
    "![image](javascript:alert(1))",
    "`code` and ```fence```",
    "<b>bold</b>",
    "*emphasis* _under_ ~~strike~~",
    "line\nbreak\r\n| new | row |",
    "[ref]: javascript:alert(1)",
)
FORMULAS: tuple[str, ...] = (
    '=HYPERLINK("http://evil.example","x")',
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)",
    "-2+3",
)
"""Spreadsheet formula injection, for the CSV report."""

EVIL = " ".join(XSS + MARKDOWN)
"""All of it in one string."""

HOSTILE_MARKERS = ("__pwned", "javascript:", "injection", "onerror", "onload")
"""Substrings only the hostile text contains (every script payload sets ``window.__pwned``)."""


def scripted_reply(kind: str) -> str:
    """An ``X-Fcbench-Sim-Reply`` header value (ASCII JSON) for the mock's ``sim-scripted`` model."""
    if kind == "calls":
        reply: dict[str, Any] = {
            "kind": "calls",
            "text": EVIL,
            "calls": [
                {"name": XSS[1], "arguments": {"url": "javascript:alert(1)", "note": EVIL}},
                {"name": "lookup_order", "arguments_json": EVIL},
            ],
        }
    else:
        reply = {"kind": kind, "text": EVIL}
    return json.dumps(reply, ensure_ascii=True)


def hostile_suite(folder: Path) -> Path:
    """A suite whose name, case ids, tags, prompts and notes are hostile (a suite shared by others)."""
    folder.mkdir(parents=True)
    for name in ("system.txt", "tools.core.json"):
        shutil.copy(BUILTIN_DIR / "core" / name, folder / name)
    info = {"name": XSS[0], "dataset_version": XSS[3], "description": EVIL}
    (folder / "suite.json").write_text(json.dumps(info), encoding="utf-8")
    tags = [*XSS[:2], *MARKDOWN[:4], *FORMULAS]
    cases = [
        {"id": XSS[1], "prompt": EVIL, "expected": {"kind": "text"}, "tags": tags, "note": EVIL},
        {
            "id": MARKDOWN[0] + " " + MARKDOWN[1],
            "prompt": f"Where is order ORD-104821? {EVIL}",
            "expected": {"kind": "tool", "name": "lookup_order", "arguments": {"order_id": "ORD-104821"}},
            "tags": [MARKDOWN[6], XSS[4]],
            "category": "adversarial",
        },
    ]
    (folder / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    return folder


def hostile_records_run(run_dir: Path) -> Path:
    """A run directory written through :class:`~fcbench.store.records.Record`, hostile text in every field."""
    run_dir.mkdir(parents=True)
    targets = [(XSS[0], MARKDOWN[1]), (FORMULAS[0], XSS[3])]
    manifest = Manifest(
        run_id=XSS[2],
        fcbench_version=MARKDOWN[3],
        suite=EVIL,
        dataset_version=XSS[1],
        dataset_hash="0" * 64,
        config_hash="0" * 16,
        targets=[
            {"label": f"{e}:{m}", "endpoint": e, "dialect": "openai-chat", "model": m} for e, m in targets
        ],
        modes=["selection"],
        repeats=2,
        temperature=0.0,
        seed=0,
        planned=8,
        started_at=XSS[4],
    )
    write_manifest(run_dir, manifest)
    seq = 0
    with RecordWriter(run_dir / RECORDS_FILE) as writer:
        for endpoint, model in targets:
            for repeat in range(2):
                for case_id, passed in ((XSS[5], True), (MARKDOWN[0], False)):
                    writer.append(_record(seq, endpoint, model, case_id, repeat, passed))
                    seq += 1
    return run_dir


def _record(seq: int, endpoint: str, model: str, case_id: str, repeat: int, passed: bool) -> Record:
    call = {
        "id": XSS[6],
        "name": XSS[1],
        "arguments": {"x": EVIL},
        "raw_arguments": EVIL,
        "parse_error": EVIL,
    }
    outcome = (
        {"kind": "tool_calls", "calls": [call], "text": EVIL}
        if not passed
        else {"kind": "text", "text": EVIL}
    )
    verdict = {
        "passed": passed,
        "decision": "correct_abstention" if passed else "unexpected_call",
        "schema_valid": None if passed else False,
        "schema_errors": [] if passed else [EVIL],
        "semantic_exact": None,
        "missing": [],
        "wrong": [] if passed else [{"key": XSS[0], "expected": EVIL, "actual": MARKDOWN[1]}],
        "unexpected": [] if passed else [XSS[1]],
        "anomalies": [XSS[3]],
        "reasons": [] if passed else [EVIL, *FORMULAS],
    }
    return Record(
        run_id=XSS[2],
        seq=seq,
        started_at="2026-01-01T00:00:00Z",
        dataset_version=XSS[1],
        target=TargetRef(endpoint=endpoint, dialect="openai-chat", model=model),
        case_id=case_id,
        case=CaseRef(
            category="adversarial",
            tags=[*XSS[:3], *MARKDOWN[:3], *FORMULAS],
            expected_kind="text",
            prompt=EVIL,
        ),
        repeat=repeat,
        mode="selection",
        outcome=outcome,
        anomalies=[{"code": XSS[1], "detail": EVIL}],
        verdict=verdict,
        latency_ms=12.5,
        raw={"request": {"body": {"messages": [EVIL]}}, "response": {"status": 200, "body": EVIL * 3}},
        error=EVIL if not passed else None,
        notes=[EVIL],
    )
