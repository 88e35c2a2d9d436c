"""Shadow replay: send logged requests to a new target and compare its choices with the logged ones.

Each logged request is read into canonical form (:func:`fcbench.adapters.read_request`), built for the
target's dialect by the target's adapter and sent through the run's one kernel
(:func:`fcbench.run.observe.send_turn`: adapter, transport, retries, redaction), one turn per
request with the logged history as it is. No tool is executed.

Per request the new outcome is compared with the logged one:

* **same decision**: both called a tool, or neither did (a text answer and a refusal are both
  "no call");
* **same tool**: the same decision and the same tool names (as a multiset, any order);
* **same arguments**: the same outcome by the project's one key
  (:func:`fcbench.grading.key.normalised_outcome_key`: equal calls with equal arguments, in any
  order; two no-call answers are the same outcome whatever their words).

Each rate is ``n/d`` over the compared requests. Where the tools agree and the arguments do not,
the differences are listed key by key (``missing``: logged but not sent now, ``changed``,
``extra``), calls of one tool paired in order. A provider error of the new target is coverage
loss, counted by code, never a disagreement; a logged provider error is not replayed (nothing to
compare with). Latency, tokens and cost are reported side by side: the logged latency when the
log line has one, the logged usage priced by :mod:`fcbench.pricing`, and the new target's own.

The logged conversation, system prompt, tools and tool choice are sent as logged; sampling
settings are the replay's own (:class:`ReplayOptions`: temperature 0, 1024 output tokens), the
same for every request, so two targets replayed from one log are asked alike.

Nothing secret leaves a replay: requests are compared as sent and answered (the transport
redacts only the API key and the secrets found in the logs, so a comparison sees the target's own
values), then every comparison and every raw exchange is redacted once more with the documented
secret kinds as well (:class:`~fcbench.redact.Redactor` with ``patterns``) before a report, a
file or the terminal sees it.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from fcbench.contract import Outcome, ProviderErrorOutcome, ToolCall, ToolCallsOutcome, Usage
from fcbench.grading.inputs import ArgumentSpec
from fcbench.grading.key import normalised_outcome_key
from fcbench.grading.semantics import compare_arguments
from fcbench.logs.entries import LogEntry
from fcbench.logs.scan import scan_json
from fcbench.metrics.models import Rate
from fcbench.metrics.stats import percentile
from fcbench.pricing import PriceTable
from fcbench.redact import Redactor
from fcbench.run.observe import ObservationContext, TurnRequest, send_turn
from fcbench.run.plan import Planned, Target
from fcbench.schema.validate import ValidatorCache
from fcbench.suite.loader import Suite
from fcbench.suite.models import Case, ExpectText, SuiteInfo
from fcbench.transport import Limits, RetryPolicy, Transport

EXCHANGES_FILE = "exchanges.jsonl"
"""Raw (redacted) requests and responses of a replay, one line per replayed request."""


@dataclass(frozen=True)
class ReplayOptions:
    """How the replayed requests are sent."""

    temperature: float | None = 0.0
    """Temperature sent (None: the provider's default)."""
    max_tokens: int = 1024
    """Output token limit per request."""
    concurrency: int = 4
    """Requests in flight."""
    timeout_s: float = 60.0
    """Timeout of one request."""
    max_retries: int = 2
    """Retries of a transient failure per request."""
    seed: int = 0
    """Seed sent to providers that accept one."""


@dataclass(frozen=True)
class ArgumentDiff:
    """One argument on which the new call differs from the logged one."""

    key: str
    """Argument name (``calls[i].`` in front when the turn made several calls)."""
    kind: str
    """``missing`` (logged, not sent now), ``changed`` or ``extra`` (sent now, not logged)."""
    logged: Any = None
    new: Any = None


@dataclass(frozen=True)
class Side:
    """What one side (logged or new) did on one request, and what it cost."""

    outcome: Outcome
    latency_ms: float | None = None
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None


@dataclass(frozen=True)
class Comparison:
    """One replayed request."""

    index: int
    """Position of the request among the log entries (0-based)."""
    where: str
    """``file:line`` of the logged exchange."""
    logged: Side
    new: Side
    same_decision: bool = False
    same_tool: bool = False
    same_arguments: bool = False
    diffs: list[ArgumentDiff] = field(default_factory=list)

    @property
    def compared(self) -> bool:
        """False when the new target answered with a provider error (coverage loss)."""
        return not isinstance(self.new.outcome, ProviderErrorOutcome)


@dataclass(frozen=True)
class ReplayReport:
    """Everything a replay measured."""

    target: str
    """``ENDPOINT:MODEL`` of the new target."""
    dialect: str
    """The dialect of the logs."""
    target_dialect: str
    files: list[str]
    requests: int
    """Logged exchanges read."""
    comparisons: list[Comparison]
    """Every replayed request, in log order."""
    not_replayed: dict[str, int] = field(default_factory=dict)
    """Why a logged exchange was not replayed -> count."""

    @property
    def compared(self) -> list[Comparison]:
        """The comparisons whose new answer was not a provider error."""
        return [c for c in self.comparisons if c.compared]

    def rate(self, name: str) -> Rate:
        """``same_decision``, ``same_tool`` or ``same_arguments`` as ``n/d`` over compared requests."""
        rows = self.compared
        return Rate(n=sum(getattr(c, name) for c in rows), d=len(rows))

    @property
    def provider_errors(self) -> dict[str, int]:
        """New target's provider errors by code."""
        codes = Counter(
            c.new.outcome.code for c in self.comparisons if isinstance(c.new.outcome, ProviderErrorOutcome)
        )
        return dict(sorted(codes.items()))


def decision(outcome: Outcome) -> str:
    """``call`` or ``no_call`` (provider errors: ``error``)."""
    if isinstance(outcome, ProviderErrorOutcome):
        return "error"
    return "call" if isinstance(outcome, ToolCallsOutcome) else "no_call"


def _names(outcome: Outcome) -> Counter[str]:
    return Counter(c.name for c in outcome.calls) if isinstance(outcome, ToolCallsOutcome) else Counter()


def argument_diffs(logged: Sequence[ToolCall], new: Sequence[ToolCall]) -> list[ArgumentDiff]:
    """Key-by-key differences of calls of the same tools, calls of one tool paired in order."""
    pending = list(new)
    diffs: list[ArgumentDiff] = []
    several = len(logged) > 1
    for position, call in enumerate(logged):
        match = next((c for c in pending if c.name == call.name), None)
        if match is None:
            continue
        pending.remove(match)
        prefix = f"calls[{position}]." if several else ""
        if not isinstance(call.arguments, dict):
            if call.raw_arguments != match.raw_arguments:
                diffs.append(
                    ArgumentDiff(prefix + "arguments", "changed", call.raw_arguments, match.raw_arguments)
                )
            continue
        report = compare_arguments(ArgumentSpec(exact=call.arguments), match.arguments, prefix=prefix)
        actual = match.arguments if isinstance(match.arguments, dict) else {}
        diffs.extend(
            ArgumentDiff(k, "missing", call.arguments.get(k.removeprefix(prefix))) for k in report.missing
        )
        diffs.extend(ArgumentDiff(w.key, "changed", w.expected, w.actual) for w in report.wrong)
        diffs.extend(
            ArgumentDiff(k, "extra", None, actual.get(k.removeprefix(prefix))) for k in report.unexpected
        )
    return diffs


def compare(index: int, where: str, logged: Side, new: Side) -> Comparison:
    """Compare the new side of one request with its logged side."""
    if isinstance(new.outcome, ProviderErrorOutcome):
        return Comparison(index, where, logged, new)
    same_decision = decision(logged.outcome) == decision(new.outcome)
    same_tool = same_decision and _names(logged.outcome) == _names(new.outcome)
    key = decision(logged.outcome)
    same_arguments = same_decision and (
        normalised_outcome_key(logged.outcome, key) == normalised_outcome_key(new.outcome, key)
    )
    diffs: list[ArgumentDiff] = []
    if same_tool and not same_arguments:
        assert isinstance(logged.outcome, ToolCallsOutcome) and isinstance(new.outcome, ToolCallsOutcome)
        diffs = argument_diffs(logged.outcome.calls, new.outcome.calls)
    return Comparison(index, where, logged, new, same_decision, same_tool, same_arguments, diffs)


def logged_side(entry: LogEntry, prices: PriceTable) -> Side:
    """The logged side of one entry: its outcome, logged latency, usage and what it cost."""
    usage = entry.turn.usage
    cost = prices.cost(entry.model, usage, local=False) if entry.model is not None else None
    return Side(entry.turn.outcome, entry.latency_ms, usage, cost)


def _placeholder_suite() -> Suite:
    return Suite(
        path=Path("."),
        info=SuiteInfo(name="replay", dataset_version="logs"),
        system="",
        tool_sets={},
        cases=[],
        dataset_hash="",
    )


async def replay(
    entries: Sequence[LogEntry],
    target: Target,
    api_key: str | None,
    *,
    dialect: str,
    files: Sequence[str],
    options: ReplayOptions | None = None,
    prices: PriceTable | None = None,
    record_dir: Path | None = None,
) -> ReplayReport:
    """Replay every logged request whose response was a model answer against ``target``.

    ``target`` must be resolved (a managed service's address filled in). With ``record_dir``,
    the raw requests and responses (redacted: the API key and every secret found in the logs)
    go to :data:`EXCHANGES_FILE` there.
    """
    options = options or ReplayOptions()
    prices = prices or PriceTable()
    logged = [[e.raw_request, e.turn.outcome.model_dump(mode="json")] for e in entries]
    secrets = [api_key, *scan_json(logged).secret_values]
    shown = Redactor(secrets, patterns=True)
    transport = Transport(
        timeout_s=options.timeout_s,
        retry=RetryPolicy(max_retries=options.max_retries, budget=len(entries) // 10 + 20),
        redactor=Redactor(secrets),
        concurrency=options.concurrency,
        limits=Limits(),
    )
    base = ObservationContext(
        run_id="replay",
        suite=_placeholder_suite(),
        transport=transport,
        prices=prices,
        validators=ValidatorCache(),
        api_keys={target.endpoint.name: api_key},
        temperature=options.temperature,
        max_tokens=options.max_tokens,
        seed=options.seed,
    )
    chosen = [e for e in entries if not isinstance(e.turn.outcome, ProviderErrorOutcome)]
    limit = asyncio.Semaphore(options.concurrency)

    async def one(entry: LogEntry) -> tuple[Comparison, dict[str, Any]]:
        request = entry.request
        ctx = replace(base, suite=replace(base.suite, system=request.system or ""))
        case = Case(id=f"log-{entry.index + 1:04d}", prompt="", expected=ExpectText())
        planned = Planned(seq=entry.index, target=target, case=case, repeat=0, mode="selection")
        async with limit:
            sent = await send_turn(
                ctx, planned, request.messages, TurnRequest(request.tools, request.tool_choice)
            )
        turn = sent.exchange.turn
        cost = prices.cost(target.model, turn.usage, local=target.endpoint.local)
        new = Side(turn.outcome, round(sent.exchange.latency_ms, 3), turn.usage, cost)
        raw = {"index": entry.index, "where": entry.where, **sent.exchange.raw}
        return compare(entry.index, entry.where, logged_side(entry, prices), new), raw

    try:
        results = await asyncio.gather(*(one(entry) for entry in chosen))
    finally:
        await transport.aclose()
    if record_dir is not None:
        record_dir.mkdir(parents=True, exist_ok=True)
        with (record_dir / EXCHANGES_FILE).open("w", encoding="utf-8") as handle:
            for _, raw in results:
                handle.write(json.dumps(shown.raw(raw), ensure_ascii=False, default=str) + "\n")
    skipped = len(entries) - len(chosen)
    return ReplayReport(
        target=target.label,
        dialect=dialect,
        target_dialect=target.endpoint.dialect,
        files=list(files),
        requests=len(entries),
        comparisons=[redacted(c, shown) for c, _ in results],
        not_replayed={"logged provider error": skipped} if skipped else {},
    )


def redacted(comparison: Comparison, redactor: Redactor) -> Comparison:
    """``comparison`` with every secret ``redactor`` knows (and its pieces) out of both outcomes,
    the argument differences and the place it was logged (decided on before: the flags stay)."""

    def side(value: Side) -> Side:
        outcome = value.outcome
        return replace(
            value, outcome=type(outcome).model_validate(redactor.raw(outcome.model_dump(mode="json")))
        )

    diffs = [
        ArgumentDiff(redactor.text(d.key), d.kind, redactor.raw(d.logged), redactor.raw(d.new))
        for d in comparison.diffs
    ]
    return replace(
        comparison,
        where=redactor.text(comparison.where),
        logged=side(comparison.logged),
        new=side(comparison.new),
        diffs=diffs,
    )


def latency_summary(values: Sequence[float | None]) -> dict[str, float | None]:
    """``{"n", "p50", "p95"}`` of the known latencies (None values left out)."""
    known = sorted(v for v in values if v is not None)
    return {"n": len(known), "p50": percentile(known, 50), "p95": percentile(known, 95)}


__all__ = [
    "EXCHANGES_FILE",
    "ArgumentDiff",
    "Comparison",
    "ReplayOptions",
    "ReplayReport",
    "Side",
    "argument_diffs",
    "compare",
    "decision",
    "latency_summary",
    "logged_side",
    "redacted",
    "replay",
]
