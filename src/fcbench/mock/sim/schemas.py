"""JSON Schema helpers for the simulated models: references, types, constraint checks, plausible fakes.

The models read schemas the way a model reads a prompt: they follow local ``$ref``s, look at types,
enums, patterns and bounds, and (for the eager personality) make up values that look right.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

import msgspec
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from fcbench.contract import json_type

Schema = dict[str, Any]

EMAIL_RE = re.compile(r"[\w.%+\-]+@[\w\-]+(?:\.[\w\-]+)*\.[^\W\d_]{2,}")


_ENCODE = msgspec.json.Encoder()


def schema_key(schema: Any) -> bytes | str:
    """JSON text of a schema for caches (keys in order; ``json.loads`` gives it back). Equal keys mean
    equal schemas: msgspec's text, unless it holds ``null`` (msgspec's NaN and infinities), else json's."""
    try:
        fast = _ENCODE.encode(schema)
    except (TypeError, ValueError, OverflowError):
        return json.dumps(schema)
    return json.dumps(schema) if b"null" in fast else fast


def resolve(schema: Any, root: Schema, depth: int = 0) -> Schema:
    """Follow local ``$ref`` pointers (``#/$defs/x``, ``#/definitions/x``) until a concrete schema."""
    if not isinstance(schema, dict):
        return {}
    ref = schema.get("$ref")
    if not isinstance(ref, str) or depth > 8 or not ref.startswith("#"):
        return schema
    target: Any = root
    for part in ref.lstrip("#").strip("/").split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        target = target.get(part) if isinstance(target, dict) else None
    merged = {k: v for k, v in schema.items() if k != "$ref"}
    resolved = resolve(target, root, depth + 1)
    return {**resolved, **merged}


def types_of(schema: Schema) -> list[str]:
    """The JSON types a schema allows, from ``type`` or from ``const``/``enum`` values."""
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    samples = [schema["const"]] if "const" in schema else list(schema.get("enum") or [])
    found: list[str] = []
    for sample in samples:
        name = json_type(sample)
        if name not in found:
            found.append(name)
    if not found and "properties" in schema:
        found.append("object")
    return found


def main_type(schema: Schema) -> str | None:
    """The first non-null type the schema allows, or None when it does not say."""
    for name in types_of(schema):
        if name != "null":
            return name
    return None


def branches(schema: Schema, root: Schema) -> list[Schema]:
    """The alternatives of ``anyOf``/``oneOf`` (resolved), or the schema itself."""
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            base = {k: v for k, v in schema.items() if k != key}
            return [{**base, **resolve(option, root)} for option in options if isinstance(option, dict)]
    return [schema]


def properties(schema: Schema, root: Schema) -> dict[str, Schema]:
    """The resolved ``properties`` of an object schema (merging ``allOf`` parts)."""
    props: dict[str, Schema] = {}
    for part in [schema, *[resolve(p, root) for p in schema.get("allOf") or [] if isinstance(p, dict)]]:
        for name, sub in (part.get("properties") or {}).items():
            props[name] = resolve(sub, root)
    return props


def required(schema: Schema, root: Schema) -> list[str]:
    """Required property names of an object schema (merging ``allOf`` parts)."""
    names: list[str] = []
    for part in [schema, *[resolve(p, root) for p in schema.get("allOf") or [] if isinstance(p, dict)]]:
        for name in part.get("required") or []:
            if isinstance(name, str) and name not in names:
                names.append(name)
    return names


def pattern_of(schema: Schema) -> re.Pattern[str] | None:
    """The compiled ``pattern`` of a string schema, or None when absent or not a valid regex."""
    pattern = schema.get("pattern")
    if not isinstance(pattern, str):
        return None
    try:
        return re.compile(pattern)
    except re.error:
        return None


def violations(value: Any, schema: Schema, root: Schema) -> list[str]:
    """Why ``value`` does not satisfy ``schema`` (empty when it does); checked with jsonschema."""
    candidate = dict(schema)
    for key in ("$defs", "definitions"):
        if key in root and key not in candidate:
            candidate[key] = root[key]
    try:
        return [error.message for error in _checker(schema_key(candidate)).iter_errors(value)]
    except (SchemaError, TypeError, ValueError, re.error):
        return []


@lru_cache(maxsize=1024)
def _checker(key: bytes | str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(key), format_checker=Draft202012Validator.FORMAT_CHECKER)


def fits(value: Any, schema: Schema, root: Schema) -> bool:
    """True when ``value`` satisfies ``schema``."""
    return not violations(value, schema, root)


def clamp(value: float, schema: Schema) -> float:
    """Bring a number inside the schema's inclusive and exclusive bounds."""
    step = 1 if main_type(schema) == "integer" else 0.01
    low = schema.get("minimum")
    high = schema.get("maximum")
    if isinstance(schema.get("exclusiveMinimum"), int | float):
        low = max(low if isinstance(low, int | float) else float("-inf"), schema["exclusiveMinimum"] + step)
    if isinstance(schema.get("exclusiveMaximum"), int | float):
        high = min(high if isinstance(high, int | float) else float("inf"), schema["exclusiveMaximum"] - step)
    if isinstance(low, int | float) and value < low:
        value = low
    if isinstance(high, int | float) and value > high:
        value = high
    return value


def in_bounds(value: float, schema: Schema) -> bool:
    """True when a number respects every numeric bound of the schema."""
    return clamp(value, schema) == value and _multiple_ok(value, schema)


def _multiple_ok(value: float, schema: Schema) -> bool:
    step = schema.get("multipleOf")
    if not isinstance(step, int | float) or step <= 0:
        return True
    return abs(value / step - round(value / step)) < 1e-9


def as_json_number(value: float, schema: Schema) -> int | float:
    """Render a number in the schema's type: an int for integers, an int when whole for numbers."""
    if main_type(schema) == "integer" or float(value).is_integer():
        return int(round(value))
    return round(value, 6)


def truncate(text: str, limit: int) -> str:
    """Shorten ``text`` to at most ``limit`` characters, at a word boundary when possible."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,.;")


class _PatternWriter:
    """Writes one plausible string matching a simple regular expression (first alternatives)."""

    def __init__(self, pattern: str, seed: int) -> None:
        self.pattern = pattern
        self.pos = 0
        self.seed = seed
        self.count = 0

    def _digit(self) -> str:
        self.count += 1
        return str((self.seed + self.count) % 9 + 1)

    def _letter(self, upper: bool = True) -> str:
        self.count += 1
        ch = "ABCDEFGHJKLMNPQRSTUVWXYZ"[(self.seed + self.count) % 24]
        return ch if upper else ch.lower()

    def write(self) -> str:
        """The sample string."""
        return self._sequence()

    def _sequence(self) -> str:
        out: list[str] = []
        while self.pos < len(self.pattern) and self.pattern[self.pos] not in "|)":
            atom = self._atom()
            low, high = self._quantifier()
            times = low if low > 0 else (1 if high != 0 else 0)
            out.append("".join(atom() for _ in range(times)))
        if self.pos < len(self.pattern) and self.pattern[self.pos] == "|":
            depth = 0
            while self.pos < len(self.pattern):
                ch = self.pattern[self.pos]
                if ch == "(":
                    depth += 1
                elif ch == ")":
                    if depth == 0:
                        break
                    depth -= 1
                self.pos += 1
        return "".join(out)

    def _atom(self) -> Any:
        ch = self.pattern[self.pos]
        self.pos += 1
        if ch in "^$":
            return lambda: ""
        if ch == "(":
            if self.pattern.startswith("?:", self.pos):
                self.pos += 2
            start = self.pos
            self._sequence()
            end = self.pos
            self.pos += 1
            inner = self.pattern[start:end]
            seed = self.seed
            return lambda: _PatternWriter(inner, seed).write()
        if ch == "[":
            end = self.pattern.index("]", self.pos)
            body = self.pattern[self.pos : end]
            self.pos = end + 1
            return lambda: self._from_class(body)
        if ch == "\\":
            esc = self.pattern[self.pos]
            self.pos += 1
            table = {"d": self._digit, "w": self._letter, "s": lambda: " "}
            return table.get(esc, lambda: esc)
        if ch == ".":
            return self._letter
        return lambda: ch

    def _from_class(self, body: str) -> str:
        if body.startswith("^"):
            return self._letter()
        if "A-Z" in body:
            return self._letter()
        if "a-z" in body:
            return self._letter(upper=False)
        if "0-9" in body or "\\d" in body:
            return self._digit()
        return body.replace("\\", "")[:1] or "x"

    def _quantifier(self) -> tuple[int, int]:
        if self.pos >= len(self.pattern):
            return 1, 1
        ch = self.pattern[self.pos]
        if ch == "{":
            end = self.pattern.index("}", self.pos)
            body = self.pattern[self.pos + 1 : end]
            self.pos = end + 1
            low, _, high = body.partition(",")
            lo = int(low or 0)
            return lo, int(high) if high else lo
        if ch in "+*?":
            self.pos += 1
            return {"+": (3, 3), "*": (1, 1), "?": (1, 1)}[ch]
        return 1, 1


def sample_for_pattern(pattern: str, seed: int = 0) -> str | None:
    """A plausible string matching ``pattern`` (None when the pattern is too fancy to imitate)."""
    try:
        text = _PatternWriter(pattern, seed).write()
    except (ValueError, IndexError):
        return None
    try:
        return text if re.search(pattern, text) else None
    except re.error:
        return None
