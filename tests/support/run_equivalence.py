"""Compare two run directories as observations: records byte for byte and metrics, what varies from
one run to the next (time, latency, the run id, the mock's port and request ids) set aside.

Two one-process runs of the same plan differ in exactly these values (checked by
``tests/run/test_workers.py``), so a run made another way (several workers, shards merged) must
equal a one-process run once they are set aside.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from cli_inprocess import fcbench_in_process

from fcbench.store.blobs import expand_blobs, load_blobs

VOLATILE_KEYS = frozenset(
    {"run_id", "started_at", "latency_ms", "retrieved_at"}  # the run's identity, times and latencies
    | {"created", "created_at", "completed_at", "X-Request-ID", "request-id", "responseId"}  # the provider's
)
"""Keys, at any depth of a record (its raw exchange expanded), whose values differ between two runs
of one plan: times, latencies and ids made up for each run or request."""

PORT = re.compile(r"^http://127\.0\.0\.1:\d+")

SET_ASIDE = "(set aside)"


def _steady(value: Any) -> Any:
    """``value`` (a record) with its times, ids and the server's port set aside."""
    if isinstance(value, dict):
        return {k: SET_ASIDE if k in VOLATILE_KEYS else _steady(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_steady(v) for v in value]
    if isinstance(value, str):
        return PORT.sub("http://127.0.0.1:PORT", value)
    return value


def comparable_records(run_dir: Path) -> dict[int, str]:
    """``seq`` -> the record's JSON text, its raw exchange expanded and its volatile values set aside;
    a ``seq`` recorded twice fails."""
    blobs = load_blobs(run_dir)
    out: dict[int, str] = {}
    with (run_dir / "records.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            assert record["seq"] not in out, f"seq {record['seq']} recorded twice in {run_dir}"
            record["raw"] = expand_blobs(record["raw"], blobs)
            out[record["seq"]] = json.dumps(_steady(record), ensure_ascii=False)
    return out


def comparable_metrics(run_dir: Path) -> dict[str, Any]:
    """``fcbench report RUN --format json``, without the run's identity, times and latencies."""
    proc = fcbench_in_process("report", str(run_dir), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    for volatile in ("run", "latency_ms", "started_at", "finished_at", "manifest"):
        data.pop(volatile, None)
    targets = data.get("targets", {})
    for target in targets.values() if isinstance(targets, dict) else targets:
        if isinstance(target, dict):
            target.pop("latency_ms", None)
    return data


def only_run_in(folder: Path) -> Path:
    """The one run directory ``fcbench run --out folder`` made."""
    (run_dir,) = [path for path in folder.iterdir() if path.is_dir()]
    return run_dir


__all__ = ["comparable_metrics", "comparable_records", "only_run_in"]
