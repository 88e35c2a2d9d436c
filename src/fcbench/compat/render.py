"""Render a :class:`~fcbench.compat.classify.CompatReport`: markdown, JSON or one self-contained HTML page.

Every format shows the keyword x target matrix and the capability x target matrix; markdown and
HTML list the providers' rejection messages and fcbench's own schema changes below them.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from fcbench.compat.matrix import CapabilityCell, CompatReport, KeywordCell, KeywordRow

FORMATS = ("md", "json", "html")


def _changes(cell: KeywordCell) -> str:
    """``minLength removed, maxLength removed`` (distinct keyword and action, paths left out)."""
    short = dict.fromkeys(" ".join(t.split(" ")[:2]) for t in cell.transforms)
    return ", ".join(short)


def keyword_label(cell: KeywordCell) -> str:
    """A short cell text: status, counts, and what was transformed or why nothing was tested."""
    honoured = cell.calls - cell.violating_calls
    calls = f"{honoured}/{cell.calls} calls ok" if cell.calls else "no call"
    omitted = f", {cell.omitted} left the value out" if cell.omitted else ""
    errors = ", ".join(f"{code} {n}" for code, n in sorted(cell.errors.items()))
    match cell.status:
        case "rejected":
            return "rejected"
        case "transformed":
            return f"transformed ({_changes(cell)}); {calls}"
        case "accepted_violated":
            return f"violated: {calls}{omitted}"
        case "accepted_enforced":
            return f"enforced: {calls}{omitted}"
    carried_none = "no call carried the value" if cell.calls else ""
    reason = errors or carried_none or ("no call" if cell.no_call else "no observation")
    return f"untested ({reason})"


def capability_label(cell: CapabilityCell) -> str:
    """A short cell text: status and honoured/judged counts."""
    judged = cell.honoured + cell.ignored
    counts = f"{cell.honoured}/{judged}" if judged else "nothing judged"
    if cell.status == "unsupported":
        return f"unsupported (cannot be sent; honoured {counts})"
    if cell.status in ("rejected", "untested"):
        errors = ", ".join(f"{code} {n}" for code, n in sorted(cell.errors.items()))
        return cell.status + (f" ({errors})" if errors else "")
    return f"{cell.status} {counts}"


def _md_text(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _row_name(row: KeywordRow) -> str:
    return f"{row.label()} [strict]" if row.strict else row.label()


SUMMARY_VERBS: dict[str, str] = {
    "rejected": "rejected by",
    "transformed": "transformed by",
    "accepted_violated": "violated by",
    "accepted_enforced": "enforced by",
    "untested": "untested on",
}
"""Keyword status -> the words before the target labels in the per-property summary."""


def suite_summary(report: CompatReport) -> list[str]:
    """One line per derived row: ``get_weather.city: pattern -> rejected by X; enforced by Y``."""
    labels = [t.ident for t in report.targets]
    lines = []
    for row in report.keywords:
        if not row.derived:
            continue
        groups: dict[str, list[str]] = {}
        for label in labels:
            groups.setdefault(row.cells[label].status, []).append(label)
        parts = [
            f"{SUMMARY_VERBS[status]} {', '.join(groups[status])}"
            for status in SUMMARY_VERBS
            if status in groups
        ]
        lines.append(f"{_row_name(row)} -> {'; '.join(parts)}")
    return lines


def _keyword_table(rows: Sequence[KeywordRow], labels: list[str], first: str) -> list[str]:
    out = ["| {} | {} |\n|{}|\n".format(first, " | ".join(labels), "---|" * len(labels) + "---")]
    for row in rows:
        cells = " | ".join(_md_text(keyword_label(row.cells[label])) for label in labels)
        out.append(f"| {_md_text(_row_name(row))} | {cells} |\n")
    return out


def render_markdown(report: CompatReport) -> str:
    """Both matrices as markdown tables, followed by rejection messages and schema changes."""
    labels = [t.ident for t in report.targets]
    head = "| {} | {} |\n|{}|\n"
    out = [
        f"# fcbench compat: {report.run_id}\n",
        f"Repeats per probe: {report.repeats}. Run: {report.run_dir}\n",
    ]
    shipped = [row for row in report.keywords if not row.derived]
    derived = [row for row in report.keywords if row.derived]
    if shipped or not derived:
        out.append("\n## Schema keywords x targets\n\n")
        out.extend(_keyword_table(shipped, labels, "keyword"))
    if report.suite is not None:
        suite = report.suite
        out.append(f"\n## Your tools: suite {suite.name} {suite.dataset_version}\n\n")
        run = len({row.probe for row in derived})
        out.append(
            f"{suite.probes} keyword uses found in its tools, {run} probed "
            f"(probe set {suite.probes_hash[:12]}).\n\n"
        )
        out.extend(f"- {_md_text(line)}\n" for line in suite_summary(report))
        out.append("\n")
        out.extend(_keyword_table(derived, labels, "tool.property: keyword"))
    out.append("\n## Capabilities x targets\n\n")
    out.append(head.format("capability", " | ".join(labels), "---|" * len(labels) + "---"))
    for cap in report.capabilities:
        cells = " | ".join(_md_text(capability_label(cap.cells[label])) for label in labels)
        out.append(f"| {_md_text(cap.capability)} | {cells} |\n")
    rejections = [
        f"- {label}, {_row_name(row)}: {_md_text(message)}\n"
        for row in report.keywords
        for label in labels
        for message in row.cells[label].messages
    ] + [
        f"- {label}, {cap.capability}: {_md_text(message)}\n"
        for cap in report.capabilities
        for label in labels
        for message in cap.cells[label].messages
    ]
    if rejections:
        out.append("\n## Rejections (provider messages)\n\n")
        out.extend(rejections)
    changes = [
        f"- {label}, {_row_name(row)}: {'; '.join(row.cells[label].transforms)}\n"
        for row in report.keywords
        for label in labels
        if row.cells[label].transforms
    ]
    if changes:
        out.append("\n## Schema changes made by fcbench before sending\n\n")
        out.extend(changes)
    notes = [
        f"- {label}, {cap.capability}: {_md_text('; '.join(cap.cells[label].notes))}\n"
        for cap in report.capabilities
        for label in labels
        if cap.cells[label].notes
    ]
    if notes:
        out.append("\n## Requests the dialect could not express exactly\n\n")
        out.extend(notes)
    return "".join(out)


def render_json(report: CompatReport) -> str:
    """The whole report as indented JSON."""
    return report.model_dump_json(indent=2) + "\n"


_CSS = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#222}
table{border-collapse:collapse;margin-bottom:2rem}
th,td{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top;font-size:.9rem}
th{background:#f3f3f3}
.accepted_enforced,.honoured{background:#e3f6e3}
.accepted_violated,.ignored{background:#fde2e2}
.partial{background:#fff3d6}
.rejected{background:#f1d9f7}
.transformed{background:#dde9fb}
.untested,.unsupported{background:#eeeeee}
li{margin-bottom:.2rem}
"""


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _html_table(
    first: str, labels: list[str], rows: Sequence[tuple[str, Sequence[tuple[str, str, str]]]]
) -> str:
    head = "".join(f"<th>{_esc(label)}</th>" for label in labels)
    body = []
    for name, cells in rows:
        tds = "".join(
            f'<td class="{_esc(status)}" title="{_esc(title)}">{_esc(text)}</td>'
            for status, text, title in cells
        )
        body.append(f"<tr><th>{_esc(name)}</th>{tds}</tr>")
    return (
        f"<table><thead><tr><th>{_esc(first)}</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def render_html(report: CompatReport) -> str:
    """A self-contained page (inline CSS, no script) with both matrices; every text is escaped."""
    labels = [t.ident for t in report.targets]
    keyword_rows = [
        (
            _row_name(row),
            [
                (
                    row.cells[label].status,
                    keyword_label(row.cells[label]),
                    "; ".join(row.cells[label].messages + row.cells[label].violations),
                )
                for label in labels
            ],
        )
        for row in report.keywords
    ]
    shipped = [r for r, row in zip(keyword_rows, report.keywords, strict=True) if not row.derived]
    derived = [r for r, row in zip(keyword_rows, report.keywords, strict=True) if row.derived]
    mine = ""
    if report.suite is not None:
        mine = (
            f"<h2>Your tools: suite {_esc(report.suite.name)} {_esc(report.suite.dataset_version)}</h2><ul>"
            + "".join(f"<li>{_esc(line)}</li>" for line in suite_summary(report))
            + "</ul>"
            + _html_table("tool.property: keyword", labels, derived)
        )
    capability_rows = [
        (
            cap.capability,
            [
                (
                    cap.cells[label].status,
                    capability_label(cap.cells[label]),
                    "; ".join(cap.cells[label].messages + cap.cells[label].notes),
                )
                for label in labels
            ],
        )
        for cap in report.capabilities
    ]
    details = [
        f"<li>{_esc(label)}, {_esc(_row_name(row))}: {_esc(m)}</li>"
        for row in report.keywords
        for label in labels
        for m in row.cells[label].messages + row.cells[label].transforms
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>fcbench compat {_esc(report.run_id)}</title><style>{_CSS}</style></head><body>"
        f"<h1>fcbench compat: {_esc(report.run_id)}</h1>"
        f"<p>Repeats per probe: {_esc(report.repeats)}. Run: {_esc(report.run_dir)}</p>"
        + (
            "<h2>Schema keywords x targets</h2>" + _html_table("keyword", labels, shipped)
            if shipped or not derived
            else ""
        )
        + mine
        + "<h2>Capabilities x targets</h2>"
        + _html_table("capability", labels, capability_rows)
        + "<h2>Rejections and schema changes</h2><ul>"
        + "".join(details)
        + "</ul></body></html>\n"
    )


RENDERERS: dict[str, Callable[[CompatReport], str]] = {
    "md": render_markdown,
    "json": render_json,
    "html": render_html,
}
"""Format name -> renderer."""


def render(report: CompatReport, fmt: str) -> str:
    """Render ``report`` in ``fmt`` (one of :data:`FORMATS`)."""
    return RENDERERS[fmt](report)
