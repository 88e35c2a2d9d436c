"""What two runs' manifests pin differently besides their results: the embedded mock's injected
faults and latency (each target's ``service`` pins), the faults given to the fake tools, and whether
pending cases were scored. ``fcbench compare`` names each difference as a warning: a pass rate
measured under ``--mock-faults rate_limit:0.3`` is not one measured without."""

from __future__ import annotations

from fcbench.store.records import Manifest

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
    scored = {side: bool(m.filters.get("include_pending")) for side, m in (("BASE", base), ("NEW", new))}
    if scored["BASE"] != scored["NEW"]:
        which = "BASE" if scored["BASE"] else "NEW"
        found.append(f"only {which} scored the suite's pending cases (--include-pending)")
    return found
