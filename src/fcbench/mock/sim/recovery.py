"""Working with tool results: reading error details, repairing arguments, facts and follow-up hints."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from fcbench.mock.sim import lexicon as lx
from fcbench.mock.sim import text as tx
from fcbench.mock.sim.dialogue import ResultReading, SimExchange
from fcbench.mock.sim.extract import extract
from fcbench.mock.sim.schemas import (
    Schema,
    as_json_number,
    clamp,
    fits,
    main_type,
    pattern_of,
    properties,
    required,
    truncate,
)
from fcbench.mock.sim.select import ToolInfo
from fcbench.mock.sim.strings import fit_pattern

REQUIRED_RE = re.compile(
    r"'([^']+)' is a required property|missing (?:required )?(?:property|field|argument)\W+(\w+)"
)
EXTRA_RE = re.compile(
    r"\('([^']+)' (?:was|were) unexpected\)|(?:unknown|unexpected|additional) (?:property|field|"
    r"argument|parameter)\W+(\w+)",
    re.I,
)
STATE_KEYS = ("status", "state", "order_status", "payment_status")
BOUND_RES = (
    (
        re.compile(
            r"\b(?:at most|no more than|maximum(?: of| is)?|max(?:imum)?|up to|<=)\s*(-?\d+(?:\.\d+)?)", re.I
        ),
        "maximum",
    ),
    (
        re.compile(r"\b(?:at least|no less than|minimum(?: of| is)?|min|>=)\s*(-?\d+(?:\.\d+)?)", re.I),
        "minimum",
    ),
)
ONE_OF_RE = re.compile(r"\b(?:one of|must be (?:either )?'|allowed values|valid values|either)\b", re.I)
EXAMPLE_RE = re.compile(r"'([^']{1,60})'|\"([^\"]{1,60})\"")


@dataclass(frozen=True)
class Targets:
    """What an INVALID_ARGUMENTS error points at."""

    wrong: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    notes: tuple[tuple[str, str], ...] = ()
    """(property, what the error says about it)."""

    @property
    def all(self) -> tuple[str, ...]:
        """Every property named, in order, without repeats."""
        seen: list[str] = []
        for name in (*self.wrong, *self.missing, *self.extra):
            if name not in seen:
                seen.append(name)
        return tuple(seen)


def _detail_parts(detail: Any) -> tuple[str, str]:
    if isinstance(detail, str):
        path, sep, message = detail.partition(": ")
        return (path, message) if sep else ("", detail)
    if isinstance(detail, dict):
        path = next(
            (
                detail[k]
                for k in ("path", "field", "instancePath", "loc", "param", "property", "name")
                if k in detail
            ),
            "",
        )
        if isinstance(path, list):
            path = ".".join(str(p) for p in path)
        raw_params = detail.get("params")
        params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
        extra = " ".join(
            f"'{v}' is a required property" if k == "missingProperty" else f"('{v}' was unexpected)"
            for k, v in params.items()
            if k in {"missingProperty", "additionalProperty"}
        )
        return str(path).strip("/").replace("/", "."), f"{detail.get('message', '')} {extra}".strip()
    return "", str(detail)


def targets(outcome: ResultReading, schema: Schema) -> Targets:
    """Which properties an error names as wrong, missing or unexpected, and what it says about each."""
    names = list(properties(schema, schema))
    wrong: list[str] = []
    missing: list[str] = []
    extra: list[str] = []
    notes: dict[str, str] = {}
    texts = [_detail_parts(d) for d in outcome.details] or [("", outcome.message)]
    for path, message in texts:
        head = path.split(".")[0] if path not in {"", "(root)", "$"} else ""
        for m in REQUIRED_RE.finditer(message):
            missing.append(m.group(1) or m.group(2))
        for m in EXTRA_RE.finditer(message):
            extra.append(m.group(1) or m.group(2))
        named = (
            [head]
            if head in names
            else []
            if head
            else [n for n in names if re.search(rf"\b{re.escape(n)}\b", message) and n not in missing + extra]
        )
        for name in named:
            if name not in missing:
                wrong.append(name)
            notes[name] = f"{notes.get(name, '')} {message}".strip()
    return Targets(
        tuple(dict.fromkeys(wrong)),
        tuple(dict.fromkeys(missing)),
        tuple(dict.fromkeys(extra)),
        tuple(notes.items()),
    )


def coerce(value: Any, schema: Schema, root: Schema) -> Any:
    """Bring a value to what the schema wants: type, case, enum spelling, bounds, length. None if hopeless."""
    kind = main_type(schema)
    candidate = value
    if kind in {"integer", "number"} and isinstance(value, str):
        cleaned = value.replace(",", "").strip()
        try:
            candidate = as_json_number(float(cleaned), schema)
        except ValueError:
            return None
    if (
        kind in {"integer", "number"}
        and isinstance(candidate, int | float)
        and not isinstance(candidate, bool)
    ):
        candidate = as_json_number(clamp(float(candidate), schema), schema)
    if kind == "string" and isinstance(candidate, int | float) and not isinstance(candidate, bool):
        candidate = str(candidate)
    if kind == "boolean" and isinstance(candidate, str):
        candidate = {"true": True, "yes": True, "false": False, "no": False}.get(candidate.lower(), candidate)
    if isinstance(candidate, str):
        enum = [e for e in schema.get("enum") or [] if isinstance(e, str)]
        if enum and candidate not in enum:
            candidate = next((e for e in enum if candidate.lower() in lx.enum_forms(e)), candidate)
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            compiled = pattern_of(schema)
            if compiled is not None:
                candidate = fit_pattern(candidate, compiled) or candidate
        if isinstance(schema.get("maxLength"), int):
            candidate = truncate(candidate, schema["maxLength"])
    return candidate if fits(candidate, schema, root) else None


def tightened(schema: Schema, note: str) -> Schema:
    """``schema`` with the bounds an error message states ('at most 10 orders') added."""
    out = dict(schema)
    for regex, key in BOUND_RES:
        for m in regex.finditer(note):
            bound = float(m.group(1))
            old = out.get(key)
            if not isinstance(old, int | float) or (bound < old if key == "maximum" else bound > old):
                out[key] = int(bound) if bound.is_integer() else bound
    return out


def reshaped(value: str, example: str) -> list[str]:
    """``value`` rewritten in the shape of an example the error gave ('A1A 1A1', 'ORD-015')."""
    out: list[str] = []
    chars = [c for c in value if c.isalnum()]
    slots = [c for c in example if c.isalnum()]
    if (
        chars
        and len(chars) == len(slots)
        and all(a.isdigit() == b.isdigit() for a, b in zip(chars, slots, strict=True))
    ):
        feed = iter(chars)
        out.append("".join(next(feed) if c.isalnum() else c for c in example))
    shape = re.fullmatch(r"(\D*?)(\d+)", example)
    digits = re.sub(r"\D", "", value)
    if shape and digits:
        out.append(shape.group(1) + digits[-len(shape.group(2)) :].zfill(len(shape.group(2))))
    return out


def _closest_option(note: str, evidence: str) -> str | None:
    """When an error lists the accepted values ("one of 'a', 'b'"), the one the evidence speaks for."""
    if not ONE_OF_RE.search(note):
        return None
    wanted = {tx.stem(w) for w in tx.words(evidence)}
    best: tuple[int, str] | None = None
    for m in EXAMPLE_RE.finditer(note):
        option = m.group(1) or m.group(2)
        overlap = len({tx.stem(w) for w in tx.words(tx.split_identifier(option))} & wanted)
        if overlap and (best is None or overlap > best[0]):
            best = (overlap, option)
    return best[1] if best else None


def _fix_value(current: Any, fresh: Any, schema: Schema, root: Schema, note: str, text: str) -> Any:
    hinted = tightened(schema, note)
    options: list[Any] = [_closest_option(note, f"{current or ''} {text}")]
    for base in (fresh, current):
        if base is None:
            continue
        options += [base, coerce(base, hinted, root)]
        if isinstance(base, str | int) and not isinstance(base, bool):
            for m in EXAMPLE_RE.finditer(note):
                options += reshaped(str(base), m.group(1) or m.group(2))
    valid = [o for o in options if o is not None and fits(o, hinted, root)]
    changed = [o for o in valid if o != current]
    return changed[0] if changed else (valid[0] if valid else None)


def repair(
    args: Any, schema: Schema, text: str, found: Targets, everything: bool = True
) -> dict[str, Any] | None:
    """Arguments fixed for the properties an error names (all of them, or only the first when not
    ``everything``), from the user's text, by coercion, and by following the error's own examples and
    bounds. None when nothing could change."""
    props = properties(schema, schema)
    fresh = extract(schema, text)
    if not isinstance(args, dict):
        rebuilt = fresh.args()
        return rebuilt if rebuilt else None
    original = args
    fixed = dict(original)
    names = list(found.all)
    if everything:
        closed = schema.get("additionalProperties") is False
        names += [n for n in fixed if n not in props and closed and n not in names]
        names += [n for n in props if n in fixed and not fits(fixed[n], props[n], schema) and n not in names]
    notes = dict(found.notes)
    for name in names if everything else names[:1]:
        if name not in props:
            fixed.pop(name, None)
            continue
        from_text = fresh.values.get(name)
        value = _fix_value(
            fixed.get(name),
            from_text.value if from_text else None,
            props[name],
            schema,
            notes.get(name, ""),
            text,
        )
        if value is not None:
            fixed[name] = value
        elif name in fixed and name not in found.missing:
            fixed.pop(name)
    return fixed if fixed != original else None


def _find_key(data: Any, keys: tuple[str, ...]) -> Any:
    if isinstance(data, dict):
        for key in keys:
            if key in data and not isinstance(data[key], dict | list):
                return data[key]
        for value in data.values():
            hit = _find_key(value, keys)
            if hit is not None:
                return hit
    if isinstance(data, list):
        for value in data:
            hit = _find_key(value, keys)
            if hit is not None:
                return hit
    return None


def known_facts(exchanges: tuple[SimExchange, ...]) -> dict[str, Any]:
    """Facts established by successful results (so far: an order's state, 'refunded' once refunded)."""
    facts: dict[str, Any] = {}
    for ex in exchanges:
        if ex.outcome is not None and ex.outcome.ok:
            state = _find_key(ex.outcome.data, STATE_KEYS)
            if isinstance(state, str):
                facts["state"] = state.lower()
            if _find_key(ex.outcome.data, ("refunded",)) is True:
                facts["state"] = "refunded"
    return facts


def shows_effect(write: str, data: Any) -> bool:
    """Whether a status result shows the write ``write`` took effect: a key named after its action set
    (``refunded: true``, ``refunded_amount: 40``), or a value naming it (``cancelled``)."""
    stems = {tx.stem(w) for w in tx.action_words(tx.split_identifier(write))} - {"creat", "updat"}
    if isinstance(data, dict):
        named = (
            any(str(k).lower().startswith(s) for s in stems) and v not in (False, 0, None)
            for k, v in data.items()
        )
        return any(named) or any(shows_effect(write, v) for v in data.values())
    if isinstance(data, list):
        return any(shows_effect(write, item) for item in data)
    return isinstance(data, str) and any(data.lower().startswith(s) for s in stems)


def status_arguments(write_args: Any, read_schema: Schema) -> dict[str, Any] | None:
    """A read tool's arguments to check what a write acted on: the write's text values under the
    read tool's property names (``order_id``); None when they miss one it requires."""
    props = properties(read_schema, read_schema)
    args = {
        k: v
        for k, v in (write_args if isinstance(write_args, dict) else {}).items()
        if k in props and isinstance(v, str)
    }
    return args if args and all(n in args for n in required(read_schema, read_schema)) else None


def value_from_results(name: str, exchanges: tuple[SimExchange, ...]) -> Any:
    """A value for property ``name`` found under the same key in a successful result."""
    for ex in reversed(exchanges):
        if ex.outcome is not None and ex.outcome.ok:
            hit = _find_key(ex.outcome.data, (name,))
            if hit is not None:
                return hit
    return None


def _strings(data: Any) -> list[str]:
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for v in data.values() for s in _strings(v)]
    if isinstance(data, list):
        return [s for v in data for s in _strings(v)]
    return []


def hinted(
    outcome: ResultReading, infos: list[ToolInfo], exclude: str, trust_injections: bool = False
) -> ToolInfo | None:
    """Another offered tool that a result names as the next step (ignoring instruction-like text unless
    ``trust_injections``)."""
    texts = [outcome.message, *_strings(outcome.data), *(json.dumps(d) for d in outcome.details)]
    for info in infos:
        if info.tool.name == exclude:
            continue
        for text in texts:
            if info.tool.name in text and (trust_injections or not tx.is_injection(text)):
                return info
    return None


def injected_tools(exchanges: tuple[SimExchange, ...], infos: list[ToolInfo]) -> list[tuple[ToolInfo, str]]:
    """Tools named by instruction-like text inside results, each with that text (what a gullible model
    would obey)."""
    out: list[tuple[ToolInfo, str]] = []
    for ex in exchanges:
        if ex.outcome is None:
            continue
        for text in _strings(ex.outcome.data) + [ex.outcome.message]:
            if not tx.is_injection(text):
                continue
            wanted = tx.action_words(text) | tx.concepts(text)
            for info in infos:
                named = info.tool.name in text or bool(
                    info.write and wanted & info.all_concepts & tx.WRITE_CONCEPTS
                )
                if named and all(info is not seen for seen, _ in out):
                    out.append((info, text))
    return out
