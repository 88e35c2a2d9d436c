"""Build small, valid run directories (manifest + records) for metrics and report tests.

Records are built through :class:`fcbench.store.records.Record` and written with the real
:class:`~fcbench.store.records.RecordWriter`, so every file these tests read is one the runner could write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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

DEFAULT_TARGET = ("mock", "sim-a")
USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
"""What the items of :meth:`RunBuilder.add`'s ``usage`` are, in order (the cache parts optional)."""


def call_outcome(*calls: tuple[str, Any]) -> dict[str, Any]:
    """A tool_calls outcome with one call per ``(name, arguments)`` pair."""
    return {
        "kind": "tool_calls",
        "calls": [
            {"id": f"call_{i}", "name": name, "arguments": args, "raw_arguments": None, "parse_error": None}
            for i, (name, args) in enumerate(calls)
        ],
    }


def text_outcome(text: str) -> dict[str, Any]:
    """A text outcome."""
    return {"kind": "text", "text": text}


def error_outcome(code: str = "rate_limited", status: int | None = 429) -> dict[str, Any]:
    """A provider_error outcome."""
    return {"kind": "provider_error", "code": code, "message": f"{code} for test", "status": status}


def verdict(
    decision: str = "correct_call",
    passed: bool | None = None,
    *,
    schema_valid: bool | None = True,
    semantic_exact: bool | None = True,
    reasons: list[str] | None = None,
    wrong: list[dict[str, Any]] | None = None,
    missing: list[str] | None = None,
    schema_errors: list[str] | None = None,
    recovery: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A verdict dict; ``passed`` defaults to whether the decision is a correct one."""
    if passed is None:
        passed = decision in ("correct_call", "correct_abstention", "correct_clarification")
    out: dict[str, Any] = {
        "passed": passed,
        "decision": decision,
        "schema_valid": schema_valid,
        "schema_errors": schema_errors or [],
        "semantic_exact": semantic_exact,
        "missing": missing or [],
        "wrong": wrong or [],
        "unexpected": [],
        "anomalies": [],
    }
    if reasons is not None:
        out["reasons"] = reasons
    if recovery is not None:
        out["recovery"] = recovery
    return out


@dataclass
class RunBuilder:
    """Collects records in memory and writes a run directory."""

    run_dir: Path
    run_id: str = "run-test"
    suite: str = "test"
    dataset_version: str = "1.0.0"
    dataset_hash: str = "0" * 64
    targets: list[tuple[str, str]] = field(default_factory=lambda: [DEFAULT_TARGET])
    modes: list[str] = field(default_factory=lambda: ["selection"])
    repeats: int = 1
    planned: int | None = None
    records: list[Record] = field(default_factory=list)

    def add(
        self,
        case_id: str,
        outcome: dict[str, Any],
        verdict_: dict[str, Any] | None,
        *,
        target: tuple[str, str] = DEFAULT_TARGET,
        repeat: int = 0,
        mode: str = "selection",
        expected_kind: str = "tool",
        category: str = "normal",
        tags: list[str] | None = None,
        prompt: str = "a prompt",
        latency_ms: float | None = 100.0,
        usage: tuple[int | None, ...] = (10, 5),
        cost_usd: float | None = 0.001,
        error: str | None = None,
        raw: dict[str, Any] | None = None,
    ) -> RunBuilder:
        """Append one observation; returns self for chaining."""
        self.records.append(
            Record(
                run_id=self.run_id,
                seq=len(self.records),
                started_at="2026-01-01T00:00:00Z",
                dataset_version=self.dataset_version,
                target=TargetRef(endpoint=target[0], dialect="openai-chat", model=target[1]),
                case_id=case_id,
                case=CaseRef(category=category, tags=tags or [], expected_kind=expected_kind, prompt=prompt),
                repeat=repeat,
                mode=mode,  # type: ignore[arg-type]
                outcome=outcome,
                verdict=verdict_,
                latency_ms=latency_ms,
                usage=dict(zip(USAGE_FIELDS, usage, strict=False)),
                cost_usd=cost_usd,
                raw=raw if raw is not None else {"request": {"model": target[1]}, "response": {"ok": True}},
                error=error,
            )
        )
        return self

    def write(self) -> Path:
        """Write ``manifest.json`` and ``records.jsonl``; return the run directory."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        planned = self.planned
        if planned is None:
            planned = len({r.key for r in self.records})
        manifest = Manifest(
            run_id=self.run_id,
            fcbench_version="0.1.0",
            suite=self.suite,
            dataset_version=self.dataset_version,
            dataset_hash=self.dataset_hash,
            config_hash="c" * 64,
            targets=[
                {"endpoint": e, "dialect": "openai-chat", "base_url": "http://127.0.0.1:1", "model": m}
                for e, m in self.targets
            ],
            modes=self.modes,
            repeats=self.repeats,
            temperature=0.0,
            seed=0,
            planned=planned,
            started_at="2026-01-01T00:00:00Z",
            finished_at="2026-01-01T00:10:00Z",
        )
        write_manifest(self.run_dir, manifest)
        with RecordWriter(self.run_dir / RECORDS_FILE) as writer:
            for record in self.records:
                writer.append(record)
        return self.run_dir
