"""The dialogue as a simulated model reads it: the current request, and the calls and results since it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from fcbench.mock.sim.base import SimCall, SimRequest, SimTurn

ERROR_CODES = ("INVALID_ARGUMENTS", "NOT_FOUND", "CONFLICT", "TEMPORARILY_UNAVAILABLE", "PERMISSION_DENIED")


@dataclass(frozen=True)
class ResultReading:
    """A tool result as the simulated model reads it (ok, or an error code and details)."""

    ok: bool
    code: str = ""
    """Error code (``INVALID_ARGUMENTS``, ``NOT_FOUND``, ...) or ``ERROR`` when none was given."""
    message: str = ""
    details: tuple[Any, ...] = ()
    data: Any = None
    """The result payload of a success (or the whole value when it had no envelope)."""


@dataclass(frozen=True)
class SimExchange:
    """One call the simulated model made, with the result it got."""

    call: SimCall
    outcome: ResultReading | None
    """None when no result for the call arrived."""

    def arguments(self) -> Any:
        """The call's arguments decoded (None when they were not valid JSON)."""
        try:
            return json.loads(self.call.arguments_json)
        except (TypeError, ValueError):
            return None


@dataclass(frozen=True)
class SimDialogue:
    """What the simulated model needs from the turns: the request and the calls since it."""

    request_text: str
    """The user's current request; earlier user turns are prepended when the model had asked a question."""
    last_role: str
    exchanges: tuple[SimExchange, ...]
    """Calls made since the current request, in order, with their results."""
    last_batch: tuple[SimExchange, ...]
    """The calls of the latest assistant turn."""
    earlier: tuple[SimExchange, ...] = ()
    """Calls and results from before the current request (earlier in the conversation)."""

    @property
    def all_exchanges(self) -> tuple[SimExchange, ...]:
        """Every call of the conversation with its result, oldest first."""
        return self.earlier + self.exchanges


def read_outcome(result: Any, is_error: bool) -> ResultReading:
    """Interpret a tool result in the ``{"ok": ..., "result"|"error": ...}`` shape, or anything else."""
    if isinstance(result, str):
        try:
            result = json.loads(result)
        except ValueError:
            code = next((c for c in ERROR_CODES if c in result), "")
            if is_error or code:
                return ResultReading(False, code or "ERROR", result)
            return ResultReading(True, data=result)
    if isinstance(result, dict):
        error = result.get("error")
        failed = result.get("ok") is False or (
            error not in (None, False, "") and result.get("ok") is not True
        )
        if failed or is_error:
            if isinstance(error, dict):
                details = error.get("details")
                return ResultReading(
                    False,
                    str(error.get("code") or "ERROR"),
                    str(error.get("message") or ""),
                    tuple(details) if isinstance(details, list) else (),
                    result,
                )
            message = str(error or result.get("message") or "")
            code = next((c for c in ERROR_CODES if c in message), "ERROR")
            return ResultReading(False, code, message, (), result)
        return ResultReading(True, data=result.get("result", result) if result.get("ok") is True else result)
    if is_error:
        return ResultReading(False, "ERROR", str(result))
    return ResultReading(True, data=result)


READ_CHARS = 8192  # a simulated model reads the head and tail of a longer request


def _request_text(turns: tuple[SimTurn, ...], last_user: int) -> str:
    parts = [turns[last_user].text]
    index = last_user
    while index >= 2 and len(parts) < 4:
        before = turns[index - 1]
        if before.role != "assistant" or before.calls or not before.text.rstrip().endswith("?"):
            break
        earlier = next((i for i in range(index - 2, -1, -1) if turns[i].role == "user"), None)
        if earlier is None:
            break
        parts.insert(0, turns[earlier].text)
        index = earlier
    text = " ".join(p.strip() for p in parts if p.strip())  # read at most READ_CHARS: flat cost
    return text if len(text) <= READ_CHARS else f"{text[: READ_CHARS // 2]} {text[-READ_CHARS // 2 :]}"


def _exchanges(turns: tuple[SimTurn, ...], start: int, stop: int) -> list[list[SimExchange]]:
    batches: list[list[SimExchange]] = []
    i = start
    while i < stop:
        turn = turns[i]
        i += 1
        if turn.role != "assistant" or not turn.calls:
            continue
        results: list[SimTurn] = []
        while i < stop and turns[i].role == "tool":
            results.append(turns[i])
            i += 1
        batches.append([SimExchange(call, _match(call, n, results)) for n, call in enumerate(turn.calls)])
    return batches


def read(request: SimRequest) -> SimDialogue:
    """Read the turns of ``request``."""
    turns = request.turns
    users = [i for i, t in enumerate(turns) if t.role == "user"]
    last_user = users[-1] if users else -1
    text = _request_text(turns, last_user) if users else ""
    current = _exchanges(turns, last_user + 1, len(turns))
    earlier = _exchanges(turns, 0, max(last_user, 0))
    last_role = turns[-1].role if turns else "user"
    return SimDialogue(
        text,
        last_role,
        tuple(ex for batch in current for ex in batch),
        tuple(current[-1]) if current else (),
        tuple(ex for batch in earlier for ex in batch),
    )


def _scalars(data: Any, out: dict[str, Any]) -> None:
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, dict | list):
                _scalars(value, out)
            elif value is not None:
                out.setdefault(str(key), value)
    elif isinstance(data, list) and data:
        _scalars(data[0], out)


def memory(exchanges: tuple[SimExchange, ...]) -> dict[str, Any]:
    """Values the conversation already established, by key: call arguments and result fields (latest wins)."""
    known: dict[str, Any] = {}
    for ex in exchanges:
        found: dict[str, Any] = {}
        args = ex.arguments()
        if isinstance(args, dict):
            _scalars(args, found)
        if ex.outcome is not None and ex.outcome.ok:
            _scalars(ex.outcome.data, found)
        known.update(found)
    return known


def _match(call: SimCall, index: int, results: list[SimTurn]) -> ResultReading | None:
    chosen: SimTurn | None = None
    if call.id is not None:
        chosen = next((r for r in results if r.call_id == call.id), None)
    if chosen is None and index < len(results) and (call.id is None or results[index].call_id is None):
        chosen = results[index]
    if chosen is None:
        chosen = next((r for r in results if r.tool_name == call.name and r.call_id is None), None)
    return None if chosen is None else read_outcome(chosen.result, chosen.is_error)
