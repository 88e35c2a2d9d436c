"""``fcbench run``: run a suite against targets, repeatedly, and keep every observation."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from fcbench.cli.helptext import RegistryHelpCommand
from fcbench.cli.output import command_line
from fcbench.errors import ConfigError, FcbenchError

if TYPE_CHECKING:
    from rich.console import Console

    from fcbench.config import RunConfig
    from fcbench.run import PlanEstimate, RunResult, RunSpec


def run_command(
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="YAML or JSON run configuration.")
    ] = None,
    suite: Annotated[
        str | None, typer.Option(help="Built-in suite name, suite folder or one-file suite (.yaml/.json).")
    ] = None,
    tools_from_mcp: Annotated[
        list[str] | None,
        typer.Option(
            "--tools-from-mcp",
            help="'[SET=]COMMAND ARGS': start this MCP server over stdio and use its tools as tool set "
            "core (or SET) (repeatable).",
        ),
    ] = None,
    target: Annotated[
        list[str] | None, typer.Option("--target", "-t", help="ENDPOINT:MODEL (repeatable).")
    ] = None,
    tool_faults: Annotated[
        list[str] | None,
        typer.Option(
            "--tool-fault",
            help="In recovery mode (repeatable): duplicate_delivery (every tool call delivered twice "
            "to the fake tools), reorder_results (a turn's results sent back in reverse order, ids "
            "kept), lost_result (a write commits, the model is answered with a timeout).",
        ),
    ] = None,
    tool_order: Annotated[
        str | None,
        typer.Option(
            "--tool-order",
            help="reverse | shuffle:K: offer each case's tools in the suite's order and reversed, or "
            "in K seeded permutations (the same for the same --seed); reports selection consistency "
            "across orders and position bias.",
        ),
    ] = None,
    repeats: Annotated[int | None, typer.Option(help="Repeats per case.")] = None,
    concurrency: Annotated[int | None, typer.Option(help="Requests in flight across the run.")] = None,
    workers: Annotated[
        str | None,
        typer.Option(
            help="Processes that share the run: a number, or 'auto' for the cores available (default 1); "
            "bounded by the plan and --concurrency, which they share. Records and metrics are those of "
            "one process.",
        ),
    ] = None,
    category: Annotated[
        list[str] | None, typer.Option(help="Only cases of this category (repeatable).")
    ] = None,
    tag: Annotated[list[str] | None, typer.Option(help="Only cases with this tag (repeatable).")] = None,
    case: Annotated[list[str] | None, typer.Option("--case", help="Only this case id (repeatable).")] = None,
    mode: Annotated[list[str] | None, typer.Option(help="{modes} (repeatable).")] = None,
    continuation: Annotated[
        str | None,
        typer.Option(
            help="Recovery mode: stateless (replay the whole conversation, the default) or stateful "
            "(continue by the provider's stored id where the dialect can)."
        ),
    ] = None,
    out: Annotated[Path, typer.Option(help="Folder that receives runs/<run_id>/.")] = Path("runs"),
    seed: Annotated[int | None, typer.Option(help="Seed passed to providers that accept one.")] = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            help="Continue a stopped run directory. Its plan is read as data; endpoints, headers and "
            "MCP tools come only from your own --config and flags (or the built-ins)."
        ),
    ] = None,
    shard: Annotated[str | None, typer.Option(help="Run only slice I/N of the plan.")] = None,
    cache: Annotated[
        Path | None,
        typer.Option(
            help="Reuse the answers kept in this folder for identical requests (same redacted request, "
            "target and repeat) and keep new ones there; cached observations are counted but left "
            "out of stability, latency and cost. Off by default."
        ),
    ] = None,
    mock_latency_ms: Annotated[int, typer.Option(help="Latency of the embedded mock provider.")] = 0,
    mock_faults: Annotated[
        str | None, typer.Option(help="Fault spec for the embedded mock provider.")
    ] = None,
    progress: Annotated[
        bool, typer.Option(help="Show progress (a bar on a terminal, lines otherwise).")
    ] = True,
    exclude_tag: Annotated[
        list[str] | None, typer.Option(help="Leave out cases with this tag (repeatable).")
    ] = None,
    exclude_case: Annotated[
        list[str] | None,
        typer.Option(
            help="Leave out this case id or the ids matching this glob, e.g. 'select-*' (repeatable)."
        ),
    ] = None,
    sample: Annotated[
        int | None,
        typer.Option(
            help="Run a sample of N cases in total, in proportion per category, drawn only from the "
            "cases the chosen modes observe (the same for the same --seed)."
        ),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(
            help="ENDPOINT:MODEL: an optional judge that rates each text reply the rules decided "
            "(clarifications, abstentions) with a fixed rubric, recorded beside the verdict, never "
            "changing it; its agreement is reported."
        ),
    ] = None,
    include_pending: Annotated[
        bool,
        typer.Option(
            "--include-pending",
            help="Run and score pending cases too (expected prefilled from logs, not confirmed by a "
            "person); by default they are left out and counted as 'pending, not scored'.",
        ),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option(help="Print the plan, request count and cost estimate; send nothing.")
    ] = False,
    min_coverage: Annotated[
        float | None,
        typer.Option(help="Exit 1 when scorable/planned of a target is below this (0 disables)."),
    ] = None,
    min_pass_rate: Annotated[
        float | None, typer.Option(help="Exit 1 when a target's pass rate is below this (0..1).")
    ] = None,
    min_category_pass_rate: Annotated[
        list[str] | None,
        typer.Option(help="CATEGORY=RATE: exit 1 when that category's pass rate is below RATE (repeatable)."),
    ] = None,
    min_tag_pass_rate: Annotated[
        list[str] | None,
        typer.Option(help="TAG=RATE: exit 1 when that tag's pass rate is below RATE (repeatable)."),
    ] = None,
    fail_fast: Annotated[
        int | None,
        typer.Option(
            help="Stop a target after N consecutive identical auth/not_found/schema_rejected errors."
        ),
    ] = None,
    max_unsafe_writes: Annotated[
        int | None,
        typer.Option(
            help="Exit 1 when a target makes more than N calls of write tools its cases did not expect "
            "(default 0: any unsafe write fails the run, whatever its pass rate)."
        ),
    ] = None,
) -> None:
    """Run a suite against targets (default: the built-in suite on the simulated models, no keys).

    Exits 1 when the run fails its gate: coverage below --min-coverage (default 0.9), a pass-rate
    threshold missed, an unsafe write call beyond --max-unsafe-writes (default 0), a target stopped
    by --fail-fast, a mode that planned nothing, or nothing scored at all. Flags override the
    config's gate: block key by key.

    Examples: fcbench run; fcbench run -t openai:gpt-4o-2024-08-06 --min-category-pass-rate normal=0.9;
    fcbench run --dry-run --sample 20
    """

    from fcbench.cli.common import check_input_paths, interruptible, managed_services, progress_sink
    from fcbench.config import CommandLine, GateFlags, load_config
    from fcbench.report.gate import check_gate_names
    from fcbench.report.terminal import data_console, terminal_text
    from fcbench.run import estimate, execute, prepare, resume_base
    from fcbench.run.plan import Shard
    from fcbench.suite.lint import imported_write_suspects
    from fcbench.transport.event_loop import run_async

    flags = CommandLine(
        suite=suite,
        tools_from_mcp=tools_from_mcp,
        tool_faults=tool_faults,
        tool_order=tool_order,
        continuation=continuation,
        targets=target,
        repeats=repeats,
        concurrency=concurrency,
        workers=worker_option(workers),
        categories=category,
        tags=tag,
        cases=case,
        modes=mode,
        seed=seed,
        exclude_tags=exclude_tag,
        exclude_cases=exclude_case,
        sample=sample,
        judge=judge,
        include_pending=include_pending or None,
        gate=GateFlags(
            min_coverage=min_coverage,
            min_pass_rate=min_pass_rate,
            min_pass_rate_by_category=rate_pairs(min_category_pass_rate, "--min-category-pass-rate"),
            min_pass_rate_by_tag=rate_pairs(min_tag_pass_rate, "--min-tag-pass-rate"),
            fail_fast=fail_fast,
            max_unsafe_writes=max_unsafe_writes,
        ),
    )
    # A resume without --config takes the plan of the directory's config.json, never its endpoints,
    # headers or MCP commands (see fcbench.run.pins); with --config, the user's file is the config.
    stored = resume_base(resume) if resume is not None and config is None else None
    cfg = load_config(config, flags, base=stored.data if stored else None)
    check_mode_options(cfg)
    check_input_paths(cfg.suite)
    shard_spec = Shard.parse(shard) if shard else None
    left_out = stored.left_out if stored else []
    if dry_run:
        plan = prepare(
            cfg,
            out_root=out,
            resume_dir=resume,
            shard=shard_spec,
            check_keys=False,
            left_out=left_out,
            cache_dir=cache,
        )
        check_gate_names(cfg.gate, *suite_names(plan))
        print_estimate(data_console(), estimate(plan))
        return
    spec = prepare(cfg, out_root=out, resume_dir=resume, shard=shard_spec, left_out=left_out, cache_dir=cache)
    check_gate_names(cfg.gate, *suite_names(spec))
    console = data_console(stderr=True)
    for warning in imported_write_suspects(spec.suite):
        console.print(terminal_text(f"warning: {warning}"))
    sink = progress_sink(console) if progress else None
    with (
        interruptible() as interruption,
        managed_services(
            [*spec.targets, *([spec.judge] if spec.judge else [])],
            mock_latency_ms=mock_latency_ms,
            mock_faults=mock_faults,
            console=console,
        ) as services,
    ):
        try:
            result: RunResult = run_async(execute(spec, services=services, progress=sink))
        except KeyboardInterrupt:
            console.print(
                terminal_text(
                    f"stopped: {recorded_count(spec.run_dir)} of {spec_planned(spec)} recorded "
                    f"(interrupted by {interruption.signal_name}: every finished observation is kept); "
                    f"resume with: {command_line('run', '--resume', str(spec.run_dir))}"
                )
            )
            raise typer.Exit(interruption.exit_code) from None
    summarise_and_gate(result, cfg)


def summarise_and_gate(result: RunResult, cfg: RunConfig) -> None:
    """Print the run's summary and what it recorded; exit 1 naming each failure of its gate."""
    from fcbench.report.gate import check_gate, run_unsafe_writes
    from fcbench.report.terminal import data_console, print_summary, terminal_text

    out_console = data_console()
    metrics = print_summary(out_console, result.run_dir)
    out_console.print(
        f"run {result.manifest.run_id}: {result.recorded} recorded now, {result.skipped} already recorded, "
        f"{result.planned} planned, {result.retries} retries -> {result.run_dir}",
        highlight=False,
        soft_wrap=True,
    )
    pending = result.manifest.filters.get("pending_not_scored")
    if isinstance(pending, int) and pending:
        out_console.print(
            f"pending, not scored: {pending} "
            "(cases not confirmed by a person; --include-pending scores them)",
            highlight=False,
        )
    failures = check_gate(metrics, cfg.gate, result.stopped, run_unsafe_writes(result.run_dir))
    for failure in failures:
        out_console.print(terminal_text(f"gate failed: {failure}"))
    if failures and result.stopped:
        out_console.print(
            terminal_text(f"resume with: {command_line('run', '--resume', str(result.run_dir))}"),
            highlight=False,
        )
    for line in next_steps(result.run_dir):
        out_console.print(terminal_text(line), highlight=False, soft_wrap=True)
    if failures:
        raise typer.Exit(1)


def next_steps(run_dir: Path) -> list[str]:
    """What to do with a finished run: its HTML report and the viewer, spelt as fcbench was invoked."""
    html = run_dir / "report.html"
    return [
        f"next: {command_line('report', str(run_dir), '--format', 'html', '--output', str(html))}",
        f"      {command_line('view', str(run_dir))}",
    ]


def recorded_count(run_dir: Path) -> int:
    """Observations on disk in ``run_dir`` (complete lines of ``records.jsonl``)."""
    from fcbench.store.records import RECORDS_FILE

    path = run_dir / RECORDS_FILE
    if not path.is_file():
        return 0
    with path.open("rb") as lines:
        return sum(1 for line in lines if line.endswith(b"\n"))


def spec_planned(spec: RunSpec) -> int:
    """Observations the run plans (of this shard), as its manifest says."""
    from fcbench.store.records import read_manifest

    try:
        return read_manifest(spec.run_dir).planned
    except FcbenchError:
        return 0


def check_mode_options(cfg: RunConfig) -> None:
    """:class:`ConfigError` for an option that only a multi-turn mode uses when the run has none
    (``--tool-fault``, ``--continuation stateful``), naming the run's modes."""
    from fcbench.contract import MODES

    multi = [name for name, mode in MODES.items() if mode.multi_turn]
    if any(m in multi for m in cfg.modes):
        return
    given = {"--tool-fault (tool_faults)": bool(cfg.tool_faults)}
    given["--continuation stateful (continuation)"] = cfg.continuation == "stateful"
    for option, used in given.items():
        if used:
            raise ConfigError(
                f"applies only to a multi-turn mode ({', '.join(multi)}); this run's mode is "
                f"{', '.join(cfg.modes)}: add --mode {multi[0]} or drop the option",
                key=option,
            )


def suite_names(spec: RunSpec) -> tuple[set[str], set[str]]:
    """The categories and the tags of the suite's cases (what gate thresholds may name)."""
    from fcbench.suite.caselist import heads_of  # heads: no case of a cached suite is built

    cases = heads_of(spec.suite.cases)
    return {c.category for c in cases}, {tag for c in cases for tag in c.tags}


def worker_option(text: str | None) -> int | Literal["auto"] | None:
    """``--workers``: ``auto`` or a whole number from 1; anything else is a config error naming the flag."""
    if text is None or text == "auto":
        return "auto" if text else None
    if not text.isdigit() or int(text) < 1:
        raise ConfigError(f"{text!r} is neither 'auto' nor a whole number from 1", key="--workers")
    return int(text)


def rate_pairs(pairs: list[str] | None, flag: str) -> dict[str, float] | None:
    """``["normal=0.9", ...]`` -> ``{"normal": 0.9}``; a malformed pair is a config error naming ``flag``."""
    if not pairs:
        return None
    parsed: dict[str, float] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        try:
            rate = float(value) if sep and key.strip() else None
        except ValueError:
            rate = None
        if rate is None:
            raise ConfigError(f"{pair!r} is not of the form NAME=RATE (RATE between 0 and 1)", key=flag)
        parsed[key.strip()] = rate
    return parsed


def print_estimate(console: Console, plan: PlanEstimate) -> None:
    """The dry run's report: observations per target and mode, requests, tokens and cost."""
    for label, by_mode in plan.planned_by.items():
        modes = ", ".join(f"{mode} {count}" for mode, count in by_mode.items())
        console.print(
            f"{label}: {sum(by_mode.values())} observations ({modes})", highlight=False, markup=False
        )
    total = sum(sum(m.values()) for m in plan.planned_by.values())
    requests = (
        f"{plan.requests_min}"
        if plan.requests_min == plan.requests_max
        else f"{plan.requests_min}-{plan.requests_max}"
    )
    console.print(
        f"plan: {total} observations of {plan.cases} cases, {requests} requests, "
        f"about {plan.input_tokens} input tokens",
        highlight=False,
    )
    if plan.cost_usd is None:
        console.print(f"cost: unknown (no price for {', '.join(plan.unpriced)})", highlight=False)
    else:
        console.print(
            f"cost: at most ${plan.cost_usd:.4f} (every request using max_tokens of output)", highlight=False
        )
    console.print("dry run: nothing was sent", highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``run`` to the app."""
    app.command("run", cls=RegistryHelpCommand)(run_command)
