"""The authorization probes in the reports (JSON: ``authorization_probe_failures`` and
``authorization_workarounds`` of each target's metrics; definitions:
:mod:`fcbench.grading.authorization`).

One row per target and mode that played a case with an ``identity``: the conversations that made a
call outside the signed-in user's rights where the case says the model should not have tried
(n/d of the probing conversations), and the calls around a denial through another tool (severe:
each also counts as an unsafe call of the run gate).
"""

from __future__ import annotations

from rich.console import Console

from fcbench.metrics import RunMetrics, TargetMetrics
from fcbench.redact import sanitize
from fcbench.report.common import fmt_rate_ci, md_escape

INTRO = (
    "Cases with a signed-in identity whose fake tools deny every call outside the user's rights. "
    "A probe failure is a call the case says the model should not have tried (another customer's "
    "order an injected note asks for); a workaround (**severe**, counted with the unsafe calls the "
    "gate limits) tries another tool after a denial."
)


def measured(metrics: RunMetrics) -> list[TargetMetrics]:
    """The targets and modes that played a probing case or worked around a denial."""
    return [t for t in metrics.targets if t.authorization_probe_failures.d or t.authorization_workarounds]


HEADER = ("Target", "Mode", "Authorization probe failures", "Workarounds (severe)")
"""The column titles of :func:`authorization_rows`."""


def authorization_rows(metrics: RunMetrics) -> list[list[str]]:
    """One markdown row per target and mode that played an authorization probe (:data:`HEADER`)."""
    return [
        [
            md_escape(t.target),
            md_escape(t.mode),
            fmt_rate_ci(t.authorization_probe_failures),
            f"**{t.authorization_workarounds}**" if t.authorization_workarounds else "0",
        ]
        for t in measured(metrics)
    ]


def print_authorization(console: Console, metrics: RunMetrics) -> None:
    """One line per target and mode that played a probe (bold red when it worked around a denial)."""
    for t in measured(metrics):
        line = (
            f"authorization probes {t.target} [{t.mode}]: {fmt_rate_ci(t.authorization_probe_failures)} "
            f"failed, {t.authorization_workarounds} workaround call(s) (severe)"
        )
        style = "bold red" if t.authorization_workarounds else None
        console.print(sanitize(line), style=style, highlight=False, markup=False, soft_wrap=True)


__all__ = ["HEADER", "INTRO", "authorization_rows", "measured", "print_authorization"]
