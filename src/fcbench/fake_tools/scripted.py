"""Scripted fake tools: a suite's ``fakes.json`` (:mod:`fcbench.suite.fakes`) as fake tools.

:func:`scripted_registry` turns a suite's scripts into :class:`~fcbench.fake_tools.toolbox.FakeTool`
entries layered over the built-in :data:`~fcbench.fake_tools.toolbox.REGISTRY` (a script
overrides a built-in fake of the same name), so a :class:`~fcbench.fake_tools.toolbox.FakeToolbox`
runs scripted and built-in fakes through one path: an unknown tool, then the offered schema
(``INVALID_ARGUMENTS``), then the idempotency table for write tools, then the script.

A script answers one call, in this order:

1. ``fail_on_call``: the first entry whose ``call`` is this call's number (the Nth call of the
   tool in the conversation, :attr:`~fcbench.fake_tools.store.CallContext.number`; a
   redelivered call keeps its number) answers with its error;
2. ``responses``: the first entry whose ``when`` holds answers with its result or error; ``when``
   holds when every key it names is present in the arguments with an equal JSON value (compared
   as canonical JSON: ``1`` equals ``1.0``, ``true`` is not ``1``; an empty ``when`` always holds);
3. ``default``, when given;
4. otherwise a ``NOT_FOUND`` failure that says no scripted answer fits the arguments.

Results use the fake tools' envelope (:mod:`fcbench.fake_tools.results`); an error's
``retryable`` left null is true only for ``TEMPORARILY_UNAVAILABLE``. A success carries
``evidence`` whose ``source`` is the script's ``evidence_source``, else ``scripted:<tool>``.
Whether a scripted tool writes comes from the offered tool's ``side_effect``: each successful
execution of a scripted write tool is one side effect in the store (a replay from the
idempotency table is not an execution, so it makes none). ``latency_ms`` is carried on the fake
tool and waited for, for real, by the conversation loop after each execution (the toolbox itself
never sleeps).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from fcbench.contract import Tool, canonical_json
from fcbench.fake_tools.results import failure, is_ok
from fcbench.fake_tools.store import CallContext, FakeStore, SideEffect
from fcbench.fake_tools.toolbox import REGISTRY, FakeTool
from fcbench.suite.fakes import ScriptedAnswer, ScriptedError, ToolScript


def matches(when: Mapping[str, Any], arguments: Mapping[str, Any]) -> bool:
    """Whether every key of ``when`` is present in ``arguments`` with an equal JSON value."""
    return all(
        key in arguments and canonical_json(arguments[key]) == canonical_json(value)
        for key, value in when.items()
    )


def error_envelope(error: ScriptedError) -> dict[str, Any]:
    """The failure envelope of a scripted error."""
    return failure(error.code, error.message, error.details, retryable=error.retryable)


def answer_envelope(answer: ScriptedAnswer) -> dict[str, Any]:
    """The envelope of a scripted answer: its error's failure, else a success around its result."""
    if answer.error is not None:
        return error_envelope(answer.error)
    return {"ok": True, "result": answer.result}


@dataclass(frozen=True)
class ScriptedImplementation:
    """A fake tool's implementation that answers from its script (see the module docstring)."""

    name: str
    """The tool the script is for."""
    script: ToolScript
    """How the tool answers."""
    writes: bool
    """Whether a successful answer is a side effect (the offered tool's ``side_effect`` is ``write``)."""

    def answer(self, arguments: Mapping[str, Any], number: int) -> dict[str, Any]:
        """The envelope for the ``number``-th call of the tool with ``arguments``."""
        script = self.script
        for injected in script.fail_on_call:
            if injected.call == number:
                return error_envelope(injected.error)
        for response in script.responses:
            if matches(response.when, arguments):
                return answer_envelope(response)
        if script.default is not None:
            return answer_envelope(script.default)
        return failure(
            "NOT_FOUND",
            f"{self.name}: nothing was found for these arguments.",
            [
                f"{key}: {canonical_json(value)} matches no scripted answer"
                for key, value in arguments.items()
            ],
        )

    def __call__(self, store: FakeStore, arguments: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
        """Run one validated call against the conversation's ``store``."""
        content = self.answer(arguments, ctx.number)
        if self.writes and is_ok(content):
            change = {"arguments": arguments, "result": content.get("result")}
            store.record(SideEffect(tool=ctx.tool, key=ctx.key, target=self.name, change=change))
        return content


def scripted_tool(name: str, script: ToolScript, *, writes: bool) -> FakeTool:
    """The fake tool that answers ``name``'s calls from ``script``."""
    implementation = ScriptedImplementation(name, script, writes)
    source = script.evidence_source or f"scripted:{name}"
    return FakeTool(name, implementation, latency_ms=script.latency_ms, evidence_source=source)


def scripted_registry(
    scripts: Mapping[str, ToolScript], tools: Sequence[Tool], base: Mapping[str, FakeTool] = REGISTRY
) -> Mapping[str, FakeTool]:
    """``base`` with a scripted fake for every tool ``scripts`` names (a script wins over a fake of
    ``base`` with the same name); a scripted tool writes when the offered tool in ``tools`` says
    ``side_effect: write``. Without scripts, ``base`` itself."""
    if not scripts:
        return base
    offered = {tool.name: tool for tool in tools}
    layered = dict(base)
    for name, script in scripts.items():
        tool = offered.get(name)
        layered[name] = scripted_tool(name, script, writes=tool is not None and tool.writes)
    return MappingProxyType(layered)


__all__ = [
    "ScriptedImplementation",
    "answer_envelope",
    "error_envelope",
    "matches",
    "scripted_registry",
    "scripted_tool",
]
