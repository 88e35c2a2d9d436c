"""Drive the runner in-process and read back what a run directory holds (records with blobs expanded)."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from cli_run import stop

from fcbench.config import RunConfig
from fcbench.endpoints import RunningService
from fcbench.run import RunResult, execute, prepare
from fcbench.store.blobs import BLOBS_FILE, expand_blobs, load_blobs
from fcbench.store.records import RECORDS_FILE, iter_record_dicts


def run_in_process(config: dict[str, Any], out: Path, mock_url: str | None = None) -> RunResult:
    """Validate ``config`` like a config file, prepare the run (keys from the environment) and execute it."""
    spec = prepare(RunConfig.model_validate(config), out_root=out, resume_dir=None, shard=None)
    return asyncio.run(execute(spec, services={"mock": RunningService(mock_url)} if mock_url else None))


def records(run_dir: Path) -> list[dict[str, Any]]:
    """Every record of a run, with raw exchanges expanded from the blob store."""
    blobs = load_blobs(run_dir)
    return [expand_blobs(r, blobs) for r in iter_record_dicts(run_dir / RECORDS_FILE)]


def everything_written(root: Path) -> str:
    """Every file under ``root`` as text (gzip members decompressed), for grepping."""
    parts = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.name == BLOBS_FILE or data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data) if data else b""
        parts.append(f"== {path}\n" + data.decode("utf-8", errors="replace"))
    return "\n".join(parts)


def record_keys(rows: list[dict[str, Any]]) -> list[tuple[str, str, int, str]]:
    """The plan key of each record (target label, case id, repeat, mode)."""
    return [
        (f"{r['target']['endpoint']}:{r['target']['model']}", r["case_id"], r["repeat"], r["mode"])
        for r in rows
    ]


def dumps(value: Any) -> str:
    """Compact JSON text of ``value`` (for substring checks)."""
    return json.dumps(value, ensure_ascii=False)


@contextlib.contextmanager
def mock_process(*options: str) -> Iterator[str]:
    """``fcbench mock serve`` in its own process on a free 127.0.0.1 port; yields its root URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "fcbench", "mock", "serve", "--port", "0", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().split()
        assert first and first[0] == "openai-chat", first
        root = first[1].removesuffix("/v1")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if httpx.get(root + "/health", timeout=1.0, trust_env=False).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        yield root
    finally:
        stop(proc)
