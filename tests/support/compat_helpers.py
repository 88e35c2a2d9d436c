"""Helpers shared by the compat tests: scripted replies for the mock's ``sim-scripted`` model."""

from __future__ import annotations

import json
from typing import Any

REPLY_HEADER = "X-Fcbench-Sim-Reply"
FAULT_HEADER = "X-Fcbench-Fault"


def scripted(reply: dict[str, Any]) -> dict[str, str]:
    """Headers making the mock's ``sim-scripted`` model give ``reply``."""
    return {REPLY_HEADER: json.dumps(reply)}


def calls(*items: tuple[str, Any]) -> dict[str, str]:
    """Headers scripting one turn with these ``(name, arguments)`` calls."""
    return scripted({"kind": "calls", "calls": [{"name": n, "arguments": a} for n, a in items]})


def text(value: str = "Sure.") -> dict[str, str]:
    """Headers scripting a text turn."""
    return scripted({"kind": "text", "text": value})
