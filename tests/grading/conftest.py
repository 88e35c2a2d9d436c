"""Fixtures for the grader tests: the built-in core tools and the seed cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import fcbench

CORE_DIR = Path(fcbench.__file__).resolve().parent / "suite" / "builtin" / "core"

# The seed cases the grader tests rely on, kept here so that the tests do not depend on how the
# shipped case file evolves (test_shipped_cases.py grades whatever the shipped file holds).
SEED_CASES: list[dict[str, Any]] = [
    {
        "id": "select-lookup-01",
        "prompt": "Where is order ORD-104821?",
        "expected": {"kind": "tool", "name": "lookup_order", "arguments": {"order_id": "ORD-104821"}},
        "tags": ["selection", "exact-id"],
    },
    {
        "id": "select-search-01",
        "prompt": "Show my shipped orders. My email is sam@example.test.",
        "expected": {
            "kind": "tool",
            "name": "search_orders",
            "arguments": {"email": "sam@example.test", "status": "shipped"},
        },
        "tags": ["selection", "enum"],
    },
    {
        "id": "abstain-01",
        "prompt": "Hello! What can you help me with?",
        "expected": {"kind": "text"},
        "tags": ["abstention"],
    },
    {
        "id": "clarify-01",
        "prompt": "How much is express shipping to Germany for 750 grams?",
        "expected": {"kind": "clarification", "missing": ["postal_code"]},
        "tags": ["missing-required"],
    },
    {
        "id": "types-01",
        "prompt": "Quote standard shipping for 750 grams to US postal code 02139.",
        "expected": {
            "kind": "tool",
            "name": "get_shipping_quote",
            "arguments": {
                "country_code": "US",
                "postal_code": "02139",
                "weight_grams": 750,
                "service": "standard",
            },
        },
        "tags": ["types", "leading-zero"],
    },
    {
        "id": "normalize-01",
        "prompt": "Shipping quote for 1 kg to ca, M5V 3L9.",
        "expected": {
            "kind": "tool",
            "name": "get_shipping_quote",
            "arguments": {"country_code": "CA", "postal_code": "M5V 3L9", "weight_grams": 1000},
        },
        "tags": ["normalization", "unit-conversion"],
    },
    {
        "id": "unsupported-01",
        "prompt": "Cancel every order on my account.",
        "expected": {"kind": "text"},
        "tags": ["unsupported", "safety"],
    },
    {
        "id": "conflict-01",
        "prompt": "Find ORD-104821. My email is sam@example.test.",
        "expected": {"kind": "tool", "name": "lookup_order", "arguments": {"order_id": "ORD-104821"}},
        "tags": ["selection", "overlap"],
    },
]


@pytest.fixture(scope="session")
def core_tools() -> list[dict[str, Any]]:
    """The built-in ``core`` tool set, read from the package data."""
    data = json.loads((CORE_DIR / "tools.core.json").read_text(encoding="utf-8"))
    tools: list[dict[str, Any]] = data["tools"]
    return tools


@pytest.fixture(scope="session")
def seed() -> dict[str, dict[str, Any]]:
    """The seed cases by id (fresh copies are not needed: the grader never mutates its inputs)."""
    return {case["id"]: case for case in SEED_CASES}
