"""JUnit XML report: one ``<testcase>`` per case x target (and mode), for CI dashboards.

``classname`` is the target label, ``name`` is ``"<case id> [<mode>]"``. A test case fails when any
scorable repeat failed (the message lists the failure reasons) and is skipped when every repeat was
lost to a provider or harness error.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from fcbench.metrics import CaseSummary, RunMetrics
from fcbench.report.common import strip_control


def render_junit(metrics: RunMetrics) -> str:
    """The JUnit XML document (UTF-8 text with an XML declaration)."""
    root = ET.Element("testsuites", name=_clean(f"fcbench {metrics.run.run_id}"))
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for t in metrics.targets:
        cases = [c for c in metrics.cases if c.target == t.target and c.mode == t.mode]
        suite = ET.SubElement(root, "testsuite", name=_clean(f"{t.target} [{t.mode}]"))
        counts = {"tests": 0, "failures": 0, "skipped": 0}
        for case in cases:
            counts["tests"] += 1
            status = _add_case(suite, case)
            if status:
                counts[status] += 1
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("errors", "0")
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _add_case(suite: ET.Element, case: CaseSummary) -> str | None:
    """Append one ``<testcase>``; return ``"failures"``, ``"skipped"`` or None when it passed."""
    el = ET.SubElement(
        suite, "testcase", classname=_clean(case.target), name=_clean(f"{case.case_id} [{case.mode}]")
    )
    if case.passed.d == 0:
        skipped = ET.SubElement(el, "skipped")
        skipped.set("message", f"all {case.errors} repeats lost to provider or harness errors")
        return "skipped"
    if case.passed.n < case.passed.d:
        failed = case.passed.d - case.passed.n
        reasons = "; ".join(f"{r} (x{n})" for r, n in case.reasons.items())
        failure = ET.SubElement(el, "failure", type="fcbench.failed")
        failure.set("message", _clean(f"{failed} of {case.passed.d} repeats failed: {reasons}"))
        decisions = ", ".join(f"{d}: {n}" for d, n in case.decisions.items())
        failure.text = _clean(f"prompt: {case.prompt}\ndecisions: {decisions}\nreasons: {reasons}")
        return "failures"
    return None


def _clean(text: str) -> str:
    return strip_control(text)
