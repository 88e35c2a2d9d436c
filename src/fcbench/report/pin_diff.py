"""What two runs' manifests pin differently besides their results: the embedded mock's injected
faults and latency (each target's ``service`` pins), the faults given to the fake tools, whether
pending cases were scored, and the tools whose definition changed. ``fcbench compare`` names each
difference as a warning: a pass rate measured under ``--mock-faults rate_limit:0.3`` is not one
measured without.

**Tools.** Each manifest pins, per tool set, the sha256 of every tool's name, description and
parameters (:func:`fcbench.run.pins.tool_pins`). A tool is *changed* when the hashes under its name
differ between the runs, *added* or *removed* when only one run offers it; the cases offered it in
either run are its cases: the tool's warning names each flip of one of them (case, direction,
pair), and each such flip lists the tool in :attr:`~fcbench.report.compare.Flip.changed_tools`.
A manifest recorded before tools were pinned has none: nothing is compared then.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from fcbench.report.compare import Comparison, Flip
from fcbench.store.records import Manifest

ToolChangeKind = Literal["changed", "added", "removed"]
"""How a tool differs between two runs."""

FLIPS_NAMED = 20
"""Flips named per changed tool in its warning."""

UNSET = "none"
"""How a pin one run does not have is shown."""


def _shown(value: object) -> str:
    return UNSET if value in (None, "", []) else str(value)


def _service_differences(base: Manifest, new: Manifest) -> list[str]:
    new_targets = {t.label: t for t in new.targets if t.label}
    found = []
    for b in base.targets:
        n = new_targets.get(b.label) if b.label else None
        if n is None:
            continue
        base_pins, new_pins = dict(b.service or {}), dict(n.service or {})
        kind = str(new_pins.get("managed") or base_pins.get("managed") or "service")
        for key in sorted(set(base_pins) | set(new_pins)):
            before, after = _shown(base_pins.get(key)), _shown(new_pins.get(key))
            if before != after:
                found.append(f"{b.label}: {kind} {key.replace('_', ' ')} differ (BASE {before}, NEW {after})")
    return found


def pin_differences(base: Manifest, new: Manifest) -> list[str]:
    """One line per setting the two manifests pin differently (results may not be comparable)."""
    found = _service_differences(base, new)
    if base.tool_faults != new.tool_faults:
        found.append(f"tool faults differ (BASE {_shown(base.tool_faults)}, NEW {_shown(new.tool_faults)})")
    if base.tool_order != new.tool_order:
        orders = (base.tool_order or "the suite's order", new.tool_order or "the suite's order")
        found.append(f"tool order differs (BASE {orders[0]}, NEW {orders[1]})")
    scored = {side: bool(m.filters.get("include_pending")) for side, m in (("BASE", base), ("NEW", new))}
    if scored["BASE"] != scored["NEW"]:
        which = "BASE" if scored["BASE"] else "NEW"
        found.append(f"only {which} scored the suite's pending cases (--include-pending)")
    return found


@dataclass(frozen=True)
class ToolChange:
    """One tool whose definition differs between two runs."""

    name: str
    kind: ToolChangeKind
    """``changed`` (schema or description), ``added`` (only NEW offers it) or ``removed`` (only BASE)."""
    base: tuple[str, ...]
    """The tool's hashes in BASE (one per distinct definition), sorted."""
    new: tuple[str, ...]
    """The tool's hashes in NEW, sorted."""
    cases: frozenset[str]
    """The cases offered the tool in either run."""

    def describe(self) -> str:
        """``tool refund changed (schema or description; sha256 1a2b3c4d -> 5e6f7a8b), offered to 3 cases``"""
        hashes = f"sha256 {_short(self.base)} -> {_short(self.new)}"
        what = {
            "changed": "schema or description",
            "added": "only NEW offers it",
            "removed": "only BASE offers it",
        }
        return (
            f"tool {self.name} {self.kind} ({what[self.kind]}; {hashes}), offered to {len(self.cases)} cases"
        )


def _short(hashes: Sequence[str]) -> str:
    return ", ".join(h[:8] for h in hashes) or UNSET


def _tool_index(manifest: Manifest) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Tool name -> its hashes, and tool name -> the cases offered it, over every pinned set."""
    hashes: dict[str, set[str]] = {}
    cases: dict[str, set[str]] = {}
    for pin in manifest.tool_sets.values():
        for name, digest in pin.tools.items():
            hashes.setdefault(name, set()).add(digest)
            cases.setdefault(name, set()).update(pin.cases)
    return hashes, cases


def tool_changes(base: Manifest, new: Manifest) -> list[ToolChange]:
    """The tools whose definition differs between the runs, by name (none when either run pins no tools)."""
    if not base.tool_sets or not new.tool_sets:
        return []
    (base_hashes, base_cases), (new_hashes, new_cases) = _tool_index(base), _tool_index(new)
    found = []
    for name in sorted(set(base_hashes) | set(new_hashes)):
        before, after = base_hashes.get(name, set()), new_hashes.get(name, set())
        if before == after:
            continue
        kind: ToolChangeKind = "changed" if before and after else ("added" if after else "removed")
        offered = frozenset(base_cases.get(name, set()) | new_cases.get(name, set()))
        found.append(ToolChange(name, kind, tuple(sorted(before)), tuple(sorted(after)), offered))
    return found


def _flips_of(change: ToolChange, comparison: Comparison) -> list[str]:
    """``case-7 pass -> fail [prod (a -> b) [single]]`` for each flip of one of the tool's cases."""
    found = []
    for direction, flips in (
        ("pass -> fail", comparison.pass_to_fail),
        ("fail -> pass", comparison.fail_to_pass),
    ):
        found += [
            f"{f.case_id} {direction} [{f.title} [{f.mode}]]" for f in flips if f.case_id in change.cases
        ]
    return found


def tool_warnings(comparison: Comparison, changes: Sequence[ToolChange]) -> list[str]:
    """One warning per changed tool, naming it and the flips of the cases offered it."""
    lines = []
    for change in changes:
        flips = _flips_of(change, comparison)
        shown = ", ".join(flips[:FLIPS_NAMED]) + (
            f", {len(flips) - FLIPS_NAMED} more" if len(flips) > FLIPS_NAMED else ""
        )
        lines.append(
            change.describe() + (f"; its cases flipped: {shown}" if flips else "; none of its cases flipped")
        )
    return lines


def mark_changed_tools(comparison: Comparison, base: Manifest, new: Manifest) -> Comparison:
    """``comparison`` with a warning for each tool whose definition differs between the two runs'
    manifests (:func:`tool_changes`), naming the flips of the cases offered it, and those flips
    marked with the tools' names."""
    changes = tool_changes(base, new)
    if not changes:
        return comparison

    def marked(flips: list[Flip]) -> list[Flip]:
        return [
            flip.model_copy(update={"changed_tools": [c.name for c in changes if flip.case_id in c.cases]})
            for flip in flips
        ]

    return comparison.model_copy(
        update={
            "warnings": [*tool_warnings(comparison, changes), *comparison.warnings],
            "pass_to_fail": marked(comparison.pass_to_fail),
            "fail_to_pass": marked(comparison.fail_to_pass),
        }
    )
