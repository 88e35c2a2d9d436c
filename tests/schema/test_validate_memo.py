"""A validator remembers the instances it found valid, by their exact JSON text, and nothing else.

Validation runs once per distinct valid instance (counted by wrapping the validator's checking
method, which runs jsonschema); instances JSON tells apart (``1`` and ``1.0``, ``true`` and ``1``, key order)
are validated on their own; invalid ones are checked again every time; the memory is bounded.
"""

from __future__ import annotations

from typing import Any

import pytest

from fcbench.schema import validate as validate_module
from fcbench.schema.validate import MAX_REMEMBERED_VALID, SchemaValidator

SCHEMA = {
    "type": "object",
    "properties": {"count": {"type": "integer"}, "flag": {"type": "boolean"}},
    "required": ["count"],
    "additionalProperties": False,
}


def counting(validator: SchemaValidator, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every instance the compiled validator is asked to check, in order."""
    checked: list[Any] = []
    real = validator._checked

    def check(instance: Any) -> Any:
        checked.append(instance)
        return real(instance)

    monkeypatch.setattr(validator, "_checked", check)
    return checked


def test_a_repeated_valid_instance_is_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    validator = SchemaValidator(SCHEMA)
    checked = counting(validator, monkeypatch)
    results = [validator.validate({"count": 3, "flag": True}) for _ in range(5)]
    assert [r.valid for r in results] == [True] * 5
    assert all(r.errors == [] for r in results)
    assert len(checked) == 1


def test_instances_json_tells_apart_are_checked_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    validator = SchemaValidator(SCHEMA)
    checked = counting(validator, monkeypatch)
    for instance in ({"count": 1}, {"count": 1.0}, {"count": 1, "flag": True}, {"flag": True, "count": 1}):
        assert validator.validate(instance).valid
    assert len(checked) == 4
    assert validator.validate({"count": True}).valid is False  # a boolean is no integer, even after 1


def test_an_invalid_instance_is_checked_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    validator = SchemaValidator(SCHEMA)
    checked = counting(validator, monkeypatch)
    first = validator.validate({"count": "3"})
    second = validator.validate({"count": "3"})
    assert not first.valid and first.errors == second.errors
    assert first.errors == ["count: '3' is not of type 'integer'"]
    assert len(checked) == 2


def test_the_memory_is_bounded_oldest_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(validate_module, "MAX_REMEMBERED_VALID", 3)
    validator = SchemaValidator(SCHEMA)
    checked = counting(validator, monkeypatch)
    for count in range(5):
        validator.validate({"count": count})
    assert len(validator._valid) == 3
    validator.validate({"count": 4})  # still remembered
    validator.validate({"count": 0})  # forgotten: checked again
    assert checked == [{"count": n} for n in range(5)] + [{"count": 0}]
    assert MAX_REMEMBERED_VALID >= 256


def test_an_instance_with_no_json_text_is_checked_and_not_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    validator = SchemaValidator({"type": "array"})
    checked = counting(validator, monkeypatch)
    nested: list[Any] = []
    for _ in range(100_000):
        nested = [nested]
    assert validator.validate(nested).valid  # too deep for a JSON text, not for {"type": "array"}
    assert validator.validate(nested).valid
    assert len(checked) == 2 and validator._valid == {}
