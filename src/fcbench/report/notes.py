"""Notes beside a run's figures, about what the model did rather than how well it scored.

- **Model-caused provider errors** (:data:`fcbench.contract.MODEL_CAUSED_ERRORS`, such as a server
  that could not parse the model's own output) are coverage loss like every provider error, but the
  model's behaviour, not an infrastructure fault: they are counted apart, per target.
- **Chat templates**: a managed local target's server pins its chat template by sha256 (a template
  variant changes the wire format the model is asked to write its calls in).
- **Calls written as text**: when most of a target's scored answers were calls written in the
  message text (the ``call_in_text`` decision), the strict rate says little about the model's
  choices; the note puts the ``repairs`` profile's pass rate (which reads those calls) beside it.
"""

from __future__ import annotations

from pathlib import Path

from fcbench.contract import MODEL_CAUSED_ERRORS
from fcbench.metrics import RunMetrics, TargetMetrics, compute_metrics
from fcbench.report.common import fmt_rate, md_escape
from fcbench.store.records import read_manifest

MOSTLY_TEXT_CALLS = 0.5
"""Share of a target's scored answers above which calls written as text get a note."""


def model_caused_errors(target: TargetMetrics) -> dict[str, int]:
    """The target's provider errors the model caused, by code."""
    return {code: n for code, n in target.provider_errors.items() if code in MODEL_CAUSED_ERRORS}


def model_caused_lines(metrics: RunMetrics) -> list[str]:
    """One line per target and mode with model-caused provider errors."""
    lines = []
    for t in sorted(metrics.targets, key=lambda t: (t.target, t.mode)):
        caused = model_caused_errors(t)
        if caused:
            infrastructure = sum(t.provider_errors.values()) - sum(caused.values())
            codes = ", ".join(f"{code} x{n}" for code, n in caused.items())
            lines.append(
                f"model-caused provider errors {t.target} [{t.mode}]: {codes} (the server could not parse "
                f"the model's output: coverage loss, the model's behaviour; {infrastructure} other "
                "provider errors)"
            )
    return lines


def mostly_text_calls(metrics: RunMetrics) -> list[TargetMetrics]:
    """Targets and modes most of whose scored answers were calls written as text."""
    return [
        t
        for t in metrics.targets
        if t.scorable and t.decisions.get("call_in_text", 0) > MOSTLY_TEXT_CALLS * t.scorable
    ]


def text_call_lines(run_dir: Path, metrics: RunMetrics) -> list[str]:
    """One line per target and mode whose answers were mostly calls written as text, with the strict
    pass rate and the repairs profile's beside it (the run is re-graded only when there is one)."""
    shown = mostly_text_calls(metrics)
    if not shown:
        return []
    repaired = {(t.target, t.mode): t for t in compute_metrics(run_dir, profile="repairs").targets}
    lines = []
    for t in sorted(shown, key=lambda t: (t.target, t.mode)):
        repairs = repaired.get((t.target, t.mode))
        lines.append(
            f"calls written as text {t.target} [{t.mode}]: {t.decisions['call_in_text']}/{t.scorable} "
            f"answers wrote the call in the message text (call_in_text), not as a tool call; pass "
            f"{fmt_rate(t.pass_rate, 0)} strict, "
            + (f"{fmt_rate(repairs.pass_rate, 0)} " if repairs is not None else "")
            + "with --profile repairs, which reads calls from text"
        )
    return lines


def template_lines(run_dir: Path) -> list[str]:
    """One line per target a managed llama.cpp server answered: its model and chat template pins."""
    lines = []
    for target in read_manifest(run_dir).targets:
        service = target.service or {}
        if service.get("managed") != "local":
            continue
        variant = service.get("template_variant") or "the model's own"
        lines.append(
            f"chat template {target.ident}: {variant} (sha256 {service.get('chat_template_sha256')}); "
            f"model file sha256 {service.get('sha256')}"
        )
    return lines


def notes_section(run_dir: Path, metrics: RunMetrics) -> str:
    """The markdown section of the notes; empty when none applies."""
    lines = template_lines(run_dir) + model_caused_lines(metrics) + text_call_lines(run_dir, metrics)
    if not lines:
        return ""
    items = "\n".join(f"- {md_escape(line, limit=500)}" for line in lines)
    return f"\n## Notes on the targets\n\n{items}\n"
