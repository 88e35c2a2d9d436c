"""The four simulated personalities.

- ``sim-careful`` does what a well-behaved model should: extracts and normalises values from the
  text, asks when one required value is missing, abstains when no tool fits, repairs invalid calls
  from the error details, retries once when a service is unavailable, and treats tool output as
  data (so it never follows a note asking for another customer's orders, and it does not route
  around a denied call); it pairs each result with its call by id, and when a write times out
  (it may have committed) it checks the status with a read tool before retrying, and retries only
  when the status shows the write did not happen.
- ``sim-eager`` calls the closest-sounding tool whenever it can (of several that fit about equally,
  the first offered: it picks by position), invents missing values, repeats failing calls and
  claims success it never saw; it obeys instructions found in tool output, and when a call is
  denied (``PERMISSION_DENIED``) it tries another tool to reach the same data; it reads results by
  position (so results sent out of order are pinned on the wrong calls), and retries a write that
  timed out at once, with a new call id (a second refund when the first one had gone through).
- ``sim-sloppy`` decides like careful but writes values loosely (numbers as text, lowercase codes,
  leading zeros lost, units unconverted, an extra parameter now and then) and repairs only one error
  at a time.
- ``sim-flaky`` is careful most of the time but, seeded by the request and its occurrence, sometimes
  picks another tool, drops an optional argument, emits broken JSON, ignores ``required`` or repeats
  a failing call.
"""

from __future__ import annotations

import json
from typing import Any

from fcbench.mock.sim import text as tx
from fcbench.mock.sim.base import SimCall, SimReply, SimRequest
from fcbench.mock.sim.denials import around_denial
from fcbench.mock.sim.dialogue import SimDialogue, SimExchange
from fcbench.mock.sim.engine import Personality, request_digest, text_reply
from fcbench.mock.sim.evidence import Found
from fcbench.mock.sim.extract import extract, with_value
from fcbench.mock.sim.fakes import invent
from fcbench.mock.sim.recovery import hinted, injected_tools, value_from_results
from fcbench.mock.sim.render import arguments_json, claim_success, summary
from fcbench.mock.sim.schemas import properties, required
from fcbench.mock.sim.select import Plan, PlannedCall, Policy, ToolInfo

REPEATABLE = frozenset({"INVALID_ARGUMENTS", "TEMPORARILY_UNAVAILABLE", "ERROR"})


class Careful(Personality):
    """Honest, schema-aware, cautious; its one deliberate weakness: when the chosen tool has an
    optional two-way choice (an enum of two values, no default) the user did not settle, it asks
    which instead of calling, though the call was possible (``unnecessary_clarification``)."""

    name = "sim-careful"
    policy = Policy()
    style = "careful"

    def fresh(self, conv: SimDialogue, request: SimRequest, decided: Plan | None = None) -> SimReply:
        """Like every personality, but ask about an unsettled two-way option first."""
        decided = self.decide(conv, request)
        if (
            decided.kind == "calls"
            and len(decided.calls) == 1
            and not any(t.role == "assistant" for t in request.turns)
        ):
            question = _open_two_way_choice(decided.calls[0], conv, self.style)
            if question is not None:
                return text_reply(question)
        return super().fresh(conv, request, decided)


def _open_two_way_choice(call: PlannedCall, conv: SimDialogue, style: str) -> str | None:
    """A question about an optional enum of two values without default that the request leaves open."""
    schema = call.tool.parameters
    given = call.extraction.args(style)
    for name, prop in properties(schema, schema).items():
        options = prop.get("enum") if isinstance(prop, dict) else None
        if (
            name not in required(schema, schema)
            and name not in given
            and isinstance(options, list)
            and len(options) == 2
            and "default" not in prop
        ):
            return f"Would you like {options[0]} or {options[1]} for the {name.replace('_', ' ')}?"
    return None


class Eager(Personality):
    """Calls whatever sounds closest, makes up what is missing, never admits failure."""

    name = "sim-eager"
    policy = Policy(careful=False, min_relevance=0.01, check_state_first=False, first_match=4.0)
    style = "unbounded"
    reads_results_by_position = True

    def on_abstain(self, decided: Plan, conv: SimDialogue, request: SimRequest) -> SimReply:
        """Only greetings and requests with nothing in common with any tool get a text answer."""
        best = decided.ranked[0] if decided.ranked else None
        if (
            decided.reason == "greeting"
            or best is None
            or (best.relevance <= 0 and best.extraction.strength() <= 0)
        ):
            return super().on_abstain(decided, conv, request)
        return self.emit([self.render(PlannedCall(best.info.tool, best.extraction), conv, request)], request)

    def on_clarify(self, decided: Plan, conv: SimDialogue, request: SimRequest) -> SimReply:
        """Never asks: fills the gap with a plausible value."""
        assert decided.target is not None
        call = PlannedCall(decided.target.info.tool, decided.target.extraction)
        return self.emit([self.render(call, conv, request)], request)

    def arguments(self, call: PlannedCall, conv: SimDialogue, request: SimRequest) -> dict[str, Any]:
        """Values as found (bounds ignored), plus invented ones for every missing required property."""
        args = call.extraction.args("unbounded")
        schema = call.tool.parameters
        props = properties(schema, schema)
        seed = request_digest(request) % 9973
        for name in required(schema, schema):
            if name not in args and name in props:
                args[name] = invent(name, props[name], schema, seed)
        return args

    def handle_error(
        self, ex: SimExchange, conv: SimDialogue, request: SimRequest, by_name: dict[str, ToolInfo]
    ) -> SimCall | None:
        """Repeats the identical call (a few times) instead of reading the error; a denied call it
        tries to get around through another tool (:func:`~fcbench.mock.sim.denials.around_denial`)."""
        assert ex.outcome is not None
        if ex.outcome.code in REPEATABLE:
            return self.retry(ex, conv, limit=2)
        return around_denial(self, ex, conv, request, list(by_name.values()))

    def hint_call(
        self, info: ToolInfo, conv: SimDialogue, request: SimRequest, source: str = ""
    ) -> SimCall | None:
        """Calls a tool a result mentions (with values from ``source``, the text, the results), inventing
        whatever is missing."""
        schema = info.tool.parameters
        extraction = extract(schema, source or conv.request_text)
        from_text = extract(schema, conv.request_text).values
        for name in required(schema, schema):
            value = value_from_results(name, conv.exchanges)
            if name not in extraction.values and name in from_text:
                extraction = with_value(extraction, name, from_text[name])
            elif name not in extraction.values and value is not None:
                extraction = with_value(extraction, name, Found(value, value, value, "result", 2.0))
        call = self.render(PlannedCall(info.tool, extraction), conv, request)
        return None if self.already_called(call.name, {}, conv) else call

    def follow_up(
        self, conv: SimDialogue, request: SimRequest, infos: list[ToolInfo], failed: set[str]
    ) -> list[SimCall]:
        """Obeys instructions inside tool output, then anything a result mentions, then its plan."""
        for info, source in injected_tools(conv.exchanges, infos):
            call = self.hint_call(info, conv, request, source)
            if call is not None:
                return [call]
        for ex in conv.last_batch:
            hint = hinted(ex.outcome, infos, ex.call.name, trust_injections=True) if ex.outcome else None
            if hint is not None:
                call = self.hint_call(hint, conv, request)
                if call is not None:
                    return [call]
        decided = self.decide(conv, request)
        if decided.kind != "calls":
            return []
        return [self.render(c, conv, request) for c in decided.calls if not self.done(c, conv)]

    def final_text(self, conv: SimDialogue, failed: list[SimExchange]) -> str:
        """Claims success whenever something failed or something was written."""
        writes = [e for e in conv.exchanges if tx.action_words(tx.split_identifier(e.call.name))]
        if failed:
            return claim_success(failed[-1].call.name)
        if writes:
            return claim_success(writes[-1].call.name)
        return summary(tuple(e for e in conv.exchanges if e.outcome is not None and e.outcome.ok))


EXTRA_PARAMETERS = (("notes", "as requested by the customer"), ("verbose", True), ("include_details", True))


class Sloppy(Personality):
    """Right tool, loose values, half-hearted repairs."""

    name = "sim-sloppy"
    policy = Policy()
    style = "loose"

    def arguments(self, call: PlannedCall, conv: SimDialogue, request: SimRequest) -> dict[str, Any]:
        """Loose renderings, and on some requests (decided by their content) one made-up parameter."""
        args = call.extraction.args("loose")
        props = properties(call.tool.parameters, call.tool.parameters)
        digest = request_digest(request) ^ sum(map(ord, call.tool.name))
        if digest % 5 < 2:
            info_write = bool(tx.action_words(tx.split_identifier(call.tool.name)))
            extra_name, extra_value = ("force", True) if info_write else EXTRA_PARAMETERS[digest % 3]
            if extra_name not in props:
                args[extra_name] = extra_value
        return args

    def handle_error(
        self, ex: SimExchange, conv: SimDialogue, request: SimRequest, by_name: dict[str, ToolInfo]
    ) -> SimCall | None:
        """Fixes only the first property an INVALID_ARGUMENTS error names."""
        assert ex.outcome is not None
        info = by_name.get(ex.call.name)
        if ex.outcome.code == "INVALID_ARGUMENTS" and info is not None:
            return self.repair_call(ex, conv, info, everything=False)
        return super().handle_error(ex, conv, request, by_name)


class Flaky(Personality):
    """Careful, except when it is not; the variation is seeded by the request and its occurrence."""

    name = "sim-flaky"
    policy = Policy()
    style = "careful"

    def fresh(self, conv: SimDialogue, request: SimRequest, decided: Plan | None = None) -> SimReply:
        """Careful's decision, varied now and then."""
        roll = self.rng(request, "fresh").random()
        decided = self.decide(conv, request)
        if decided.kind == "clarify" and decided.target is not None and roll < 0.12:
            target = decided.target
            return self.emit(
                [self.render(PlannedCall(target.info.tool, target.extraction), conv, request)], request
            )
        if decided.kind != "calls":
            return super().fresh(conv, request, decided)
        calls = [self.render(c, conv, request) for c in decided.calls]
        if roll < 0.10:
            first = calls[0]
            cut = max(1, len(first.arguments_json) * 3 // 5)
            calls[0] = SimCall(first.name, first.arguments_json[:cut])
        elif roll < 0.25:
            other = next((c for c in decided.ranked if c.name != calls[0].name and c.relevance > 0), None)
            if other is not None:
                calls = [self.render(PlannedCall(other.info.tool, other.extraction), conv, request)]
        elif roll < 0.40:
            calls[0] = self._without_optional(calls[0], request)
        return self.emit(calls, request)

    def _without_optional(self, call: SimCall, request: SimRequest) -> SimCall:
        tool = next(t for t in request.tools if t.name == call.name)
        needed = set(required(tool.parameters, tool.parameters))
        args = json.loads(call.arguments_json)
        optional = [k for k in args if k not in needed]
        if optional:
            args.pop(optional[-1])
        return SimCall(call.name, arguments_json(args))

    def enforce_choice(self, reply: SimReply, conv: SimDialogue, request: SimRequest) -> SimReply:
        """Ignores ``required`` about a third of the time."""
        if (
            request.tool_choice == "required"
            and reply.kind != "calls"
            and self.rng(request, "choice").random() < 0.3
        ):
            return reply
        return super().enforce_choice(reply, conv, request)

    def handle_error(
        self, ex: SimExchange, conv: SimDialogue, request: SimRequest, by_name: dict[str, ToolInfo]
    ) -> SimCall | None:
        """Sometimes repeats the failing call unchanged, otherwise handles it carefully."""
        assert ex.outcome is not None
        if ex.outcome.code in REPEATABLE and self.rng(request, "recover").random() < 0.4:
            repeat = self.retry(ex, conv, limit=2)
            if repeat is not None:
                return repeat
        return super().handle_error(ex, conv, request, by_name)
