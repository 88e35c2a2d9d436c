"""Authorization in the fake tools: who may call which tool on whose records, as data.

A case may say who its user is (:class:`~fcbench.suite.models.Identity`: a ``user`` and their
``scopes``). The data set says what each tool needs (its ``authorization`` section, read by
:func:`access_rules`; the models are :mod:`fcbench.suite.access`'s) and who owns each record (an
order's ``owner``)::

    "authorization": {"tools": {
        "lookup_order": {"scopes": ["orders:read"], "orders": ["order_id"]},
        "search_orders": {"scopes": ["orders:read"], "customers": ["email"]}}}

A rule names the scopes the tool needs and the arguments that name a resource: ``orders`` lists
arguments holding an order id (the order's ``owner`` must be the user), ``customers`` arguments
holding a customer (the value itself must be the user). Users, owners and customers are compared
without case or surrounding spaces. An argument that is absent, or an order id the data set does
not hold, names nothing (the fake then answers, e.g. ``NOT_FOUND``). A tool without a rule, and
every tool of a case without an identity, is not checked.

A call outside the user's rights is answered ``PERMISSION_DENIED`` in the fake tools' error
format (:func:`~fcbench.fake_tools.results.fail`) before the fake runs, so it changes nothing;
its first detail starts with :data:`DENIAL_DETAIL` (:func:`is_authorization_denial` tells such a
denial from any other ``PERMISSION_DENIED``, an order on hold say). The registry wrapper
:func:`authorized_registry` applies the rules to any registry (built-in or scripted fakes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from pydantic import ValidationError

from fcbench.errors import CaseError
from fcbench.fake_tools.results import error_code, fail
from fcbench.fake_tools.store import CallContext, FakeStore
from fcbench.fake_tools.toolbox import FakeTool, Implementation
from fcbench.suite.access import AccessRule, AccessRules, store_rules
from fcbench.suite.models import Identity

DENIAL_DETAIL = "authorization: "
"""How the first detail of a denial for authorization starts."""


def access_rules(dataset: Mapping[str, Any], source: str = "dataset.json") -> AccessRules:
    """The authorization rules of a data set (:func:`fcbench.suite.access.store_rules`; none when
    it has no ``authorization`` section); :class:`~fcbench.errors.CaseError` naming ``source`` and
    the key when the section is malformed."""
    try:
        return store_rules(dataset)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        raise CaseError(f"{where}: {error['msg']}", path=source) from exc


def _same(left: Any, right: Any) -> bool:
    return isinstance(left, str) and isinstance(right, str) and left.strip().lower() == right.strip().lower()


def denial(
    rule: AccessRule, identity: Identity, store: FakeStore, arguments: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The ``PERMISSION_DENIED`` envelope for a call outside ``identity``'s rights, else None."""
    missing = [scope for scope in rule.scopes if scope not in identity.scopes]
    if missing:
        detail = f"{DENIAL_DETAIL}the signed-in user lacks the scope(s) {', '.join(missing)}"
        return fail("PERMISSION_DENIED", "The signed-in user is not allowed to use this tool.", [detail])
    for name in rule.orders:
        order = store.orders.get(str(arguments.get(name)))
        if order is not None and not _same(order.get("owner"), identity.user):
            detail = f"{DENIAL_DETAIL}{name} {order['order_id']} belongs to another customer"
            message = f"Order {order['order_id']} does not belong to the signed-in customer."
            return fail("PERMISSION_DENIED", message, [detail])
    for name in rule.customers:
        value = arguments.get(name)
        if isinstance(value, str) and not _same(value, identity.user):
            detail = f"{DENIAL_DETAIL}{name} names another customer than the signed-in one"
            message = "The signed-in customer may only see their own orders."
            return fail("PERMISSION_DENIED", message, [detail])
    return None


@dataclass(frozen=True)
class AuthorizedImplementation:
    """A fake tool's implementation behind its access rule: a call outside the identity's rights
    is denied before the fake runs."""

    run: Implementation
    """The fake tool's own implementation."""
    rule: AccessRule
    """What the tool needs."""
    identity: Identity
    """Who is calling."""

    def __call__(self, store: FakeStore, arguments: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
        """The denial, or what the fake answers."""
        denied = denial(self.rule, self.identity, store, arguments)
        return denied if denied is not None else self.run(store, arguments, ctx)


def authorized_registry(
    registry: Mapping[str, FakeTool], rules: AccessRules, identity: Identity | None
) -> Mapping[str, FakeTool]:
    """``registry`` with every tool that has a rule checked against ``identity``; ``registry``
    itself when there is no identity or no rule."""
    if identity is None or not rules.tools:
        return registry
    guarded = dict(registry)
    for name, rule in rules.tools.items():
        tool = registry.get(name)
        if tool is not None:
            implementation = AuthorizedImplementation(tool.run, rule, identity)
            guarded[name] = FakeTool(name, implementation, tool.latency_ms, tool.evidence_source)
    return MappingProxyType(guarded)


def is_authorization_denial(content: Any) -> bool:
    """Whether a result envelope is a ``PERMISSION_DENIED`` for authorization (:data:`DENIAL_DETAIL`)."""
    if error_code(content) != "PERMISSION_DENIED" or not isinstance(content.get("error"), dict):
        return False
    details = content["error"].get("details")
    first = details[0] if isinstance(details, list) and details else None
    return isinstance(first, str) and first.startswith(DENIAL_DETAIL)


__all__ = [
    "DENIAL_DETAIL",
    "AuthorizedImplementation",
    "access_rules",
    "authorized_registry",
    "denial",
    "is_authorization_denial",
]
