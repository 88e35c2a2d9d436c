"""Fixtures for the compat tests: run probes against the session's mock provider."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from fcbench.compat import CompatReport, ProbeRequest, prepare_compat, report_from_run
from fcbench.config import RunConfig
from fcbench.endpoints import RunningService
from fcbench.run import execute
from fcbench.run.plan import Planned, Target

RunCompat = Callable[..., tuple[CompatReport, Path]]

HeaderHook = Callable[[ProbeRequest, Target], Mapping[str, str] | None]
"""Extra request headers per probe variant and target (drive ``sim-scripted``, inject a fault)."""


@pytest.fixture
def run_compat(mock_server: str, tmp_path: Path) -> RunCompat:
    """``run(targets, probes, strict=, repeats=, headers=, max_retries=)`` -> (report, run dir)."""

    def run(
        targets: list[str],
        probes: list[str] | None,
        *,
        strict: str = "off",
        repeats: int = 1,
        headers: HeaderHook | None = None,
        max_retries: int = 0,
    ) -> tuple[CompatReport, Path]:
        config = RunConfig(targets=targets, repeats=repeats, max_retries=max_retries, concurrency=4)
        spec, plan = prepare_compat(config, out_root=tmp_path, probes=probes, strict=strict)  # type: ignore[arg-type]

        def per_request(planned: Planned, turn: int) -> Mapping[str, str] | None:
            return headers(plan.requests[planned.case.id], planned.target) if headers else None

        done = asyncio.run(execute(spec, services={"mock": RunningService(mock_server)}, headers=per_request))
        return report_from_run(done.run_dir), done.run_dir

    return run


WriteSuite = Callable[[Path, list[dict[str, Any]]], Path]
"""``write(folder, tools)`` -> a suite folder named ``mine`` with those tools and one case."""


def write_suite_folder(folder: Path, tools: list[dict[str, Any]]) -> Path:
    """Write a minimal suite (``mine`` 1.0.0) whose core tool set is ``tools``."""
    folder.mkdir(parents=True, exist_ok=True)
    info = {"name": "mine", "dataset_version": "1.0.0"}
    (folder / "suite.json").write_text(json.dumps(info), encoding="utf-8")
    (folder / "system.txt").write_text("You help.\n", encoding="utf-8")
    (folder / "tools.core.json").write_text(json.dumps({"tools": tools}), encoding="utf-8")
    case = {"id": "c1", "prompt": "Go.", "expected": {"kind": "tool", "name": tools[0]["name"]}}
    (folder / "cases.jsonl").write_text(json.dumps(case) + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def write_suite() -> WriteSuite:
    """The suite writer (:func:`write_suite_folder`)."""
    return write_suite_folder
