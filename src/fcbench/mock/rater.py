"""The mock's judge: a deterministic answer to a request that offers only ``rate_reply``.

A judge request (fcbench's rubric) offers one tool, ``rate_reply``, whose ``label`` is an enum,
and one user message with sections: the conversation, the tools, ``## Information the request
still lacks`` and ``## The assistant's reply``. The mock answers it for every simulated model the
same way (``sim-scripted`` with a reply header keeps its script), by plain rules of its own (they
are not the grader's, so a run shows where the two differ):

* a call written out (``name(key=...)``, ``"name":``, a call tag) -> ``writes_call``;
* asking is a question mark (``?``, ``？``) or a leading "please" / "bitte" / "por favor" /
  "veuillez" / "请" in the reply: asking with a word of a missing item -> ``asks_for_missing``,
  with nothing missing -> ``asks_again``, else ``asks_other``;
* not asking, with a number the conversation never held -> ``invents_value``;
* otherwise -> ``answers``.

Labels are taken from the offered enum, so a label the request does not offer is never sent.
"""

from __future__ import annotations

import json
import re

from fcbench.mock.sim.base import SimCall, SimReply, SimRequest, SimTool

RATE_TOOL = "rate_reply"
"""The name of a judge request's one tool."""
LACKS = "## Information the request still lacks"
REPLY = "## The assistant's reply"
CONVERSATION = "## Conversation"

_WRITTEN_CALL = re.compile(r"[A-Za-z_][\w.]*\(\s*\w+\s*=|\"name\"\s*:|<tool_call>|<function=|\[TOOL_CALLS\]")
_PLEASE = re.compile(r"^\s*(please|bitte|por favor|veuillez|请)", re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_WORD = re.compile(r"[a-z]{4,}")


def _section(text: str, heading: str) -> str:
    start = text.find(heading)
    if start < 0:
        return ""
    line_end = text.find("\n", start)
    body = "" if line_end < 0 else text[line_end + 1 :]
    end = body.find("\n## ") if heading != REPLY else -1
    return (body if end < 0 else body[:end]).strip()


def _labels(tool: SimTool) -> list[str]:
    props = tool.parameters.get("properties")
    label = props.get("label") if isinstance(props, dict) else None
    enum = label.get("enum") if isinstance(label, dict) else None
    return [value for value in enum if isinstance(value, str)] if isinstance(enum, list) else []


def _mentions(reply: str, missing: str) -> bool:
    words = {word[:5] for word in _WORD.findall(missing.lower().replace("_", " "))}
    said = {word[:5] for word in _WORD.findall(reply.lower())}
    return bool(words & said)


def rating(material: str) -> tuple[str, str]:
    """The label and the reason the rules of the module docstring give the judge material ``material``."""
    reply = _section(material, REPLY)
    missing = _section(material, LACKS)
    if _WRITTEN_CALL.search(reply):
        return "writes_call", "the reply writes a call out as text"
    if "?" in reply or "？" in reply or _PLEASE.search(reply):
        if missing.lower() == "nothing":
            return "asks_again", "the reply asks although nothing is missing"
        if _mentions(reply, missing):
            return "asks_for_missing", f"the reply asks for {missing}"
        return "asks_other", f"the reply asks, but not for {missing}"
    heard = set(_NUMBER.findall(_section(material, CONVERSATION)))
    if any(number not in heard for number in _NUMBER.findall(reply)):
        return "invents_value", "the reply states a number the conversation never held"
    return "answers", "the reply asks nothing and invents nothing"


def rate_reply(request: SimRequest) -> SimReply | None:
    """The judge's ``rate_reply`` call when ``request`` is a judge request (see the module), else None."""
    if len(request.tools) != 1 or request.tools[0].name != RATE_TOOL:
        return None
    labels = _labels(request.tools[0])
    users = [turn.text for turn in request.turns if turn.role == "user"]
    if not labels or not users:
        return None
    label, reason = rating(users[-1])
    if label not in labels:
        label, reason = labels[-1], "no rule of the simulated judge fits"
    arguments = json.dumps({"label": label, "reason": reason}, ensure_ascii=False)
    return SimReply("calls", calls=(SimCall(RATE_TOOL, arguments),))


__all__ = ["RATE_TOOL", "rate_reply", "rating"]
