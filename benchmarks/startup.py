"""Start-up time of the command line: ``fcbench --help`` and light verbs against ``python -c pass``.

Each command runs ``--runs`` times in a fresh interpreter, round-robin with the baseline
``python -c pass`` measured in the same run (so load from other work on the machine falls on
both alike), and the medians are printed with their ratio to the baseline, beside the CPU seconds
the command used (which load from other work inflates less than wall time). Then
``python -X importtime -m fcbench --help`` (or ``--trace ARGS``) is read: the imports with the
largest cumulative time, and the bottleneck, followed from the slowest top-level import down
through its slowest child while that child still takes half of the top-level import's time.

    python benchmarks/startup.py --runs 10
    python benchmarks/startup.py --runs 5 --trace "cases list"
"""

from __future__ import annotations

import argparse
import resource
import shlex
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field

from installed import compile_fcbench

BASELINE = ("python -c pass", [sys.executable, "-c", "pass"])
FCBENCH = [sys.executable, "-m", "fcbench"]
COMMANDS: list[tuple[str, list[str]]] = [
    ("import fcbench.cli.app", [sys.executable, "-c", "import fcbench.cli.app"]),
    ("fcbench --help", [*FCBENCH, "--help"]),
    ("fcbench run --help", [*FCBENCH, "run", "--help"]),
    ("fcbench targets", [*FCBENCH, "targets"]),
    ("fcbench local list", [*FCBENCH, "local", "list"]),
    ("fcbench cases list", [*FCBENCH, "cases", "list"]),
]
"""Trivial invocations and verbs whose work is light: what is left is start-up."""


@dataclass
class Import:
    """One line of ``-X importtime``: a module, its own and its cumulative time (µs), its imports."""

    name: str
    self_us: int
    cumulative_us: int
    children: list[Import] = field(default_factory=list)


def parse_importtime(stderr: str) -> list[Import]:
    """The top-level imports of an ``-X importtime`` trace, each with its tree of children.

    Lines come children first, indented two spaces per level below the module importing them."""
    pending: dict[int, list[Import]] = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        own, cumulative, label = line.removeprefix("import time:").split("|", 2)
        if not own.strip().isdigit():  # the header line
            continue
        depth = (len(label) - len(label.lstrip(" ")) - 1) // 2
        node = Import(label.strip(), int(own), int(cumulative), pending.pop(depth + 1, []))
        pending.setdefault(depth, []).append(node)
    return pending.get(0, [])


def flatten(nodes: list[Import]) -> list[Import]:
    """Every import of the trees, parents before children."""
    found: list[Import] = []
    for node in nodes:
        found.append(node)
        found.extend(flatten(node.children))
    return found


def bottleneck(roots: list[Import], share: float = 0.5) -> list[Import]:
    """The slowest top-level import, then its slowest child, and so on while that child still takes
    at least ``share`` of the top-level import's cumulative time: the last one is the bottleneck."""
    if not roots:
        return []
    chain = [max(roots, key=lambda node: node.cumulative_us)]
    while chain[-1].children:
        child = max(chain[-1].children, key=lambda node: node.cumulative_us)
        if child.cumulative_us < share * chain[0].cumulative_us:
            break
        chain.append(child)
    return chain


def time_once(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``argv`` (output discarded; a failure stops the benchmark)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    """Time the commands against the baseline, then print the import profile of ``--trace``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="Runs of each command (median reported).")
    parser.add_argument("--top", type=int, default=15, help="Imports listed by cumulative time.")
    parser.add_argument("--trace", default="--help", help="fcbench arguments whose imports are listed.")
    args = parser.parse_args()
    commands = [BASELINE, *COMMANDS]
    compile_fcbench()  # the bytecode cache is written even where PYTHONDONTWRITEBYTECODE is set
    for _, argv in commands:  # warm the file cache once
        time_once(argv)
    times: dict[str, list[float]] = {label: [] for label, _ in commands}
    cpu: dict[str, list[float]] = {label: [] for label, _ in commands}
    for _ in range(args.runs):
        for label, argv in commands:
            wall, used = time_once(argv)
            times[label].append(wall)
            cpu[label].append(used)
    base = statistics.median(times[BASELINE[0]])
    print(
        f"{'command':<24} {'median':>9} {'min':>9} {'ratio':>7} {'CPU median':>11}"
        f"   ({args.runs} runs each, interleaved)"
    )
    for label, _ in commands:
        median = statistics.median(times[label])
        print(
            f"{label:<24} {median * 1000:7.0f} ms {min(times[label]) * 1000:6.0f} ms {median / base:6.1f}x"
            f" {statistics.median(cpu[label]) * 1000:8.0f} ms"
        )

    trace = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "fcbench", *shlex.split(args.trace)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ).stderr
    roots = parse_importtime(trace)
    everything = flatten(roots)
    total = sum(node.cumulative_us for node in roots)
    print(
        f"\nfcbench {args.trace} imports {len(everything)} modules, {total / 1000:.0f} ms in all "
        "(-X importtime);"
    )
    print(f"largest cumulative times (top {args.top}):")
    for node in sorted(everything, key=lambda node: node.cumulative_us, reverse=True)[: args.top]:
        print(f"  {node.cumulative_us / 1000:7.1f} ms  (self {node.self_us / 1000:5.1f})  {node.name}")
    chain = bottleneck(roots)
    if chain:
        print(
            f"bottleneck: {chain[-1].name} ({chain[-1].cumulative_us / 1000:.0f} ms), "
            f"via {' -> '.join(node.name for node in chain)}"
        )


if __name__ == "__main__":
    main()
