"""Authorization rules of a fake-tools data set (its ``authorization`` section), as data.

The data set (the packaged ``dataset.json`` of :mod:`fcbench.fake_tools`, or a suite's own
``store.json``) says what each tool needs::

    "authorization": {"tools": {
        "lookup_order": {"scopes": ["orders:read"], "orders": ["order_id"]},
        "search_orders": {"scopes": ["orders:read"], "customers": ["email"]}}}

The fake tools apply the rules to cases that declare an ``identity``
(:mod:`fcbench.fake_tools.authorization`); the suite loader checks a ``store.json``'s section
(:func:`check_store`), so a malformed rule is an error naming the file, line and key before
anything runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fcbench.suite.tools import Finding, pydantic_findings

AUTHORIZATION_KEY = "authorization"
"""The data set's section of authorization rules."""


class AccessRule(BaseModel):
    """What one tool needs: scopes, and the arguments that name resources the user must own."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    scopes: list[str] = Field(default_factory=list)
    """Scopes the user must hold, every one of them."""
    orders: list[str] = Field(default_factory=list)
    """Arguments holding an order id: the order's ``owner`` must be the user."""
    customers: list[str] = Field(default_factory=list)
    """Arguments holding a customer (an e-mail): it must be the user."""


class AccessRules(BaseModel):
    """The data set's ``authorization`` section."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    description: str = ""
    """What the rules are for, for people reading the data set."""
    tools: dict[str, AccessRule] = Field(default_factory=dict)
    """Tool name -> its rule; a tool without one is not checked."""


class StoreRules(BaseModel):
    """A data set as far as its authorization rules go (its other keys are the fake tools')."""

    model_config = ConfigDict(extra="allow", frozen=True)

    authorization: AccessRules = Field(default_factory=AccessRules)
    """The rules; none when the data set has no such section."""


def store_rules(data: Any) -> AccessRules:
    """The rules of a data set; raises :class:`~pydantic.ValidationError` when they are malformed."""
    return StoreRules.model_validate(data).authorization


def check_store(data: Any, report: Callable[[Sequence[Finding]], None]) -> AccessRules:
    """The rules of a suite's ``store.json`` (``data``); each problem is reported (with its key
    path) and the rules are then none."""
    if not isinstance(data, dict):
        report([Finding((), "a fake-tools data set must be a JSON object")])
        return AccessRules()
    try:
        return store_rules(data)
    except ValidationError as exc:
        report(pydantic_findings(exc, data))
        return AccessRules()


__all__ = ["AUTHORIZATION_KEY", "AccessRule", "AccessRules", "StoreRules", "check_store", "store_rules"]
