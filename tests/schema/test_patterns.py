"""Suite-provided patterns never block: catastrophic ones are bounded and reported, not passed."""

from __future__ import annotations

import time

import pytest

from fcbench.schema.patterns import MATCH_TIMEOUT_S, RETRY_TIMEOUT_S, bounded_search, has_nested_quantifier
from fcbench.schema.validate import ValidatorCache

EVIL = r"^(a|aa)+$"
ATTACK = "a" * 60 + "!"
"""Unbounded, matching this against EVIL backtracks for hours; bounded, it gives up within a second."""


def test_a_catastrophic_pattern_is_unchecked_within_its_deadline() -> None:
    started = time.process_time()
    assert bounded_search(EVIL, ATTACK) is None
    # CPU seconds of this process: the match gives up, whatever the load
    assert time.process_time() - started < 20 * (MATCH_TIMEOUT_S + RETRY_TIMEOUT_S)
    assert bounded_search(EVIL, "aaaa") is True
    assert bounded_search(r"^\d{5}$", "02139") is True
    assert bounded_search(r"^\d{5}$", "2139") is False


@pytest.mark.parametrize(
    ("schema", "value", "message"),
    [
        ({"type": "string", "pattern": EVIL}, ATTACK, "could not be checked against"),
        (
            {"type": "object", "patternProperties": {EVIL: {"type": "integer"}}},
            {ATTACK: 1},
            "could not be checked",
        ),
        (
            {
                "type": "object",
                "properties": {"x": {"type": "string", "pattern": EVIL}},
                "additionalProperties": False,
            },
            {"x": ATTACK},
            "could not be checked",
        ),
    ],
)
def test_schema_keywords_with_a_catastrophic_pattern_fail_fast_with_a_reason(
    schema: dict[str, object], value: object, message: str
) -> None:
    started = time.process_time()
    result = ValidatorCache().validate(schema, value)  # type: ignore[arg-type]
    assert time.process_time() - started < 2.0  # CPU seconds, every thread of this process
    assert not result.valid and any(message in e for e in result.errors), result.errors


def test_pattern_keywords_keep_their_meaning() -> None:
    cache = ValidatorCache()
    strict = {
        "type": "object",
        "properties": {"code": {"type": "string", "pattern": "^[A-Z]{2}$"}},
        "patternProperties": {"^x-": {"type": "integer"}},
        "additionalProperties": False,
    }
    assert cache.validate(strict, {"code": "US", "x-a": 1}).valid
    assert cache.validate(strict, {"code": "us"}).errors == ["code: 'us' does not match '^[A-Z]{2}$'"]
    assert cache.validate(strict, {"x-a": "1"}).errors == ["x-a: '1' is not of type 'integer'"]
    assert cache.validate(strict, {"other": 1}).errors == [
        "(root): 'other' does not match any of the regexes: '^x-'"
    ]
    closed = {"type": "object", "properties": {"a": {}}, "additionalProperties": False}
    assert cache.validate(closed, {"b": 1, "c": 2}).errors == [
        "(root): Additional properties are not allowed ('b', 'c' were unexpected)"
    ]


@pytest.mark.parametrize(
    ("pattern", "nested"),
    [
        (r"^(a+)+$", True),
        (r"(\d*)*", True),
        (r"^([a-z]+\.)*com$", True),
        (r"^(ab|cd){2,}$", False),
        (r"^\d{5}$", False),
    ],
)
def test_nested_quantifiers_are_recognised(pattern: str, nested: bool) -> None:
    assert has_nested_quantifier(pattern) is nested
