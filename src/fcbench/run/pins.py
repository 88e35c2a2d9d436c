"""What a run pins about itself, and how a resume checks it: a run directory is data, never instructions.

A run directory holds ``manifest.json`` (the pinned facts: dataset and config hashes, targets with
their endpoints) and ``config.json`` (the effective config). Run directories travel (CI artifacts,
a colleague's baseline, a downloaded benchmark), so resuming one takes from it only what a plan
is made of, and checks the rest against what the user's own side says:

- **Where the config comes from on resume.** ``fcbench run --resume DIR -c CONFIG`` uses the
  user's CONFIG as the whole config, exactly as a fresh run would (the directory's ``config.json``
  is not read). Without ``--config``, the plan is rebuilt from ``DIR/config.json`` *minus*
  everything that could send a request elsewhere or run something: its ``endpoints``, its
  ``tools_from_mcp`` commands and its targets' ``headers`` are left out (:data:`NOT_TAKEN`), so
  endpoints come from the built-ins and MCP tools only from the user's own ``--tools-from-mcp``
  flags. No default config file is picked up implicitly: a resume reads what a fresh run would.
- **Checked before anything runs or is sent** (:func:`check_pinned`): every target of the plan,
  resolved against the user's endpoints, must match the manifest's pinned endpoint, dialect, base
  URL and auth (a mismatch names both sides), and the dataset hash (tools from MCP included),
  config hash and shard must match. A ``config.json`` whose left-out parts made the hash differ
  is refused with what to pass instead.

The manifest also pins every tool the suite offers (:func:`tool_pins`): per tool set, the sha256 of
each tool's canonical JSON of name, description and parameters, and the cases offered the set, so
``fcbench compare`` can name the tools whose schema or description changed between two runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench.config import RunConfig
from fcbench.contract import Tool
from fcbench.endpoints import MANAGED_SERVICE_NAMES, RunningService
from fcbench.errors import RunStateError
from fcbench.files import read_run_bytes
from fcbench.run.plan import Target
from fcbench.store.records import Manifest, PinnedTarget, ToolSetPin
from fcbench.suite.caselist import heads_of
from fcbench.suite.imports import json_sha256
from fcbench.suite.parts import Suite

CONFIG_FILE = "config.json"
"""The effective config of a run, beside its manifest (``--resume`` without ``--config`` reads its plan)."""

NOT_TAKEN = ("endpoints", "tools_from_mcp")
"""Config keys a resume never takes from a run directory (nor any target's ``headers``)."""

TARGET_PINS = ("endpoint", "dialect", "base_url", "auth", "api_version")
"""The keys of a pinned target a resume's target must agree on (where its requests go, and how)."""


def pinned_target(t: Target, name: str, running: Mapping[str, RunningService]) -> PinnedTarget:
    """The manifest's entry for target ``t`` (``name``: the config's name for it, else its label)."""
    key = t.endpoint.service_key(t.model)
    entry: dict[str, Any] = {
        "name": name,
        "label": t.label,
        "endpoint": t.endpoint.name,
        "dialect": t.endpoint.dialect,
        "model": t.model,
        "base_url": MANAGED_SERVICE_NAMES.get(t.endpoint.managed or "", t.endpoint.base_urls),
        "auth": t.endpoint.auth,
    }
    if t.endpoint.api_version:
        entry["api_version"] = t.endpoint.api_version
    own = t.settings.model_dump(exclude_defaults=True)
    if own:
        entry["settings"] = own
    service = running.get(key) if key is not None else None
    if service is not None and service.pins:
        entry["service"] = dict(service.pins)
    return PinnedTarget(**entry)


def tool_hash(tool: Tool) -> str:
    """sha256 (hex) of the canonical JSON of ``tool``'s name, description and parameters."""
    return json_sha256({"name": tool.name, "description": tool.description, "parameters": tool.parameters})


def tool_pins(suite: Suite) -> dict[str, ToolSetPin]:
    """Every tool set the suite's cases are offered (a case's own list as ``inline:<case id>``), with
    a hash per tool and the cases offered it."""
    tools: dict[str, list[Tool]] = {}
    cases: dict[str, list[str]] = {}
    for position, case in enumerate(heads_of(suite.cases)):  # heads: only inline lists build a case
        name = case.tool_set if case.tool_set is not None else f"inline:{case.id}"
        if name not in tools:
            tools[name] = suite.tools_for(suite.cases[position])
        cases.setdefault(name, []).append(case.id)
    return {
        name: ToolSetPin(tools={t.name: tool_hash(t) for t in offered}, cases=cases[name])
        for name, offered in tools.items()
    }


@dataclass(frozen=True)
class ResumeBase:
    """The plan a run directory's ``config.json`` describes, without what a resume never takes."""

    data: dict[str, Any]
    """The config's keys (by field name) with :data:`NOT_TAKEN` and targets' ``headers`` removed."""
    left_out: list[str] = field(default_factory=list)
    """What was removed, in words (``endpoints (mylab)``), for the refusal when the hash differs."""


def resume_base(run_dir: Path) -> ResumeBase:
    """Read ``run_dir/config.json`` as data (never through a link) and drop what is not taken."""
    path = run_dir / CONFIG_FILE
    text = read_run_bytes(path, missing=f"{run_dir}: no {CONFIG_FILE}; pass the original --config to resume")
    try:
        stored = RunConfig.model_validate_json(text)
    except ValueError as exc:  # cut by a kill during its write, or edited
        raise RunStateError(
            f"{path}: damaged ({str(exc)[:200]}); pass the original --config to resume"
        ) from None
    data = stored.model_dump(by_alias=False)
    left_out = []
    if data.pop("endpoints", None):
        left_out.append(f"endpoints ({', '.join(sorted(stored.endpoints))})")
    if data.pop("tools_from_mcp", None):
        left_out.append("tools_from_mcp commands")
    for entry in data.get("targets", []):
        if isinstance(entry, dict) and entry.pop("headers", None):
            left_out.append(f"headers of target {entry.get('target')}")
    return ResumeBase(data, left_out)


def not_taken(run_dir: Path, left_out: Sequence[str], why: str = "") -> RunStateError:
    """The refusal of a resume that needs what :func:`resume_base` left out (``why``: what failed)."""
    return RunStateError(
        f"{run_dir}: cannot resume without your own config{f' ({why})' if why else ''}: the run's "
        f"{CONFIG_FILE} holds {', '.join(left_out)}, which a resume never takes from a run "
        "directory; pass your own --config that defines them as the run had them"
    )


def _differs(
    run_dir: Path, name: str, pinned: object, ours: object, left_out: Sequence[str]
) -> RunStateError:
    if name == "config_hash" and left_out:
        return not_taken(run_dir, left_out)
    return RunStateError(
        f"{run_dir}: cannot resume: {name} differs from the run's manifest "
        f"({pinned} != {ours}); start a new run instead"
    )


def _check_targets(run_dir: Path, old: Manifest, targets: Sequence[Target]) -> None:
    pinned = {entry.ident: entry for entry in old.targets}
    for target in targets:
        entry = pinned.get(target.label)
        if entry is None:
            raise RunStateError(
                f"{run_dir}: cannot resume: target {target.label} is not one of the run's targets "
                f"({', '.join(sorted(pinned))})"
            )
        ours = pinned_target(target, target.label, {})
        for key in TARGET_PINS:
            theirs, mine = getattr(entry, key), getattr(ours, key)
            if (key in entry.model_fields_set or key == "api_version") and theirs != mine:
                raise RunStateError(
                    f"{run_dir}: cannot resume target {target.label}: the run pins {key} "
                    f"{theirs!r}, your endpoint {target.endpoint.name!r} has {mine!r}; "
                    "a resume sends only where your own config (or the built-ins) says: pass a --config "
                    "whose endpoint matches, or start a new run"
                )


def check_pinned(
    run_dir: Path,
    old: Manifest,
    *,
    targets: Sequence[Target] | None,
    hashes: Mapping[str, object],
    left_out: Sequence[str] = (),
) -> None:
    """Refuse to resume ``run_dir`` (manifest ``old``) unless the ``targets`` (None: not checked
    here) and ``hashes`` (``dataset_hash``, ``config_hash``, ``shard``) agree with what it pins;
    see the module. A pinned target key missing from an older manifest is not compared."""
    if targets is not None:
        _check_targets(run_dir, old, targets)
    for name, ours in hashes.items():
        if getattr(old, name) != ours:
            raise _differs(run_dir, name, getattr(old, name), ours, left_out)


__all__ = [
    "CONFIG_FILE",
    "NOT_TAKEN",
    "ResumeBase",
    "check_pinned",
    "not_taken",
    "pinned_target",
    "resume_base",
    "tool_hash",
    "tool_pins",
]
