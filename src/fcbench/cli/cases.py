"""``fcbench cases``: validate a suite and list its cases.

``fcbench cases validate SUITE`` loads a suite (built-in name or folder) with every check and
prints a summary; any problem is raised as a :class:`~fcbench.errors.CaseError`, which the app
prints (one problem per line, each as ``file:line: field: message``) and turns into exit code 2.
``fcbench cases list [SUITE]`` prints a table of the cases. ``fcbench cases review SUITE`` lists
the pending cases (``label: pending``, e.g. imported from logs) with their prompt, the prefilled
expectation and the review flags; ``validate`` warns, without failing, when any case is pending.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from fcbench.suite.loader import Suite
    from fcbench.suite.models import Case

SuiteArgument = Annotated[
    str, typer.Argument(help="Built-in suite name (see 'fcbench cases list --builtin') or suite folder path.")
]

KINDS = ("tool", "tools", "text", "clarification")


def summarise(suite: Suite) -> dict[str, Any]:
    """A JSON-ready summary of a loaded suite: identity, hash, tool sets and case counts."""
    from fcbench.suite.lint import category_counts

    kinds: Counter[str] = Counter(str(case.expected.kind) for case in suite.cases)
    return {
        "suite": suite.info.name,
        "dataset_version": suite.info.dataset_version,
        "dataset_hash": suite.dataset_hash,
        "path": str(suite.path),
        "cases": len(suite.cases),
        "tool_sets": {name: [tool.name for tool in tools] for name, tools in sorted(suite.tool_sets.items())},
        "by_category": category_counts(suite),
        "minimums": dict(suite.info.minimums),
        "by_kind": {name: kinds.get(name, 0) for name in KINDS},
    }


def _expected_label(case: Case) -> str:
    from fcbench.suite.models import ExpectClarification, ExpectTool, ExpectTools

    expected = case.expected
    if isinstance(expected, ExpectTool):
        return f"tool {expected.name}"
    if isinstance(expected, ExpectTools):
        names = ", ".join(call.name for call in expected.calls)
        return f"tools ({expected.order}) {names}"
    if isinstance(expected, ExpectClarification):
        return f"clarification: {', '.join(expected.missing)}"
    return "text"


REVIEW_TAG_PREFIX = "needs-review:"
"""Tags that flag a case for a person's attention (``needs-review:pii``, ``needs-review:secret``)."""


def pending_cases(suite: Suite) -> list[Case]:
    """The cases whose expectation no person has confirmed yet (``label: pending``)."""
    return [case for case in suite.cases if case.pending]


def review_flags(case: Case) -> list[str]:
    """The case's review tags (``needs-review:...``)."""
    return [tag for tag in case.tags if tag.startswith(REVIEW_TAG_PREFIX)]


def expected_call_text(case: Case) -> str:
    """The expectation with its arguments: ``lookup_order {"order_id":"ORD-1"}``, ``text``, ..."""
    from fcbench.contract import canonical_json
    from fcbench.suite.models import ExpectTool, ExpectTools

    expected = case.expected
    calls = [expected] if isinstance(expected, ExpectTool) else list(getattr(expected, "calls", []))
    if not calls:
        return _expected_label(case)
    order = f" (order {expected.order})" if isinstance(expected, ExpectTools) else ""
    shown = "; ".join(
        f"{c.name} {canonical_json(c.arguments) if c.arguments is not None else '(any arguments)'}"
        for c in calls
    )
    return shown + order


def review_command(
    suite: SuiteArgument,
    as_json: Annotated[bool, typer.Option("--json", help="Print the pending cases as JSON.")] = False,
) -> None:
    """List the pending cases (expected prefilled, e.g. from logs): id, prompt, expected call, flags.

    Example: fcbench cases review imported/
    """
    from rich.table import Table

    from fcbench.report.terminal import data_console, terminal_text
    from fcbench.suite.lint import pending_write_suspects
    from fcbench.suite.loader import load_suite

    loaded = load_suite(suite)
    pending = pending_cases(loaded)
    questions = pending_write_suspects(loaded)
    console = data_console()
    if as_json:
        rows = [
            {
                "id": case.id,
                "prompt": case.prompt,
                "history": len(case.history),
                "expected": expected_call_text(case),
                "flags": review_flags(case),
                "note": case.note,
            }
            for case in pending
        ]
        console.print_json(
            json.dumps(
                {"suite": loaded.info.name, "cases": len(loaded.cases), "pending": rows, "writes": questions}
            )
        )
        return
    table = Table(title=terminal_text(f"{loaded.info.name} {loaded.info.dataset_version}: pending cases"))
    for column in ("id", "prompt", "expected", "flags"):
        table.add_column(column, overflow="fold")
    for case in pending:
        prompt = case.prompt if len(case.prompt) <= 200 else case.prompt[:199] + "…"
        if case.history:
            prompt = f"{prompt} (+{len(case.history)} earlier messages)"
        cells = (case.id, prompt, expected_call_text(case), ", ".join(review_flags(case)) or "-")
        table.add_row(*(terminal_text(cell) for cell in cells))
    console.print(table)
    flagged = sum(1 for case in pending if review_flags(case))
    console.print(
        terminal_text(
            f"{len(pending)} of {len(loaded.cases)} cases pending, {flagged} flagged for review; "
            'confirm a case by setting "label": "confirmed" in its line (after checking "expected")'
        )
    )
    for question in questions:
        console.print(terminal_text(f"does it write? {question}"))


def validate_command(
    suite: SuiteArgument,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Check a suite completely; print a summary, or every problem with file:line (exit 2).

    Warns (without failing) when cases are pending review. Example: fcbench cases validate my-suite/
    """
    from rich.table import Table

    from fcbench.errors import CaseError
    from fcbench.report.terminal import data_console, terminal_text
    from fcbench.suite.lint import CATEGORIES, imported_write_suspects, minimum_shortfalls, pattern_warnings
    from fcbench.suite.loader import load_suite

    loaded = load_suite(suite)
    shortfalls = minimum_shortfalls(loaded)
    if shortfalls:
        info_file = loaded.path if loaded.path.is_file() else loaded.path / "suite.json"
        raise CaseError("; ".join(shortfalls), path=str(info_file))
    summary = summarise(loaded)
    warnings = [*imported_write_suspects(loaded), *pattern_warnings(loaded)]
    console = data_console()
    if as_json:
        count = len(pending_cases(loaded))
        console.print_json(json.dumps({**summary, "pending": count, "warnings": warnings}))
        return
    errors = data_console(stderr=True)
    for warning in warnings:
        errors.print(terminal_text(f"warning: {warning}"))
    pending = pending_cases(loaded)
    if pending:
        errors.print(
            terminal_text(
                f"warning: {len(pending)} of {len(loaded.cases)} cases are pending (expected prefilled, "
                f"not confirmed by a person); list them with: fcbench cases review {suite}"
            )
        )
    console.print(
        f"[green]ok[/]: suite [bold]{terminal_text(summary['suite'])}[/] "
        f"{terminal_text(summary['dataset_version'])}: "
        f"{summary['cases']} cases, dataset hash {summary['dataset_hash'][:16]}"
    )
    for name, tools in summary["tool_sets"].items():
        console.print(terminal_text(f"  tool set {name}: {len(tools)} tools ({', '.join(tools)})"))
    minimums = summary["minimums"]
    table = Table(title=None, show_edge=False)
    table.add_column("category")
    for kind in KINDS:
        table.add_column(kind, justify="right")
    table.add_column("total", justify="right")
    if minimums:
        table.add_column("minimum", justify="right")
    for category in CATEGORIES:
        rows = [case for case in loaded.cases if case.category == category]
        counts: Counter[str] = Counter(str(case.expected.kind) for case in rows)
        least = [str(minimums[category]) if category in minimums else "-"] if minimums else []
        table.add_row(category, *(str(counts.get(kind, 0)) for kind in KINDS), str(len(rows)), *least)
    table.add_row(
        "all",
        *(str(summary["by_kind"][kind]) for kind in KINDS),
        str(summary["cases"]),
        *([""] if minimums else []),
    )
    console.print(table)


def list_command(
    suite: Annotated[
        str, typer.Argument(help="Built-in suite name or suite folder path (default: core).")
    ] = "core",
    category: Annotated[str | None, typer.Option("--category", help="Only cases of this category.")] = None,
    tag: Annotated[str | None, typer.Option("--tag", help="Only cases carrying this tag.")] = None,
    builtin: Annotated[bool, typer.Option("--builtin", help="List the built-in suites instead.")] = False,
) -> None:
    """Print a table of a suite's cases: id, category, what is expected, and tags.

    Example: fcbench cases list refunds --category adversarial
    """
    from rich.table import Table

    from fcbench.report.terminal import data_console, terminal_text
    from fcbench.suite.loader import builtin_suites, load_suite

    console = data_console()
    if builtin:
        for name in builtin_suites():
            info = load_suite(name).info
            console.print(terminal_text(f"{name} {info.dataset_version} {info.description}"))
        return
    loaded = load_suite(suite)
    table = Table(title=terminal_text(f"{loaded.info.name} {loaded.info.dataset_version}"))
    for column in ("id", "category", "expected", "tags"):
        table.add_column(column, overflow="fold")
    shown = 0
    for case in loaded.cases:
        if category is not None and case.category != category:
            continue
        if tag is not None and tag not in case.tags:
            continue
        cells = (case.id, case.category, _expected_label(case), ", ".join(case.tags))
        table.add_row(*(terminal_text(cell) for cell in cells))
        shown += 1
    console.print(table)
    console.print(f"{shown} of {len(loaded.cases)} cases")


def register(app: typer.Typer) -> None:
    """Add the ``cases`` sub-command group (``validate``, ``list``, ``review``) to the app."""
    cases_app = typer.Typer(help="Validate and inspect case suites.", no_args_is_help=True)
    cases_app.command("validate")(validate_command)
    cases_app.command("list")(list_command)
    cases_app.command("review")(review_command)
    app.add_typer(cases_app, name="cases")
