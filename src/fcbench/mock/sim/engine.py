"""The shared engine of the simulated personalities.

They share one reading of the request (:mod:`.select`, :mod:`.extract`) and differ in what they do
with it: how strictly they plan, how they render argument values, what they do when a value is
missing, and how they react to tool errors.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import replace
from functools import lru_cache
from typing import Any

from fcbench.errors import CaseError
from fcbench.mock.sim import text as tx
from fcbench.mock.sim.base import SimCall, SimReply, SimRequest, SimTool
from fcbench.mock.sim.dialogue import SimDialogue, SimExchange, memory, read
from fcbench.mock.sim.evidence import Found
from fcbench.mock.sim.extract import extract, with_value
from fcbench.mock.sim.recovery import (
    Targets,
    hinted,
    known_facts,
    repair,
    shows_effect,
    status_arguments,
    targets,
    value_from_results,
)
from fcbench.mock.sim.render import (
    abstain_text,
    arguments_json,
    clarification,
    give_up,
    summary,
)
from fcbench.mock.sim.schemas import required, schema_key
from fcbench.mock.sim.select import Plan, PlannedCall, Policy, ToolInfo, plan, profile, rank, recall
from fcbench.schema.validate import SchemaValidator

RETRYABLE = frozenset({"TEMPORARILY_UNAVAILABLE"})
STRONG_KINDS = frozenset({"pattern", "id", "email"})


def request_digest(request: SimRequest) -> int:
    """A stable number for the request's content (everything but the occurrence counter)."""
    payload = {  # the fields of each turn and tool, as dataclasses.asdict gives them, without its deep copies
        "model": request.model,
        "system": request.system,
        "turns": [{**vars(t), "calls": [vars(c) for c in t.calls]} for t in request.turns],
        "tools": [vars(t) for t in request.tools],
        "choice": request.tool_choice,
        "parallel": request.parallel_allowed,
    }
    blob = json.dumps(payload, sort_keys=True, default=str, ensure_ascii=False).encode()
    return int.from_bytes(hashlib.sha256(blob).digest()[:8], "big")


@lru_cache(maxsize=512)
def _validator(key: bytes | str) -> SchemaValidator | None:
    """The compiled validator of a tool schema given by its key; None when the schema is invalid."""
    try:
        return SchemaValidator(json.loads(key))
    except CaseError:
        return None


def text_reply(text: str) -> SimReply:
    """A text turn."""
    return SimReply("text", text=text)


def _unkeyed(request: SimRequest) -> SimRequest:
    """``request`` with its tool results' call ids dropped: they are then read by position."""
    return replace(
        request, turns=tuple(replace(t, call_id=None) if t.role == "tool" else t for t in request.turns)
    )


def _args_key(arguments_json: str) -> str:
    try:
        return json.dumps(json.loads(arguments_json), sort_keys=True)
    except ValueError:
        return arguments_json


class Personality:
    """Shared behaviour; subclasses override the hooks that make each personality what it is."""

    name = "sim-base"
    policy = Policy()
    style = "careful"
    """Which rendering of extracted values the personality uses (careful, unbounded or loose)."""
    reads_results_by_position = False
    """Pair each call with the result at its position, not with the one answering its id."""

    # -- entry point ---------------------------------------------------------------------------------
    def respond(self, request: SimRequest) -> SimReply:
        """Decide the next turn."""
        conv = read(_unkeyed(request) if self.reads_results_by_position else request)
        if request.tool_choice == "none":
            return self.text_only(conv, request)
        if conv.last_role == "tool" and conv.exchanges:
            reply = self.after_results(conv, request)
        elif conv.last_role == "user":
            reply = self.fresh(conv, request)
        else:
            reply = text_reply("Let me know if there is anything else you need.")
        return self.enforce_choice(reply, conv, request)

    def rng(self, request: SimRequest, salt: str = "") -> random.Random:
        """A local generator seeded by the request content, the occurrence and ``salt``."""
        return random.Random(f"{request_digest(request)}:{request.occurrence}:{self.name}:{salt}")

    # -- fresh requests ------------------------------------------------------------------------------
    def decide(self, conv: SimDialogue, request: SimRequest) -> Plan:
        """Plan for the current request, knowing what the conversation has established so far."""
        state = known_facts(conv.all_exchanges).get("state")
        policy = replace(self.policy, state=state)
        return plan(conv.request_text, request.tools, request.system, policy, memory(conv.all_exchanges))

    def fresh(self, conv: SimDialogue, request: SimRequest, decided: Plan | None = None) -> SimReply:
        """Answer a new user request (``decided``: the plan, when the caller already made it)."""
        decided = decided or self.decide(conv, request)
        if decided.kind == "abstain":
            return self.on_abstain(decided, conv, request)
        if decided.kind == "clarify" and decided.target is not None:
            return self.on_clarify(decided, conv, request)
        return self.emit([self.render(c, conv, request) for c in decided.calls], request)

    def on_abstain(self, decided: Plan, conv: SimDialogue, request: SimRequest) -> SimReply:
        """Answer in text instead of calling."""
        return text_reply(abstain_text(decided, request.tools))

    def on_clarify(self, decided: Plan, conv: SimDialogue, request: SimRequest) -> SimReply:
        """Ask for what is missing."""
        assert decided.target is not None
        return text_reply(clarification(decided.target))

    def emit(self, calls: list[SimCall], request: SimRequest) -> SimReply:
        """Calls as a reply, one at a time when parallel calls are not allowed."""
        if not calls:
            return text_reply("I couldn't find a way to do that with the tools I have.")
        return SimReply("calls", calls=tuple(calls if request.parallel_allowed else calls[:1]))

    # -- argument rendering --------------------------------------------------------------------------
    def arguments(self, call: PlannedCall, conv: SimDialogue, request: SimRequest) -> dict[str, Any]:
        """Argument values for a planned call, in the personality's style."""
        args = call.extraction.args(self.style)
        schema = call.tool.parameters
        validator = _validator(schema_key(schema))
        if validator is None:
            return args
        if not validator.validate(args).valid:
            fixed = repair(args, schema, conv.request_text, Targets(), everything=True)
            if fixed is not None:
                return fixed
        return args

    def render(self, call: PlannedCall, conv: SimDialogue, request: SimRequest) -> SimCall:
        """A wire call for a planned call."""
        return SimCall(call.tool.name, arguments_json(self.arguments(call, conv, request)))

    # -- tool choice ---------------------------------------------------------------------------------
    def enforce_choice(self, reply: SimReply, conv: SimDialogue, request: SimRequest) -> SimReply:
        """Honour ``required`` and ``tool:NAME``."""
        choice = request.tool_choice
        offered = {t.name: t for t in request.tools}
        if choice.startswith("tool:"):
            name = choice.split(":", 1)[1]
            if name not in offered or (reply.kind == "calls" and all(c.name == name for c in reply.calls)):
                return reply
            return SimReply("calls", calls=(self.forced_call(offered[name], conv, request),))
        if choice == "required" and reply.kind != "calls" and request.tools:
            ranked = rank(conv.request_text, [profile(t) for t in request.tools], memory(conv.all_exchanges))
            best = next((c for c in ranked if c.extraction.complete), ranked[0])
            return SimReply("calls", calls=(self.forced_call(best.info.tool, conv, request),))
        return reply

    def forced_call(self, tool: SimTool, conv: SimDialogue, request: SimRequest) -> SimCall:
        """A call of ``tool`` because the request demands one, with whatever the text supplies."""
        extraction = recall(
            extract(tool.parameters, conv.request_text), tool.parameters, memory(conv.all_exchanges)
        )
        planned = PlannedCall(tool, extraction)
        return self.render(planned, conv, request)

    def text_only(self, conv: SimDialogue, request: SimRequest) -> SimReply:
        """``tool_choice: none``: say what can be said without calling."""
        if conv.last_role == "tool" and conv.exchanges:
            return text_reply(summary(conv.exchanges))
        decided = self.decide(conv, request)
        if decided.kind == "abstain":
            return text_reply(abstain_text(decided, request.tools))
        if decided.kind == "clarify" and decided.target is not None:
            return text_reply(clarification(decided.target))
        return text_reply(abstain_text(Plan("abstain", reason="choice_none"), request.tools))

    # -- after tool results --------------------------------------------------------------------------
    def after_results(self, conv: SimDialogue, request: SimRequest) -> SimReply:
        """Continue once results have arrived: repair, retry, follow up, or answer."""
        infos = [profile(t) for t in request.tools]
        by_name = {i.tool.name: i for i in infos}
        retries: list[SimCall] = []
        failed: list[SimExchange] = []
        for ex in conv.last_batch:
            if ex.outcome is None or ex.outcome.ok:
                continue
            action = self.handle_error(ex, conv, request, by_name)
            if action is not None:
                retries.append(action)
            else:
                failed.append(ex)
        if retries:
            return self.emit(retries, request)
        follow = self.follow_up(conv, request, infos, {e.call.name for e in failed})
        if follow:
            return self.emit(follow, request)
        return text_reply(self.final_text(conv, failed))

    def handle_error(
        self, ex: SimExchange, conv: SimDialogue, request: SimRequest, by_name: dict[str, ToolInfo]
    ) -> SimCall | None:
        """Careful handling: repair invalid arguments, retry once when unavailable, else give up."""
        assert ex.outcome is not None
        info = by_name.get(ex.call.name)
        if info is None:
            return None
        code = ex.outcome.code
        if code == "INVALID_ARGUMENTS":
            fixed = self.repair_call(ex, conv, info, everything=True)
            # Nothing to change: the values already look right, so check them once more by resending.
            return fixed if fixed is not None else self.retry(ex, conv, limit=1)
        if code in RETRYABLE:
            return self.check_before_retry(ex, conv, by_name) or self.retry(ex, conv, limit=1)
        hint = hinted(ex.outcome, list(by_name.values()), ex.call.name)
        if hint is not None and not hint.write:
            return self.hint_call(hint, conv, request)
        if code == "NOT_FOUND":
            return self.repair_call(ex, conv, info, everything=False) or self.fallback(ex, conv, request)
        return None

    def check_before_retry(
        self, ex: SimExchange, conv: SimDialogue, by_name: dict[str, ToolInfo]
    ) -> SimCall | None:
        """After a write timed out (it may have committed), a status check by a read tool given the
        write's values instead of a blind retry; None for a read, or once a check was made since."""
        info = by_name.get(ex.call.name)
        later = conv.exchanges[next(i for i, e in enumerate(conv.exchanges) if e is ex) + 1 :]
        for other in by_name.values() if info is not None and info.write else ():
            args = None if other.write else status_arguments(ex.arguments(), other.tool.parameters)
            if args is not None:
                checked = any(e.call.name == other.tool.name and e.arguments() == args for e in later)
                return None if checked else SimCall(other.tool.name, arguments_json(args))
        return None

    def retry_after_check(self, conv: SimDialogue, infos: list[ToolInfo]) -> SimCall | None:
        """The last write, once more, when it timed out and the status checks since (all reads, all
        answered) show it did not take effect; else None."""
        writes = {i.tool.name for i in infos if i.write}
        at = next(
            (i for i in range(len(conv.exchanges) - 1, -1, -1) if conv.exchanges[i].call.name in writes), None
        )
        if at is None or (ex := conv.exchanges[at]).outcome is None or ex.outcome.code not in RETRYABLE:
            return None
        checks = [c.outcome for c in conv.exchanges[at + 1 :]]
        if not checks or not all(
            c is not None and c.ok and not shows_effect(ex.call.name, c.data) for c in checks
        ):
            return None
        return self.retry(ex, conv, limit=1)

    def fallback(self, ex: SimExchange, conv: SimDialogue, request: SimRequest) -> SimCall | None:
        """Another read tool the request also supplies everything for (an email after an unknown ID)."""
        ranked = rank(tx.strip_injections(conv.request_text)[0], [profile(t) for t in request.tools])
        for cand in ranked:
            ex_values = cand.extraction
            if (
                cand.name != ex.call.name
                and not cand.info.write
                and ex_values.complete
                and ex_values.strength() >= 1.5
                and not self.already_called(cand.name, ex_values.args(), conv)
            ):
                return self.render(PlannedCall(cand.info.tool, ex_values), conv, request)
        return None

    def repair_call(
        self, ex: SimExchange, conv: SimDialogue, info: ToolInfo, everything: bool
    ) -> SimCall | None:
        """The failed call with its arguments repaired (None when nothing can be fixed or tries ran out)."""
        assert ex.outcome is not None
        tries = sum(
            1
            for e in conv.exchanges
            if e.call.name == ex.call.name and e.outcome is not None and e.outcome.code == "INVALID_ARGUMENTS"
        )
        if tries > 2:
            return None
        schema = info.tool.parameters
        fixed = repair(
            ex.arguments(),
            schema,
            tx.strip_injections(conv.request_text)[0],
            targets(ex.outcome, schema),
            everything=everything,
        )
        if fixed is None:
            return None
        new = SimCall(ex.call.name, arguments_json(fixed))
        if any(
            e.call.name == new.name and _args_key(e.call.arguments_json) == _args_key(new.arguments_json)
            for e in conv.exchanges
        ):
            return None
        return new

    def retry(self, ex: SimExchange, conv: SimDialogue, limit: int) -> SimCall | None:
        """The same call again, unless it was already retried ``limit`` times."""
        same = sum(
            1
            for e in conv.exchanges
            if e.call.name == ex.call.name
            and _args_key(e.call.arguments_json) == _args_key(ex.call.arguments_json)
        )
        return SimCall(ex.call.name, ex.call.arguments_json) if same <= limit else None

    def hint_call(self, info: ToolInfo, conv: SimDialogue, request: SimRequest) -> SimCall | None:
        """A call of a tool a result pointed to, with values from the text and from earlier results."""
        extraction = extract(info.tool.parameters, tx.strip_injections(conv.request_text)[0])
        for name in required(info.tool.parameters, info.tool.parameters):
            if name not in extraction.values:
                value = value_from_results(name, conv.exchanges)
                if value is not None:
                    extraction = with_value(extraction, name, Found(value, value, value, "result", 2.0))
        if extraction.missing or self.already_called(info.tool.name, extraction.args(), conv):
            return None
        return self.render(PlannedCall(info.tool, extraction), conv, request)

    def already_called(self, name: str, args: dict[str, Any], conv: SimDialogue) -> bool:
        """True when a call of ``name`` carrying the same identifying values was made since the request."""
        schema_props = {k for k, v in args.items() if isinstance(v, str)}
        for ex in conv.exchanges:
            if ex.call.name != name:
                continue
            made = ex.arguments()
            if not isinstance(made, dict):
                continue
            if all(made.get(k) == args[k] for k in schema_props) or _args_key(
                ex.call.arguments_json
            ) == _args_key(arguments_json(args)):
                return True
        return False

    def follow_up(
        self, conv: SimDialogue, request: SimRequest, infos: list[ToolInfo], failed: set[str]
    ) -> list[SimCall]:
        """Calls still needed: a next step a result names, or what the plan has not done yet (unless the
        plan leads to a tool that just failed for good, named in ``failed``), after a timed-out write
        that the status check shows did not happen (:meth:`retry_after_check`)."""
        retry = self.retry_after_check(conv, infos)
        if retry is not None:
            return [retry]
        for ex in conv.last_batch:
            if ex.outcome is None or not ex.outcome.ok:
                continue
            hint = hinted(ex.outcome, infos, ex.call.name)
            if hint is not None and (
                not hint.write or tx.action_words(conv.request_text) & hint.all_concepts
            ):
                call = self.hint_call(hint, conv, request)
                if call is not None:
                    return [call]
        decided = self.decide(conv, request)
        if decided.kind != "calls" or (decided.target is not None and decided.target.name in failed):
            return []
        pending = [c for c in decided.calls if not self.done(c, conv) and c.tool.name not in failed]
        return [self.render(c, conv, request) for c in pending]

    def done(self, call: PlannedCall, conv: SimDialogue) -> bool:
        """True when a planned call was already made (judged by its identifying values)."""
        key = {n: f.value for n, f in call.extraction.values.items() if f.kind in STRONG_KINDS}
        for ex in conv.exchanges:
            made = ex.arguments()
            if (
                ex.call.name == call.tool.name
                and isinstance(made, dict)
                and all(made.get(k) == v for k, v in key.items())
            ):
                return True
        return False

    def final_text(self, conv: SimDialogue, failed: list[SimExchange]) -> str:
        """The closing answer: facts from the results, and a graceful word about failures."""
        facts_part = summary(tuple(e for e in conv.exchanges if e.outcome is not None and e.outcome.ok))
        if not failed:
            return facts_part
        notes = " ".join(give_up(e.call.name, e.outcome) for e in failed if e.outcome is not None)
        has_success = any(e.outcome is not None and e.outcome.ok for e in conv.exchanges)
        return f"{facts_part} {notes}" if has_success else notes
