"""Helpers for the simulated-model tests: real tool files, request builders, reply readers."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import fcbench
from fcbench.mock.sim import get_model
from fcbench.mock.sim.base import SimCall, SimReply, SimRequest, SimTool, SimTurn

BUILTIN = Path(fcbench.__file__).resolve().parent / "suite" / "builtin"
MODELS = ("sim-careful", "sim-eager", "sim-sloppy", "sim-flaky")


@cache
def _tool_file(suite: str, name: str) -> tuple[SimTool, ...]:
    data = json.loads((BUILTIN / suite / name).read_text(encoding="utf-8"))
    return tuple(SimTool(t["name"], t.get("description", ""), t["parameters"]) for t in data["tools"])


def tools(suite: str = "core") -> tuple[SimTool, ...]:
    """The suite's main tool set (``tools.core.json``)."""
    return _tool_file(suite, "tools.core.json")


def compat_tool(name: str) -> SimTool:
    """One probe of the core suite's ``tools.compatibility.json``."""
    return next(t for t in _tool_file("core", "tools.compatibility.json") if t.name == name)


def system(suite: str = "core") -> str:
    """The suite's system prompt."""
    return (BUILTIN / suite / "system.txt").read_text(encoding="utf-8")


def case(case_id: str, suite: str = "core") -> dict[str, Any]:
    """One case of the suite's ``cases.jsonl`` by id."""
    for line in (BUILTIN / suite / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            data = json.loads(line)
            if data["id"] == case_id:
                return dict(data)
    raise KeyError(case_id)


def user(text: str) -> SimTurn:
    """A user turn."""
    return SimTurn("user", text)


def called(name: str, arguments: Any, call_id: str = "call_1") -> SimTurn:
    """An assistant turn that made one call."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return SimTurn("assistant", calls=(SimCall(name, text, call_id),))


def result(name: str, value: Any, call_id: str = "call_1") -> SimTurn:
    """A tool turn answering ``call_id``."""
    failed = isinstance(value, dict) and value.get("ok") is False
    return SimTurn("tool", call_id=call_id, tool_name=name, result=value, is_error=failed)


def error(code: str, message: str, details: list[Any] | None = None) -> dict[str, Any]:
    """A failure envelope as the fake tools return it."""
    return {"ok": False, "error": {"code": code, "message": message, "details": details or []}}


def ok(value: dict[str, Any]) -> dict[str, Any]:
    """A success envelope."""
    return {"ok": True, "result": value}


def ask(
    model: str,
    turns: str | list[SimTurn],
    *,
    suite: str = "core",
    offered: tuple[SimTool, ...] | None = None,
    **options: Any,
) -> SimReply:
    """The reply of ``model`` to a prompt (or turns) with the suite's system prompt and tools."""
    sim = get_model(model)
    assert sim is not None
    conversation = (user(turns),) if isinstance(turns, str) else tuple(turns)
    request = SimRequest(
        model=model,
        system=system(suite),
        turns=conversation,
        tools=offered if offered is not None else tools(suite),
        **options,
    )
    return sim.respond(request)


def only_call(reply: SimReply) -> tuple[str, Any]:
    """Name and decoded arguments of the reply's single call."""
    assert reply.kind == "calls", reply
    assert len(reply.calls) == 1, reply.calls
    return reply.calls[0].name, json.loads(reply.calls[0].arguments_json)


def calls(reply: SimReply) -> list[tuple[str, Any]]:
    """Every call of the reply, arguments decoded."""
    assert reply.kind == "calls", reply
    return [(c.name, json.loads(c.arguments_json)) for c in reply.calls]
