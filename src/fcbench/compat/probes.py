"""The compatibility probes: what each one offers, asks and checks, loaded from ``probes.json``.

A *keyword probe* offers one tool of the core suite's ``compatibility`` tool set, forces a call
(``tool_choice: required``) and sends a prompt that tempts a violation of exactly one JSON Schema
keyword family; it runs once with strict mode off and once with it on. A *capability probe* asks
for one behaviour (a tool choice, parallel calls on or off, strict mode, streaming) and says what
counts as honouring it.

Each probe variant becomes one :class:`ProbeRequest` with its own case id (``compat.pattern``,
``compat.pattern.strict``, ``capability.tool_choice.none``, ``capability.stream.agrees.sse``),
and the set of them becomes a suite-like :class:`~fcbench.suite.loader.Suite` so the ordinary
records, grader and run directory apply.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from fcbench.config import RunConfig
from fcbench.contract import Tool
from fcbench.errors import ConfigError
from fcbench.run import RunSpec, prepare
from fcbench.run.observe import TurnRequest
from fcbench.suite.loader import Suite, load_suite
from fcbench.suite.models import Case, SuiteInfo

PROBES_FILE = Path(__file__).resolve().parent / "probes.json"
"""The probe definitions shipped with fcbench."""

SOURCE_SUITE = "core"
"""The built-in suite whose ``core`` and ``compatibility`` tool sets the probes use."""

KEYWORD_PREFIX = "compat."
CAPABILITY_PREFIX = "capability."
STRICT_SUFFIX = ".strict"
STREAM_SUFFIXES = (".json", ".sse")
"""Case-id suffixes of the non-streamed and streamed halves of a stream-agreement probe."""

StrictChoice = Literal["off", "on", "both"]
"""Which strict-mode variants of the keyword probes to run."""

_TOPICS = {
    "tool_choice": "tool_choice",
    "parallel_control": "parallel",
    "strict_mode": "strict",
    "streaming": "stream",
}
"""``requires`` kind -> the word an adapter note about it contains."""

Expectation = Literal["call", "no_call", "named", "parallel", "single", "valid", "stream_agrees"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class KeywordProbe(_Strict):
    """A tool plus a prompt that tempts a violation of one keyword family, and how to check calls."""

    id: str
    keyword: str
    """The row label in the keyword matrix."""
    tool: str
    """Name of a tool of the compatibility tool set."""
    prompt: str
    keywords: list[str] = Field(default_factory=list)
    """Validation errors raised by these keywords count as violations."""
    through: list[str] = Field(default_factory=list)
    """Errors whose schema path passes through one of these keywords also count."""
    under: list[str] = Field(default_factory=list)
    """Only errors located under one of these top-level properties count (of any keyword unless
    ``keywords``/``through`` narrow them; the property left out entirely counts only when
    ``required`` is among ``keywords``, otherwise it is an omission)."""
    transform_keywords: list[str] | None = None
    """Schema changes of these keywords mark the probe ``transformed`` (default: ``keywords``;
    with ``under`` set and nothing listed, any change under those properties)."""
    fields: list[str] = Field(default_factory=list)
    """Top-level properties carrying the probed values (a call sending none of them is counted as
    having omitted the value: it honours the keyword only vacuously)."""
    expect_values: dict[str, Any] = Field(default_factory=dict)
    """Values the call must carry (instructions from the tool's description)."""
    defaults: bool = False
    """Every property left unspecified must be absent or equal to its schema ``default``."""
    why: str = ""

    @model_validator(mode="after")
    def _has_a_check(self) -> KeywordProbe:
        if not (self.keywords or self.through or self.under or self.expect_values or self.defaults):
            raise ValueError(f"probe {self.id!r} checks nothing")
        return self

    def changes_keywords(self) -> list[str]:
        """Keywords whose schema changes count as transforming this probe (empty: any, under ``under``)."""
        if self.transform_keywords is not None:
            return self.transform_keywords
        return [] if self.under else self.keywords


class CapabilityProbe(_Strict):
    """A request for one behaviour and what honouring it means."""

    id: str
    capability: str
    """The row label in the capability matrix."""
    requires: str | None = None
    """What the dialect must be able to express: ``tool_choice:<mode>``, ``parallel_control``,
    ``strict_mode`` or ``streaming`` (see :class:`~fcbench.adapters.base.Capabilities`)."""
    tools: list[str]
    prompt: str
    tool_choice: str = "auto"
    parallel_tool_calls: bool | None = None
    strict: bool = False
    expect: Expectation
    expected: dict[str, Any]
    """The case's ``expected`` (for the ordinary grade stored in each record)."""

    def topic(self) -> str | None:
        """The word an adapter note about this probe's request contains (None: no such notes)."""
        if self.requires is None:
            return None
        return _TOPICS.get(self.requires.partition(":")[0])


class ProbeSet(_Strict):
    """Everything in ``probes.json``."""

    version: str
    system: str
    keyword_probes: list[KeywordProbe]
    capability_probes: list[CapabilityProbe]


@dataclass(frozen=True)
class ProbeRequest:
    """One planned probe variant: what to send, and which probe judges the answer."""

    case: Case
    tools: list[Tool]
    tool_choice: str
    strict: bool
    stream: bool
    parallel_tool_calls: bool | None
    keyword: KeywordProbe | None = None
    capability: CapabilityProbe | None = None

    def turn_request(self) -> TurnRequest:
        """The request shape the run sends for this variant."""
        return TurnRequest(
            tools=list(self.tools),
            tool_choice=self.tool_choice,
            stream=self.stream,
            strict=self.strict,
            parallel_tool_calls=self.parallel_tool_calls,
        )


@cache
def _probe_text() -> str:
    return PROBES_FILE.read_text(encoding="utf-8")


def load_probes() -> ProbeSet:
    """The shipped probe set."""
    return ProbeSet.model_validate_json(_probe_text())


def _tool_index(source: Suite) -> dict[str, Tool]:
    index: dict[str, Tool] = {}
    for tools in source.tool_sets.values():
        for tool in tools:
            index.setdefault(tool.name, tool)
    return index


def _keyword_requests(
    probe: KeywordProbe, tools: dict[str, Tool], strict: StrictChoice
) -> list[ProbeRequest]:
    tool = tools.get(probe.tool)
    if tool is None:
        raise ConfigError(f"compat probe {probe.id!r}: no tool {probe.tool!r} in suite {SOURCE_SUITE!r}")
    variants = {"off": [False], "on": [True], "both": [False, True]}[strict]
    requests = []
    for is_strict in variants:
        case_id = KEYWORD_PREFIX + probe.id + (STRICT_SUFFIX if is_strict else "")
        tags = ["compat", probe.id, "strict" if is_strict else "non-strict"]
        case = Case(
            id=case_id,
            prompt=probe.prompt,
            tools=[tool],
            expected={"kind": "tool", "name": tool.name},
            category="boundary",
            tags=tags,
            note=probe.why or None,
        )
        requests.append(ProbeRequest(case, [tool], "required", is_strict, False, None, keyword=probe))
    return requests


def _capability_requests(probe: CapabilityProbe, tools: dict[str, Tool]) -> list[ProbeRequest]:
    missing = [name for name in probe.tools if name not in tools]
    if missing:
        raise ConfigError(f"compat probe {probe.id!r}: no tool {missing[0]!r} in suite {SOURCE_SUITE!r}")
    offered = [tools[name] for name in probe.tools]
    suffixes: list[tuple[str, bool]] = (
        [(STREAM_SUFFIXES[0], False), (STREAM_SUFFIXES[1], True)]
        if probe.expect == "stream_agrees"
        else [("", False)]
    )
    requests = []
    for suffix, stream in suffixes:
        case = Case.model_validate(
            {
                "id": CAPABILITY_PREFIX + probe.id + suffix,
                "prompt": probe.prompt,
                "tools": [t.model_dump() for t in offered],
                "expected": probe.expected,
                "category": "normal",
                "tags": ["capability", probe.id.split(".")[0]],
            }
        )
        requests.append(
            ProbeRequest(
                case,
                offered,
                probe.tool_choice,
                probe.strict,
                stream,
                probe.parallel_tool_calls,
                capability=probe,
            )
        )
    return requests


@dataclass(frozen=True)
class CompatPlan:
    """The probe variants of one compat run and the suite-like object that carries them."""

    suite: Suite
    requests: dict[str, ProbeRequest]
    """Case id -> probe variant, in plan order."""
    probes: ProbeSet


def select_probes(probes: ProbeSet, only: list[str] | None) -> ProbeSet:
    """Keep only the probes whose id (or keyword/capability group) is listed; None keeps all."""
    if not only:
        return probes
    wanted = set(only)
    known = {p.id for p in probes.keyword_probes} | {p.id for p in probes.capability_probes}
    groups = {p.id.split(".")[0] for p in probes.capability_probes}
    unknown = sorted(wanted - known - groups)
    if unknown:
        raise ConfigError(
            f"unknown compat probe(s): {', '.join(unknown)}; known: {', '.join(sorted(known | groups))}",
            key="--probe",
        )
    return probes.model_copy(
        update={
            "keyword_probes": [p for p in probes.keyword_probes if p.id in wanted],
            "capability_probes": [
                p for p in probes.capability_probes if p.id in wanted or p.id.split(".")[0] in wanted
            ],
        }
    )


def build_plan(only: list[str] | None = None, strict: StrictChoice = "both") -> CompatPlan:
    """Expand the selected probes into probe variants and wrap them in a suite-like object."""
    probes = select_probes(load_probes(), only)
    source = load_suite(SOURCE_SUITE)
    tools = _tool_index(source)
    requests: list[ProbeRequest] = []
    for keyword in probes.keyword_probes:
        requests += _keyword_requests(keyword, tools, strict)
    for capability in probes.capability_probes:
        requests += _capability_requests(capability, tools)
    digest = hashlib.sha256(source.dataset_hash.encode() + b"\0" + _probe_text().encode("utf-8")).hexdigest()
    info = SuiteInfo(
        name=f"{SOURCE_SUITE}-compat",
        dataset_version=f"{source.info.dataset_version}+compat.{probes.version}",
        description="Schema-keyword and capability probes built from the core suite's tools.",
    )
    suite = Suite(
        path=source.path,
        info=info,
        system=probes.system,
        tool_sets={name: list(tools) for name, tools in source.tool_sets.items()},
        cases=[r.case for r in requests],
        dataset_hash=digest,
    )
    return CompatPlan(suite=suite, requests={r.case.id: r for r in requests}, probes=probes)


def prepare_compat(
    config: RunConfig, *, out_root: Path, probes: list[str] | None = None, strict: StrictChoice = "both"
) -> tuple[RunSpec, CompatPlan]:
    """A run of mode ``compat`` over the probe plan (targets and keys resolved before any request).

    The run is an ordinary :func:`fcbench.run.execute` run: one record per probe variant, target
    and repeat, each variant asked the way :meth:`ProbeRequest.turn_request` says.
    """
    plan = build_plan(probes, strict)
    measured = config.model_copy(update={"modes": ["compat"], "categories": [], "tags": [], "cases": []})
    spec = prepare(
        measured,
        out_root=out_root,
        suite=plan.suite,
        requests={case_id: request.turn_request() for case_id, request in plan.requests.items()},
        filters={"probes": probes or [], "strict": strict},
    )
    return spec, plan
