"""Which target of BASE is compared with which target of NEW, and how a pair is named.

The rules, in order (see :mod:`fcbench.report.compare`): ``explicit`` pairs given as
``BASE=NEW``, then targets of the same ``name``, then ``single`` when each run has one target.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from fcbench.errors import ConfigError
from fcbench.metrics import RunMetrics, TargetMetrics

PairingRule = Literal["explicit", "name", "single"]
"""Which rule paired two targets."""


def parse_pair(text: str) -> tuple[str, str]:
    """``BASE=NEW`` (labels or names) as a tuple; :class:`ConfigError` when it is not of that form."""
    parts = text.split("=")
    if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
        raise ConfigError(
            f"expected BASE=NEW (a target label or name on each side), got {text!r}", key="--pair"
        )
    return parts[0].strip(), parts[1].strip()


def _labels(run: RunMetrics) -> dict[str, str]:
    """Target label -> name, in run order."""
    out: dict[str, str] = {}
    for t in run.targets:
        out.setdefault(t.target, t.name or t.target)
    return out


def _resolve(spec: str, labels: dict[str, str], side: str) -> str:
    if spec in labels:
        return spec
    matches = [label for label, name in labels.items() if name == spec]
    if len(matches) == 1:
        return matches[0]
    known = ", ".join(named(n, label) for label, n in labels.items()) or "none"
    if not matches:
        raise ConfigError(f"{spec!r} is no target label or name of the {side} run ({known})", key="--pair")
    raise ConfigError(f"{spec!r} names several targets of the {side} run: {', '.join(matches)}", key="--pair")


def pair_targets(
    base: RunMetrics, new: RunMetrics, pairs: Sequence[tuple[str, str]] = (), *, only_given: bool = False
) -> tuple[list[tuple[str, str, PairingRule]], dict[str, str]]:
    """Pair BASE target labels with NEW target labels: explicit pairs, then by name, then single
    (``only_given``: the explicit pairs only, as when every pair was chosen in the viewer's page).

    Returns ``(base label, new label, rule)`` triples and, for BASE labels left unpaired, a note on
    why when there is one more specific than "no partner".
    """
    base_labels, new_labels = _labels(base), _labels(new)
    out: list[tuple[str, str, PairingRule]] = []
    for b_spec, n_spec in pairs:
        b, n = _resolve(b_spec, base_labels, "BASE"), _resolve(n_spec, new_labels, "NEW")
        for label, index in ((b, 0), (n, 1)):
            if any(p[index] == label for p in out):
                raise ConfigError(f"{label} is paired more than once", key="--pair")
        out.append((b, n, "explicit"))
    notes: dict[str, str] = {}
    if only_given:
        return out, {b: "no partner was chosen" for b in base_labels if all(p[0] != b for p in out)}
    free_new = [n for n in new_labels if all(p[1] != n for p in out)]
    for b, name in base_labels.items():
        if any(p[0] == b for p in out):
            continue
        candidates = [n for n in free_new if new_labels[n] == name]
        twins = [other for other, other_name in base_labels.items() if other_name == name]
        if len(candidates) == 1 and len(twins) == 1:
            out.append((b, candidates[0], "name"))
            free_new.remove(candidates[0])
        elif candidates:
            notes[b] = f"the name {name!r} is ambiguous; pair it with --pair BASE=NEW"
    if not out and len(base_labels) == 1 and len(new_labels) == 1:
        out.append((next(iter(base_labels)), next(iter(new_labels)), "single"))
    return out, notes


def named(name: str, label: str) -> str:
    """How a target is named: ``prod (openai:gpt-4o)``, or its label when it has no name of its own."""
    return label if not name or name == label else f"{name} ({label})"


def pair_title(b: TargetMetrics, n: TargetMetrics) -> str:
    """How reports name a pair of targets."""
    if (b.name or b.target) == (n.name or n.target):
        if b.target == n.target:
            return named(b.name, b.target)
        return f"{b.name or b.target} ({b.target} -> {n.target})"
    return f"{named(b.name, b.target)} -> {named(n.name, n.target)}"


__all__ = ["PairingRule", "named", "pair_targets", "pair_title", "parse_pair"]
