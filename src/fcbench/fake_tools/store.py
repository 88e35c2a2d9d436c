"""The fake back end's state: one :class:`FakeStore` per conversation, never shared.

A store starts from a fixed data set (``dataset.json`` beside this module, or any file of the
same shape): orders with their statuses, payments and shipping, and the shipping zones the quote
tool serves. Write tools change the store's copy only, and every change is counted as a side
effect so tests and scores can assert on exactly what happened. The store also keeps the
idempotency table (key -> first result) that makes replayed write calls harmless.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from fcbench.errors import CaseError

DATASET_FILE = "dataset.json"


@dataclass(frozen=True)
class SideEffect:
    """One state change a write tool made."""

    tool: str
    """The write tool that made the change."""
    key: str
    """Idempotency key of the call that made it."""
    target: str
    """What changed (an order id)."""
    change: dict[str, Any]
    """What the change was, e.g. ``{"status": ["paid", "refunded"], "refund_id": "RF-..."}``."""


@dataclass(frozen=True)
class CallContext:
    """Who is calling: the conversation, the call and its idempotency key."""

    conversation_id: str
    call_id: str
    tool: str
    key: str
    """Idempotency key of the call (also seeds the ids of records the call creates)."""
    number: int = 1
    """Which call of this tool it is in the conversation, from 1 (a redelivery of the same call,
    same idempotency key, keeps its number)."""


def _default_dataset_text() -> str:
    return resources.files("fcbench.fake_tools").joinpath(DATASET_FILE).read_text(encoding="utf-8")


def load_dataset(path: Path | None = None) -> dict[str, Any]:
    """The data set as JSON: the packaged default, or ``path`` (a file of the same shape)."""
    if path is None:
        data = json.loads(_default_dataset_text())
    else:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CaseError(f"cannot read the fake tools' data set: {exc}", path=str(path)) from exc
    if not isinstance(data, dict) or not isinstance(data.get("orders"), list):
        raise CaseError("a fake-tools data set needs an 'orders' list", path=str(path or DATASET_FILE))
    return data


@dataclass
class FakeStore:
    """The mutable world of one conversation: orders, zones, side effects and idempotency records."""

    orders: dict[str, dict[str, Any]]
    """Order id -> order (a private copy; write tools mutate it)."""
    zones: dict[str, dict[str, Any]]
    """Country code -> shipping zone (price and postal-code rules)."""
    express: dict[str, Any]
    """Express service price factor and delivery window."""
    session_email: str | None = None
    """The signed-in customer whose orders a listing without an email shows (None: every order)."""
    side_effects: list[SideEffect] = field(default_factory=list)
    """Every state change, in order."""
    replays: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Idempotency key -> the first result returned for it."""
    replayed: int = 0
    """How many write calls were answered from :attr:`replays` instead of being executed again."""
    attempts: dict[str, int] = field(default_factory=dict)
    """Per-object access counters (used to fail the first access of flaky objects)."""
    call_numbers: dict[str, int] = field(default_factory=dict)
    """Idempotency key -> which call of its tool it was (see :meth:`call_number`)."""

    @classmethod
    def fresh(cls, dataset: dict[str, Any] | None = None) -> FakeStore:
        """A new store over a private copy of ``dataset`` (the packaged default when None)."""
        data = copy.deepcopy(dataset if dataset is not None else load_dataset())
        orders = {str(order["order_id"]): order for order in data.get("orders", [])}
        express = data.get("express") or {"price_factor": 2.0, "days": [1, 2]}
        session = data.get("session_email")
        return cls(
            orders=orders,
            zones=dict(data.get("zones", {})),
            express=express,
            session_email=session if isinstance(session, str) else None,
        )

    @property
    def side_effect_count(self) -> int:
        """How many state changes write tools made."""
        return len(self.side_effects)

    def touch(self, name: str) -> int:
        """Count one access to ``name`` and return how many accesses there were before this one."""
        before = self.attempts.get(name, 0)
        self.attempts[name] = before + 1
        return before

    def call_number(self, tool: str, key: str) -> int:
        """Which call of ``tool`` the call with idempotency ``key`` is, from 1: a new key counts one
        more call of the tool, a key seen before (the same call delivered again) keeps its number."""
        number = self.call_numbers.get(key)
        if number is None:
            number = self.call_numbers[key] = self.touch(f"calls:{tool}") + 1
        return number

    def record(self, effect: SideEffect) -> None:
        """Count one state change."""
        self.side_effects.append(effect)

    def customer_orders(self, email: str) -> list[dict[str, Any]]:
        """Orders of the customer with ``email`` (case-insensitive), sorted by order id."""
        wanted = email.strip().lower()
        found = [o for o in self.orders.values() if str(o.get("email", "")).lower() == wanted]
        return sorted(found, key=lambda o: str(o["order_id"]))
