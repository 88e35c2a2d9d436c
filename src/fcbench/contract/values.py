"""The one reading of JSON values every layer shares: their canonical text and their type names.

Both follow JSON Schema's data model, the one the validator (:mod:`fcbench.schema.validate`,
``jsonschema`` draft 2020-12) applies: a number with no fractional part is an integer whether it
is written ``1`` or ``1.0``, a boolean is never a number, and a string is never a number. So
``1`` and ``1.0`` have one canonical text and one type name, ``integer``, and a message that
names a value's type ("got integer") agrees with the verdict the validator gave it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any


def _canonical_value(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            return int(value)  # exact: an integral float equals exactly one integer
        return value
    if isinstance(value, Mapping):
        return {str(k): _canonical_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_canonical_value(v) for v in value]
    return repr(value)


def canonical_json(value: Any) -> str:
    """Canonical JSON text of ``value``: sorted keys, no spaces, Unicode kept, integral floats as integers.

    Two equal JSON values (``1`` and ``1.0`` alike, ``true`` never ``1``) have the same canonical
    text, so a hash or key made of it does not depend on how a number was written. Never raises:
    a value too deeply nested to serialise is described by its type instead.
    """
    try:
        return json.dumps(_canonical_value(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (RecursionError, ValueError, TypeError):
        return json.dumps({"unserialisable": type(value).__name__})


def json_type(value: Any) -> str:
    """The JSON Schema type name of a decoded JSON value, the most specific one the validator accepts.

    ``null``, ``boolean``, ``integer``, ``number``, ``string``, ``array`` or ``object``. A float with
    no fractional part (``1.0``) is ``integer``, as JSON Schema (and ``jsonschema``) has it; a
    non-integral or non-finite float is ``number``; ``True`` is ``boolean``, never ``integer``. A
    tuple is an array (as :func:`canonical_json` writes it); a value JSON cannot hold is named by
    its Python type.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if math.isfinite(value) and value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


__all__ = ["canonical_json", "json_type"]
