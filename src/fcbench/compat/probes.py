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

With a suite of the user's own (``fcbench compat --suite``), the keyword probes derived from its
tools (:mod:`fcbench.compat.derive`) are planned after the shipped ones, with case ids
``suite.<tool>.#<pointer>.<keyword>`` (plus ``.strict``); ``only_suite`` plans them alone.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from fcbench.compat.derive import DERIVE_VERSION, derive_probes, probes_digest
from fcbench.compat.models import CapabilityProbe, KeywordProbe, ProbeSet
from fcbench.config import RunConfig
from fcbench.contract import Tool
from fcbench.errors import ConfigError
from fcbench.run import RunSpec, prepare, suite_ref
from fcbench.run.observe import TurnRequest
from fcbench.suite.loader import Suite, load_suite
from fcbench.suite.models import Case, SuiteInfo

PROBES_FILE = Path(__file__).resolve().parent / "probes.json"
"""The probe definitions shipped with fcbench."""

SOURCE_SUITE = "core"
"""The built-in suite whose ``core`` and ``compatibility`` tool sets the probes use."""

KEYWORD_PREFIX = "compat."
DERIVED_PREFIX = "suite."
"""Case-id prefix of the probes derived from a user's suite."""
CAPABILITY_PREFIX = "capability."
STRICT_SUFFIX = ".strict"
STREAM_SUFFIXES = (".json", ".sse")
"""Case-id suffixes of the non-streamed and streamed halves of a stream-agreement probe."""

StrictChoice = Literal["off", "on", "both"]
"""Which strict-mode variants of the keyword probes to run."""


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
    probe: KeywordProbe, tools: dict[str, Tool], strict: StrictChoice, source: str = SOURCE_SUITE
) -> list[ProbeRequest]:
    tool = tools.get(probe.tool)
    if tool is None:
        raise ConfigError(f"compat probe {probe.id!r}: no tool {probe.tool!r} in suite {source!r}")
    variants = {"off": [False], "on": [True], "both": [False, True]}[strict]
    derived = probe.pointer is not None
    requests = []
    for is_strict in variants:
        prefix = DERIVED_PREFIX if derived else KEYWORD_PREFIX
        case_id = prefix + probe.id + (STRICT_SUFFIX if is_strict else "")
        tags = ["compat", *(["derived", probe.tool, probe.keyword] if derived else [probe.id])]
        tags.append("strict" if is_strict else "non-strict")
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
class DerivedSet:
    """The probes derived from a user's suite, and what pins them in the run's manifest."""

    suite: Suite
    """The user's suite, as loaded."""
    ref: str
    """How to load it again from any working directory (a resolved folder or a built-in name)."""
    probes: list[KeywordProbe]
    """One probe per keyword use, in derivation order."""
    tools: dict[str, Tool]
    """The suite's tools by name (the first definition of a name wins)."""
    digest: str
    """SHA-256 over the derivation rules' version, the probes and the tools."""

    def pin(self) -> dict[str, object]:
        """What the manifest's ``filters`` record about the derived probes."""
        return {
            "ref": self.ref,
            "name": self.suite.info.name,
            "dataset_version": self.suite.info.dataset_version,
            "dataset_hash": self.suite.dataset_hash,
            "derive_version": DERIVE_VERSION,
            "probes": len(self.probes),
            "probes_hash": self.digest,
        }


def derive_set(suite: str) -> DerivedSet:
    """Load ``suite`` (a folder or a built-in name) and derive the keyword probes of its tools."""
    loaded = load_suite(suite)
    tools = _tool_index(loaded)
    probes = derive_probes(list(tools.values()))
    return DerivedSet(loaded, suite_ref(suite), probes, tools, probes_digest(probes, list(tools.values())))


@dataclass(frozen=True)
class CompatPlan:
    """The probe variants of one compat run and the suite-like object that carries them."""

    suite: Suite
    requests: dict[str, ProbeRequest]
    """Case id -> probe variant, in plan order."""
    probes: ProbeSet
    derived: DerivedSet | None = None
    """The probes derived from the user's suite (None: shipped probes only)."""


def select_probes(
    probes: ProbeSet, only: list[str] | None, derived: list[KeywordProbe] | None = None
) -> tuple[ProbeSet, list[KeywordProbe]]:
    """Keep only the probes whose id (or capability group; for derived probes also the tool or the
    keyword) is listed.

    None keeps all. Returns the shipped probes kept and the derived ones kept."""
    derived = list(derived or [])
    if not only:
        return probes, derived
    wanted = set(only)
    known = {p.id for p in probes.keyword_probes} | {p.id for p in probes.capability_probes}
    groups = {p.id.split(".")[0] for p in probes.capability_probes}
    mine = {p.id for p in derived} | {p.tool for p in derived} | {p.keyword for p in derived}
    unknown = sorted(wanted - known - groups - mine)
    if unknown:
        raise ConfigError(
            f"unknown compat probe(s): {', '.join(unknown)}; "
            f"known: {', '.join(sorted(known | groups | mine))}",
            key="--probe",
        )
    kept = probes.model_copy(
        update={
            "keyword_probes": [p for p in probes.keyword_probes if p.id in wanted],
            "capability_probes": [
                p for p in probes.capability_probes if p.id in wanted or p.id.split(".")[0] in wanted
            ],
        }
    )
    return kept, [p for p in derived if wanted & {p.id, p.tool, p.keyword}]


def build_plan(
    only: list[str] | None = None,
    strict: StrictChoice = "both",
    *,
    suite: str | None = None,
    only_suite: bool = False,
) -> CompatPlan:
    """Expand the selected probes into probe variants and wrap them in a suite-like object.

    ``suite`` adds the probes derived from that suite's tools; ``only_suite`` drops the shipped
    probes (keyword and capability) and keeps only those."""
    if only_suite and suite is None:
        raise ConfigError("--only-suite needs --suite", key="--only-suite")
    shipped = load_probes()
    if only_suite:
        shipped = shipped.model_copy(update={"keyword_probes": [], "capability_probes": []})
    mine = derive_set(suite) if suite is not None else None
    probes, derived = select_probes(shipped, only, mine.probes if mine else None)
    source = load_suite(SOURCE_SUITE)
    tools = _tool_index(source)
    requests: list[ProbeRequest] = []
    for keyword in probes.keyword_probes:
        requests += _keyword_requests(keyword, tools, strict)
    for capability in probes.capability_probes:
        requests += _capability_requests(capability, tools)
    parts = [source.dataset_hash.encode(), _probe_text().encode("utf-8")]
    version = f"{source.info.dataset_version}+compat.{probes.version}"
    name = f"{SOURCE_SUITE}-compat"
    if mine is not None:
        for probe in derived:
            requests += _keyword_requests(probe, mine.tools, strict, mine.suite.info.name)
        parts += [mine.suite.dataset_hash.encode(), mine.digest.encode()]
        version += f"+{mine.suite.info.name}.{mine.suite.info.dataset_version}.derived.{DERIVE_VERSION}"
        name = f"{mine.suite.info.name}-compat"
    if not requests:
        raise ConfigError("no compat probe selected", key="--probe")
    info = SuiteInfo(
        name=name,
        dataset_version=version,
        description="Schema-keyword and capability probes built from the core suite's tools"
        + (f" and keyword probes derived from suite {mine.suite.info.name!r}." if mine else "."),
    )
    suite_like = Suite(
        path=source.path,
        info=info,
        system=probes.system,
        tool_sets={name: list(tools) for name, tools in source.tool_sets.items()},
        cases=[r.case for r in requests],
        dataset_hash=hashlib.sha256(b"\0".join(parts)).hexdigest(),
    )
    return CompatPlan(
        suite=suite_like, requests={r.case.id: r for r in requests}, probes=probes, derived=mine
    )


def prepare_compat(
    config: RunConfig,
    *,
    out_root: Path,
    probes: list[str] | None = None,
    strict: StrictChoice = "both",
    suite: str | None = None,
    only_suite: bool = False,
) -> tuple[RunSpec, CompatPlan]:
    """A run of mode ``compat`` over the probe plan (targets and keys resolved before any request).

    The run is an ordinary :func:`fcbench.run.execute` run: one record per probe variant, target
    and repeat, each variant asked the way :meth:`ProbeRequest.turn_request` says. The manifest's
    ``filters`` pin the selection and, with ``suite``, the derived probe set (its hash).
    """
    plan = build_plan(probes, strict, suite=suite, only_suite=only_suite)
    measured = config.model_copy(update={"modes": ["compat"], "categories": [], "tags": [], "cases": []})
    filters: dict[str, object] = {"probes": probes or [], "strict": strict}
    if plan.derived is not None:
        filters["suite"] = plan.derived.pin()
        filters["only_suite"] = only_suite
    spec = prepare(
        measured,
        out_root=out_root,
        suite=plan.suite,
        requests={case_id: request.turn_request() for case_id, request in plan.requests.items()},
        filters=filters,
    )
    return spec, plan
