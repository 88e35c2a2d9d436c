"""A tool-order run of the built-in ``tool-order`` suite, in-process over real HTTP against the mock.

``sim-careful`` picks by meaning; ``sim-eager`` picks the first offered of the tools that fit about
equally (by position), so the two give the probe's figures at both ends.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from fcbench.config import RunConfig
from fcbench.endpoints import RunningService
from fcbench.run import execute, prepare

BY_MEANING = "sim:sim-careful"
"""A target that picks by meaning."""
BY_POSITION = "sim-responses:sim-eager"
"""A target that picks by position among the tools that fit."""


def tool_order_run(mock_url: str, out: Path, order: str = "shuffle:4", **config: Any) -> Path:
    """Run the ``tool-order`` suite with ``tool_order: order`` on both targets; the run directory."""
    data: dict[str, Any] = {
        "suite": "tool-order",
        "targets": [BY_MEANING, BY_POSITION],
        "repeats": 1,
        "tool_order": order,
        "max_retries": 0,
        **config,
    }
    spec = prepare(RunConfig.model_validate(data), out_root=out)
    return asyncio.run(execute(spec, services={"mock": RunningService(mock_url)})).run_dir
