"""Tool selection: relevance of each offered tool, abstention, clarification and the call plan.

The planner reads the user's request, the system text and the offered schemas only. It ranks the
tools by how well their names and descriptions match the request and how much of their required
input the text supplies, then decides: answer in text (abstain), ask for a missing value, or call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from fcbench.mock.sim import lexicon as lx
from fcbench.mock.sim import text as tx
from fcbench.mock.sim.base import SimTool
from fcbench.mock.sim.evidence import Found
from fcbench.mock.sim.extract import Extraction, extract, schema_reading, with_value
from fcbench.mock.sim.schemas import properties, required, schema_key

GENERIC_NAME_CONCEPTS = frozenset({"w:get", "w:set", "w:do", "w:run", "w:tool", "w:api", "id"})
AVOID_RE = re.compile(
    r"\bwhen (?:an? |the )?(?P<a>[\w\s]{2,40}?) (?:is|are) (?:not|un)available\b|"
    r"\bwithout (?:an? |the )?(?P<b>[\w\s]{2,30}?)(?:[.,;]|$)|"
    r"\bif (?:no|there is no) (?P<c>[\w\s]{2,30}?)(?:[.,;]|$)",
    re.I,
)
PROHIBIT_RE = re.compile(
    r"\b(?:never|do not|don't|must not|may not|cannot|can't|not allowed|forbidden|disabled|prohibited|"
    r"only a human)\b",
    re.I,
)
CONDITION_RE = re.compile(r"\b(?:without|unless|only|if|before|until|except|when|whose)\b", re.I)
CALL_VERB_RE = re.compile(r"\b(?:call|use|run|invoke|execute|trigger)\b", re.I)
IDENT_RE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[a-z]+(?:[A-Z][a-z0-9]+)+\b")


@dataclass(frozen=True)
class ToolInfo:
    """What a model gathers from one offered tool's name, description and schema."""

    tool: SimTool
    name_concepts: frozenset[str]
    desc_concepts: frozenset[str]
    param_concepts: frozenset[str]
    write: bool
    """The name or description suggests a side effect (cancel, refund, delete, create, ...)."""
    avoid_words: frozenset[str] = frozenset()
    """Words of a condition under which the description says not to use the tool."""

    @property
    def all_concepts(self) -> frozenset[str]:
        """Name and description concepts together."""
        return self.name_concepts | self.desc_concepts


def profile(tool: SimTool) -> ToolInfo:
    """Read one tool (each distinct name, description and schema is read once)."""
    return ToolInfo(tool, *_reading(tool.name, tool.description, schema_key(tool.parameters)))


Reading = tuple[frozenset[str], frozenset[str], frozenset[str], bool, frozenset[str]]


@lru_cache(maxsize=1024)
def _reading(name: str, description: str, key: bytes | str) -> Reading:
    params = properties(schema, schema) if isinstance(schema := schema_reading(key)[0], dict) else {}
    param_text = " ".join(f"{n} {s.get('description', '')}" for n, s in params.items())
    head = f"{tx.split_identifier(name)} {description}"
    write = (
        bool(tx.action_words(tx.split_identifier(name)))
        or bool(tx.action_words(description.split(".")[0]) & tx.WRITE_CONCEPTS)
        or bool(re.search(r"\b(?:creates?|cancels?|deletes?|refunds?|removes?|updates?)\b", head, re.I))
    )
    avoid: set[str] = set()
    for m in AVOID_RE.finditer(description):
        phrase = next(g for g in m.groups() if g)
        avoid |= {w for w in tx.words(phrase) if w not in {"exact", "public", "valid", "an", "a", "the"}}
    name_c, desc_c = frozenset(tx.concepts(name) - GENERIC_NAME_CONCEPTS), frozenset(tx.concepts(description))
    return name_c, desc_c, frozenset(tx.concepts(param_text)), write, frozenset(avoid)


@dataclass(frozen=True)
class Candidate:
    """One tool scored against the request."""

    info: ToolInfo
    extraction: Extraction
    relevance: float
    score: float

    @property
    def name(self) -> str:
        """Tool name."""
        return self.info.tool.name


@dataclass(frozen=True)
class PlannedCall:
    """A call the model intends to make."""

    tool: SimTool
    extraction: Extraction


@dataclass(frozen=True)
class Plan:
    """The decision for a user request."""

    kind: Literal["calls", "clarify", "abstain"]
    calls: tuple[PlannedCall, ...] = ()
    reason: str = ""
    """Abstentions: why (greeting, policy, bulk, unsupported, forbidden, unknown_tool, no_tool, ...)."""
    target: Candidate | None = None
    """Clarifications: the tool that would be called once the values are known."""
    ranked: tuple[Candidate, ...] = ()
    injected: bool = False
    """Instruction-like text was removed from the request before planning."""
    subject: str = ""
    """A word or value the text answer should mention (an unknown tool name, an unpaid state)."""


@dataclass(frozen=True)
class Policy:
    """How strictly a personality plans."""

    careful: bool = True
    """Honour prohibitions, strip injected instructions, abstain on policy and unsupported requests."""
    min_relevance: float = 1.0
    check_state_first: bool = True
    """Check an order's state with a read tool before a refund when the state is unknown."""
    state: str | None = None
    """An order state established by earlier tool results (``paid``, ``pending``, ...)."""
    first_match: float | None = None
    """By position: the first offered of the complete tools this near the best that write as it does."""


def _mentions(text: str, name: str) -> bool:
    return name in text and re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None


def recall(extraction: Extraction, schema: dict[str, Any], memory: Mapping[str, Any]) -> Extraction:
    """Fill required values the text lacks from what the conversation already established."""
    props = properties(schema, schema)
    for name in extraction.missing:
        if name in memory and name in props and name not in extraction.problems:
            value = memory[name]
            extraction = with_value(extraction, name, Found(value, value, value, "context", 2.0))
    return extraction


def rank(text: str, infos: list[ToolInfo], memory: Mapping[str, Any] | None = None) -> list[Candidate]:
    """Score every tool against ``text`` (and values remembered from the conversation), best first."""
    wanted = tx.concepts(text)
    asked = tx.action_words(text)
    extractions = {i.tool.name: extract(i.tool.parameters, text) for i in infos}
    if memory:
        extractions = {
            i.tool.name: recall(extractions[i.tool.name], i.tool.parameters, memory) for i in infos
        }
    usable: set[frozenset[str]] = set()
    for info in infos:
        for prop, found in extractions[info.tool.name].values.items():
            if found.value is not None and found.strength >= 2 and found.kind != "context":
                usable.add(frozenset(tx.split_identifier(prop).split()))
    out: list[Candidate] = []
    for info in infos:
        ex = extractions[info.tool.name]
        relevance = (
            3 * len(wanted & info.name_concepts)
            + len(wanted & info.desc_concepts)
            + 0.5 * len(wanted & info.param_concepts - info.all_concepts)
        )
        if _mentions(text, info.tool.name):
            relevance += 10
        if info.write and asked & info.name_concepts:
            relevance += 4
        elif info.write:
            relevance -= 4
        evidence = ex.strength()
        score = relevance + evidence - 1.5 * len(ex.missing)
        if ex.complete and (evidence > 0 or relevance > 0):
            score += 4 if required(info.tool.parameters, info.tool.parameters) else 1
        if info.avoid_words and any(words <= info.avoid_words for words in usable):
            score -= 6
        out.append(Candidate(info, ex, relevance, score))
    return sorted(out, key=lambda c: c.score, reverse=True)


def forbidden_tools(system: str, infos: list[ToolInfo]) -> set[str]:
    """Tools the system text forbids by name or by their action (e.g. 'Never issue refunds')."""
    banned: set[str] = set()
    for sentence, actions in _prohibitions(system):
        for info in infos:
            if _mentions(sentence, info.tool.name) or (info.write and actions & info.all_concepts):
                banned.add(info.tool.name)
    return banned


@lru_cache(maxsize=256)
def _prohibitions(system: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """Sentences of the system text that forbid without a condition, each with the write actions it names."""
    return tuple(
        (s, tx.action_words(s) & tx.WRITE_CONCEPTS)
        for s in tx.sentences(system)
        if PROHIBIT_RE.search(s) and not CONDITION_RE.search(s)
    )


def unknown_tool(text: str, infos: list[ToolInfo]) -> str | None:
    """An identifier the user asks to call that no offered tool (or parameter) is named like."""
    if not CALL_VERB_RE.search(text):
        return None
    names = {i.tool.name for i in infos}
    params = {p for i in infos for p in properties(i.tool.parameters, i.tool.parameters)}
    for ident in IDENT_RE.findall(text):
        if ident in names or ident in params:
            continue
        if not any(_similar(ident, n) for n in names):
            return str(ident)
    return None


def _similar(a: str, b: str) -> bool:
    a2, b2 = a.lower().replace("_", ""), b.lower().replace("_", "")
    return a2.rstrip("s") == b2.rstrip("s") or (len(a2) > 5 and (a2 in b2 or b2 in a2))


def stated_state(text: str) -> str | None:
    """``pending`` when the user says outright they have not paid (a claim of payment proves nothing)."""
    return "pending" if lx.STATED_UNPAID_RE.search(text) else None


def _state_checker(target: Candidate, ranked: list[Candidate]) -> PlannedCall | None:
    ids = {
        n: f
        for n, f in target.extraction.values.items()
        if f.kind in {"id", "pattern", "context"} and f.value
    }
    for cand in ranked:
        if cand.info.write or not (cand.info.all_concepts & {"find", "search", "w:statu", "w:check"}):
            continue
        props = properties(cand.info.tool.parameters, cand.info.tool.parameters)
        shared = [n for n in ids if n in props]
        needed = required(cand.info.tool.parameters, cand.info.tool.parameters)
        if shared and set(needed) <= set(shared):
            ex = Extraction()
            for n in shared:
                ex = with_value(ex, n, ids[n])
            return PlannedCall(cand.info.tool, ex)
    return None


def _multi_intent(
    text: str, infos: list[ToolInfo], policy: Policy, memory: Mapping[str, Any] | None
) -> list[PlannedCall]:
    acting = [clause for clause in tx.clauses(text) if tx.has_action(clause)]
    calls: list[PlannedCall] = []
    for clause in acting if len(acting) > 1 else ():  # one clause never plans calls of several tools
        ranked = rank(clause, infos, memory)
        if (
            ranked
            and ranked[0].extraction.complete
            and (ranked[0].relevance >= policy.min_relevance or ranked[0].extraction.strength() >= 2.5)
        ):
            best = ranked[0]
            key = (best.name, repr(best.extraction.args()))
            if all((c.tool.name, repr(c.extraction.args())) != key for c in calls):
                calls.append(PlannedCall(best.info.tool, best.extraction))
    return calls if len({c.tool.name for c in calls}) > 1 else []


def _fanout(best: Candidate) -> list[PlannedCall]:
    for name, several in best.extraction.fanout.items():
        if "." not in name and len(several) > 1:
            return [PlannedCall(best.info.tool, with_value(best.extraction, name, f)) for f in several]
    return [PlannedCall(best.info.tool, best.extraction)]


def _careful_abstention(
    text: str, ranked: list[Candidate], allowed: list[ToolInfo], banned: list[ToolInfo], strong: bool
) -> tuple[str, str] | None:
    """Why a careful model declines ``text`` before choosing a tool (``(reason, subject)``), or None;
    ``banned``: the tools the system prompt forbids; ``strong``: a value was read with strong evidence."""
    destructive = tx.action_words(text) & tx.DESTRUCTIVE_CONCEPTS
    settled = ranked[0].extraction.complete and len(ranked[0].extraction.values) >= 2
    if tx.is_policy_question(text) and not strong and not settled:
        return "policy", ""
    if destructive and tx.BULK_RE.search(text) and not ranked[0].extraction.fanout:
        return "bulk", sorted(destructive)[0]
    for action in sorted(tx.action_words(text) & tx.WRITE_CONCEPTS):
        if not any(action in i.all_concepts for i in allowed):
            banned_cover = any(action in i.all_concepts for i in banned)
            return ("forbidden" if banned_cover else "unsupported"), action
    missing_tool = unknown_tool(text, allowed)
    if missing_tool is not None and ranked[0].relevance < 10:
        return "unknown_tool", missing_tool
    return None


def _has_strong_value(ranked: list[Candidate]) -> bool:
    """Whether any candidate read a value from the text with strong evidence."""
    return any(
        f.strength >= 2.5 and f.value is not None for c in ranked for f in c.extraction.values.values()
    )


def _complete_alternative(best: Candidate, ranked: list[Candidate], policy: Policy) -> Candidate:
    """A careful model prefers a relevant read-only tool it can fill completely over an incomplete best."""
    ok = (c for c in ranked[1:] if c.extraction.complete and c.relevance >= policy.min_relevance)
    return next((c for c in ok if c.extraction.strength() >= 1.5 and not c.info.write), best)


def _refund_step(
    text: str, best: Candidate, ranked: list[Candidate], policy: Policy
) -> Candidate | PlannedCall | str:
    """What a careful model does before a refund-like write: the write itself (a candidate, maybe
    another write that fits the order's state), a state check first (a planned call), or the unpaid
    state it declines for (a string)."""
    state = policy.state or stated_state(text)
    if state is None and policy.check_state_first:
        checker = _state_checker(best, ranked)
        return best if checker is None else checker
    if state is None or state.lower() not in lx.UNPAID_STATES:
        return best
    writes = (c for c in ranked if c.info.write and c is not best and c.extraction.complete)
    other = next((c for c in writes if tx.action_words(text) & c.info.name_concepts), None)
    return state.lower() if other is None or state.lower() != "pending" else other


def plan(
    text: str,
    tools: tuple[SimTool, ...],
    system: str,
    policy: Policy,
    memory: Mapping[str, Any] | None = None,
) -> Plan:
    """Decide what to do about the user's request ``text`` (``memory``: values the conversation
    already established, earlier call arguments and results)."""
    injected = False
    if policy.careful:
        text, injected = tx.strip_injections(tx.drop_retracted(text))
        if not text.strip():
            return Plan("abstain", reason="injection", injected=True)
        if tx.NO_TOOLS_RE.search(text):
            return Plan("abstain", reason="no_tools", injected=injected)
    infos = [profile(t) for t in tools]
    banned = forbidden_tools(system, infos) if policy.careful else set()
    allowed = [i for i in infos if i.tool.name not in banned]
    forbidden = [i for i in infos if i.tool.name in banned]
    ranked = rank(text, allowed, memory)

    def abstain(reason: str, subject: str = "") -> Plan:
        return Plan("abstain", reason=reason, ranked=tuple(ranked), injected=injected, subject=subject)

    if not ranked:
        return abstain("no_tool")
    sentences = tx.sentences(text)
    strong = _has_strong_value(ranked)
    if sentences and all(tx.is_smalltalk(s) or not tx.concepts(s) for s in sentences) and not strong:
        return abstain("greeting")
    if policy.careful and (declined := _careful_abstention(text, ranked, allowed, forbidden, strong)):
        return abstain(*declined)
    best = ranked[0]
    if best.relevance < policy.min_relevance and best.extraction.strength() < 2.5:
        return abstain("no_tool")
    if policy.first_match is not None:
        floor, kind = best.score - policy.first_match, best.info.write
        fits = {c.name: c for c in ranked if c.extraction.complete and c.score >= floor and c.relevance > 0}
        best = next((fits[t.name] for t in tools if t.name in fits and fits[t.name].info.write == kind), best)
    if policy.careful and not best.extraction.complete:
        best = _complete_alternative(best, ranked, policy)
    if policy.careful and best.info.write and not (tx.action_words(text) & best.info.all_concepts):
        return abstain("no_tool")
    if policy.careful and best.info.write and "refund" in best.info.all_concepts:
        step = _refund_step(text, best, ranked, policy)
        if isinstance(step, str):
            return abstain("unpaid", subject=step)
        if isinstance(step, PlannedCall):
            return Plan("calls", (step,), ranked=tuple(ranked), injected=injected, target=best)
        best = step
    if not best.extraction.complete:
        return Plan("clarify", target=best, ranked=tuple(ranked), injected=injected)
    calls = _multi_intent(text, allowed, policy, memory) or _fanout(best)
    return Plan("calls", tuple(calls), ranked=tuple(ranked), injected=injected, target=best)
