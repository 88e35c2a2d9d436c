"""What the simulated models say: abstentions, clarification questions, summaries and give-ups."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fcbench.mock.sim import text as tx
from fcbench.mock.sim.base import SimTool
from fcbench.mock.sim.dialogue import ResultReading, SimExchange
from fcbench.mock.sim.select import Candidate, Plan


def capabilities(tools: tuple[SimTool, ...]) -> str:
    """The offered tools as a phrase: 'find one order by its exact public order ID and ...'."""
    phrases: list[str] = []
    for tool in tools[:4]:
        first = (tool.description.split(".")[0] or tx.split_identifier(tool.name)).strip()
        phrases.append(first[:1].lower() + first[1:])
    return tx.join_words(phrases) if phrases else "answer questions in text"


def _can(plan: Plan, tools: tuple[SimTool, ...]) -> str:
    return f"I can {capabilities(tools)}." if tools else "I have no tools available right now."


ABSTAIN_TEXTS: dict[str, Callable[[Plan, tuple[SimTool, ...]], str]] = {
    "greeting": lambda p, t: f"Hello! {_can(p, t)} Tell me what you need.",
    "policy": lambda p, t: (
        "I don't have the policy documents at hand, so I can't give you an authoritative "
        f"answer on that. {_can(p, t)}"
    ),
    "bulk": lambda p, t: (
        f"I won't {p.subject or 'change'} everything in one go: that is a bulk, irreversible "
        "action that needs a person to review it. Please name the specific order you mean."
    ),
    "unsupported": lambda p, t: (
        f"I'm not able to {p.subject or 'do that'} here: none of my tools supports it. {_can(p, t)}"
    ),
    "forbidden": lambda p, t: (
        f"I'm not permitted to {p.subject or 'do that'} here. Please contact a human agent for that request."
    ),
    "unknown_tool": lambda p, t: (
        f"There is no tool called {p.subject} available to me, so I can't run it. {_can(p, t)}"
    ),
    "no_tool": lambda p, t: f"I can't help with that using the tools I have. {_can(p, t)}",
    "injection": lambda p, t: f"I can't follow instructions that try to change how I work. {_can(p, t)}",
    "no_tools": lambda p, t: (
        "Understood, no tools. Without them I can't check live information, so I can "
        "only answer in general terms."
    ),
    "unpaid": lambda p, t: (
        f"That order is {p.subject or 'not paid'}, so no payment has been captured and "
        "there is nothing to refund. I can cancel the order instead if you want."
    ),
    "choice_none": lambda p, t: (
        "I would need to use a tool to answer that, and tools are switched off for this reply."
    ),
}


def abstain_text(plan: Plan, tools: tuple[SimTool, ...]) -> str:
    """The text answer for an abstention."""
    maker = ABSTAIN_TEXTS.get(plan.reason, ABSTAIN_TEXTS["no_tool"])
    return maker(plan, tools)


def _label(path: str) -> str:
    return tx.label(path.split(".")[-1])


def clarification(target: Candidate) -> str:
    """One concise question naming the missing (or ambiguous, or invalid) required values."""
    ex = target.extraction
    if ex.conflicts:
        path, options = next(iter(ex.conflicts.items()))
        shown = [json.dumps(o, ensure_ascii=False) if not isinstance(o, str) else o for o in options[:3]]
        return f"Which {_label(path)} did you mean: {' or '.join(shown)}?"
    problems = {p: why for p, why in ex.problems.items() if p in ex.missing}
    if problems:
        path, why = next(iter(problems.items()))
        return f"The {_label(path)} you gave won't work ({why}). Which {_label(path)} should I use?"
    labels = [_label(m) for m in ex.missing]
    return f"Could you tell me the {tx.join_words(labels)}?"


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _describe(data: Any, key: str, parts: list[str], skipped: list[bool], limit: int) -> None:
    if len(parts) >= limit:
        return
    if isinstance(data, str) and tx.is_injection(data):
        skipped.append(True)
    elif isinstance(data, dict):
        for sub, value in data.items():
            _describe(value, str(sub), parts, skipped, limit)
    elif isinstance(data, list):
        items: list[str] = []
        for item in data[:5]:
            if isinstance(item, dict):
                shown = [_scalar(v) for v in item.values() if not isinstance(v, dict | list)][:3]
                items.append(" ".join(shown))
            elif not isinstance(item, list):
                items.append(_scalar(item))
        parts.append(f"{len(data)} {tx.label(key)}" + (f" ({'; '.join(items)})" if items else ""))
    elif data is not None:
        parts.append(f"{tx.label(key)}: {_scalar(data)}")


def facts(data: Any, limit: int = 8) -> tuple[str, bool]:
    """A short 'key: value' rendering of a result, and whether instruction-like text was skipped."""
    parts: list[str] = []
    skipped: list[bool] = []
    _describe(data, "result", parts, skipped, limit)
    return "; ".join(parts), bool(skipped)


def summary(exchanges: tuple[SimExchange, ...]) -> str:
    """A text answer built from the successful results (and a word about failures)."""
    lines: list[str] = []
    skipped = False
    for ex in exchanges:
        if ex.outcome is None:
            continue
        if ex.outcome.ok:
            shown, hidden = facts(ex.outcome.data)
            skipped = skipped or hidden
            lines.append(f"{tx.label(ex.call.name).capitalize()} returned {shown or 'no details'}.")
        else:
            lines.append(give_up(ex.call.name, ex.outcome))
    if skipped:
        lines.append("The tool output also contained instructions, which I ignored.")
    return " ".join(lines) or "Done."


GIVE_UPS: dict[str, str] = {
    "NOT_FOUND": "I couldn't find what you asked for ({message}). Please check the details you gave me.",
    "PERMISSION_DENIED": "I'm not allowed to do that ({message}). A human agent can help with it.",
    "CONFLICT": "That couldn't be done in the current state ({message}).",
    "TEMPORARILY_UNAVAILABLE": "The service is temporarily unavailable ({message}). Please try again later.",
    "INVALID_ARGUMENTS": "The tool rejected the request ({message}) and I couldn't correct it from what you "
    "told me.",
}


def give_up(tool_name: str, outcome: ResultReading) -> str:
    """A graceful text for an error the model will not (or can no longer) work around."""
    template = GIVE_UPS.get(outcome.code, "The {tool} tool reported an error ({message}).")
    message = outcome.message.rstrip(". ") or outcome.code.lower().replace("_", " ")
    if tx.is_injection(message):
        message = outcome.code.lower().replace("_", " ")
    return template.format(message=message, tool=tool_name)


CLAIMS: dict[str, str] = {
    "refund": "Your refund has been processed successfully.",
    "cancel": "Your order has been cancelled successfully.",
    "delete": "It has been deleted.",
    "create": "It has been created successfully.",
    "update": "The change has been saved.",
}


def claim_success(tool_name: str) -> str:
    """What an over-eager model says after a call it never saw succeed."""
    mentioned = tx.concepts(tool_name)
    for concept, claim in CLAIMS.items():
        if concept in mentioned:
            return claim
    return f"All done: {tx.label(tool_name)} completed successfully."


def arguments_json(arguments: Any) -> str:
    """Arguments as wire text."""
    return json.dumps(arguments, ensure_ascii=False)
