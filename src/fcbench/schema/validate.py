"""Validate tool arguments exactly as produced.

Draft 2020-12 with ``format`` checked, every error collected, and nothing changed: no type
coercion, no defaults inserted, no properties removed. The ``jsonschema`` library never mutates
the instance, which is the point. Validators are compiled once per schema and reused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from fcbench.errors import CaseError

FORMAT_CHECKER = Draft202012Validator.FORMAT_CHECKER


@dataclass(frozen=True)
class ValidationResult:
    """Outcome of validating one arguments value against one schema."""

    valid: bool
    """True when the value satisfies the schema as produced."""
    errors: list[str] = field(default_factory=list)
    """One message per violation, each prefixed with the JSON path of the offending value."""


def _path(parts: Any) -> str:
    text = ".".join(str(p) for p in parts)
    return text or "(root)"


class SchemaValidator:
    """A compiled Draft 2020-12 validator for one schema, reusable across calls."""

    def __init__(self, schema: dict[str, Any]) -> None:
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            raise CaseError(f"invalid JSON Schema at {_path(exc.absolute_path)}: {exc.message}") from exc
        self._validator = Draft202012Validator(schema, format_checker=FORMAT_CHECKER)

    def validate(self, instance: Any) -> ValidationResult:
        """Validate ``instance`` without modifying it; collect every error, sorted by path."""
        errors = sorted(
            self._validator.iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path]
        )
        messages = [f"{_path(e.absolute_path)}: {e.message}" for e in errors]
        return ValidationResult(valid=not messages, errors=messages)


class ValidatorCache:
    """Compiles each distinct schema once (keyed by its canonical JSON) and reuses the validator."""

    def __init__(self) -> None:
        self._compiled: dict[str, SchemaValidator] = {}

    def get(self, schema: dict[str, Any]) -> SchemaValidator:
        """Return the compiled validator for ``schema``."""
        key = json.dumps(schema, sort_keys=True, separators=(",", ":"))
        validator = self._compiled.get(key)
        if validator is None:
            validator = self._compiled[key] = SchemaValidator(schema)
        return validator

    def validate(self, schema: dict[str, Any], instance: Any) -> ValidationResult:
        """Validate ``instance`` against ``schema`` using the cached validator."""
        return self.get(schema).validate(instance)
