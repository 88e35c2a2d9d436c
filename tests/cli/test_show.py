"""``fcbench show RUN`` on real runs of the mock: what it prints agrees with the records."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pty_run import run_in_pty

from fcbench.store.blobs import expand_blobs, load_blobs
from fcbench.store.records import RECORDS_FILE, iter_record_dicts

CASES = ("adv-contradict-02", "types-01", "abstain-01", "clarify-01", "multi-mixed-01", "multi-lookup-01")
HEADER = re.compile(r"^(PASSED|FAILED|NOT SCORED)  (\S+)  (\S+)$")


def real_run(out: Path, *args: str) -> Path:
    cmd = [sys.executable, "-m", "fcbench", "run", "--no-progress", "--repeats", "1", "--out", str(out)]
    proc = subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (run_dir,) = list(out.iterdir())
    return run_dir


@pytest.fixture(scope="module")
def selection_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return real_run(tmp_path_factory.mktemp("show") / "runs", *(a for c in CASES for a in ("--case", c)))


@pytest.fixture(scope="module")
def recovery_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("show-recovery") / "runs"
    # sim-eager's unasked refund fails the run's gate (exit 1); what show shows is this test's question
    case = ("--case", "rec-cancel-paid-01", "--max-unsafe-writes", "99")
    return real_run(out, "--suite", "refunds", "--mode", "recovery", *case)


def records(run_dir: Path) -> list[dict[str, Any]]:
    return list(iter_record_dicts(run_dir / RECORDS_FILE))


def show(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fcbench", "show", *args], capture_output=True, text=True, timeout=120, env=env
    )


def label(record: dict[str, Any]) -> str:
    return f"{record['target']['endpoint']}:{record['target']['model']}"


def headers(text: str) -> list[tuple[str, str, str]]:
    found = [HEADER.match(line) for line in text.splitlines()]
    return [(m[1], m[2], m[3]) for m in found if m]


def expected_marks(record: dict[str, Any]) -> dict[str, str]:
    """Each argument's mark as the grader decided it (one call, no prefix)."""
    verdict = record["verdict"]
    marks = {key: "ok" for key in record["outcome"]["calls"][0]["arguments"]}
    marks.update({w["key"]: "tolerated" if w.get("note") else "wrong" for w in verdict["wrong"]})
    marks.update({key: "missing" for key in verdict["missing"]})
    marks.update({key: "unexpected" for key in verdict["unexpected"]})
    return marks


def wide_rows(text: str) -> dict[str, list[str]]:
    """The side-by-side table's rows: argument -> [expected, actual, verdict]."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("│").split("│")]
        if line.startswith("│") and len(cells) == 4 and cells[0]:
            rows[cells[0]] = cells[1:]
    return rows


def stacked_rows(text: str) -> dict[str, tuple[str, str, str]]:
    """The stacked layout's rows: argument -> (verdict, expected, actual)."""
    lines = text.splitlines()
    rows = {}
    for first, second in zip(lines, lines[1:], strict=False):
        top = re.match(r"^(\S+)\s+(\S+)\s+expected (.*)$", first)
        bottom = re.match(r"^\s+actual\s+(.*)$", second)
        if top and bottom:
            rows[top[1]] = (top[2], top[3].strip(), bottom[1].strip())
    return rows


def graded_failure(run_dir: Path) -> dict[str, Any]:
    """A single-call failure with wrong and unexpected arguments."""
    return next(
        r
        for r in records(run_dir)
        if r["case"]["expected_kind"] == "tool" and r["verdict"]["wrong"] and r["verdict"]["unexpected"]
    )


def test_side_by_side_marks_are_the_verdicts(selection_run: Path) -> None:
    record = graded_failure(selection_run)
    proc = show(str(selection_run), "--case", record["case_id"], "-t", label(record), "--width", "120")
    assert proc.returncode == 0, proc.stderr
    assert headers(proc.stdout) == [("FAILED", record["case_id"], record["verdict"]["decision"])]
    rows = wide_rows(proc.stdout)
    call = record["outcome"]["calls"][0]
    assert rows["tool"] == [call["name"], call["name"], "ok"]
    for key, mark in expected_marks(record).items():
        assert rows[key][2] == mark, (key, rows)
        assert rows[key][1] == json.dumps(call["arguments"][key], ensure_ascii=False)
    for wrong in record["verdict"]["wrong"]:
        assert rows[wrong["key"]][0] == json.dumps(wrong["expected"], ensure_ascii=False)
    assert f"prompt: {record['case']['prompt']}" in proc.stdout
    for reason in record["verdict"]["reasons"]:
        assert reason[:60] in " ".join(proc.stdout.split())


def test_a_narrow_width_stacks_expected_over_actual_within_80_columns(selection_run: Path) -> None:
    record = graded_failure(selection_run)
    proc = show(str(selection_run), "--case", record["case_id"], "-t", label(record), "--width", "80")
    assert proc.returncode == 0, proc.stderr
    assert all(len(line) <= 80 for line in proc.stdout.splitlines())
    assert "┃" not in proc.stdout and "│" not in proc.stdout
    rows = stacked_rows(proc.stdout)
    call = record["outcome"]["calls"][0]
    for key, mark in expected_marks(record).items():
        assert rows[key][0] == mark and rows[key][2] == json.dumps(call["arguments"][key])


def test_at_a_real_terminal_the_layout_follows_its_width(selection_run: Path, tmp_path: Path) -> None:
    record = graded_failure(selection_run)
    args = ["show", str(selection_run), "--case", record["case_id"], "-t", label(record)]
    narrow = run_in_pty(args, cwd=tmp_path, columns=80)
    wide = run_in_pty(args, cwd=tmp_path, columns=140)
    assert narrow.returncode == wide.returncode == 0, narrow.screen + wide.screen
    assert all(len(line.rstrip()) <= 80 for line in narrow.screen.splitlines()), narrow.screen
    assert "┃ " not in narrow.screen and "┃ " in wide.screen


def test_several_calls_compare_each_expected_call_with_its_own(selection_run: Path) -> None:
    record = next(
        r for r in records(selection_run) if r["case_id"] == "multi-mixed-01" and r["verdict"]["wrong"]
    )
    proc = show(str(selection_run), "--case", "multi-mixed-01", "-t", label(record), "--width", "120")
    assert proc.returncode == 0, proc.stderr
    assert "call 1" in proc.stdout and "call 2" in proc.stdout
    rows = wide_rows(proc.stdout)
    for wrong in record["verdict"]["wrong"]:
        key = wrong["key"].split(".", 1)[1]
        assert rows[key] == [json.dumps(wrong["expected"]), json.dumps(wrong["actual"]), "wrong"]


def test_filters_limit_and_the_count_of_matching(selection_run: Path) -> None:
    all_records = records(selection_run)
    failed = [r for r in all_records if not r["verdict"]["passed"]]
    assert len(failed) > 2
    proc = show(str(selection_run), "--failed", "--limit", "2")
    assert proc.returncode == 0, proc.stderr
    shown = headers(proc.stdout)
    assert len(shown) == 2 and {s[0] for s in shown} <= {"FAILED", "NOT SCORED"}
    assert [s[1] for s in shown] == [r["case_id"] for r in failed[:2]]
    assert f"showing 2 of {len(failed)} matching; --limit to see more" in proc.stdout
    target = label(all_records[0])
    proc = show(str(selection_run), "--target", target, "--mode", "selection", "--limit", "100")
    mine = [r for r in all_records if label(r) == target]
    assert len(headers(proc.stdout)) == len(mine) and f"showing all {len(mine)} matching" in proc.stdout
    assert proc.stdout.count(f"target {target} ") == len(mine)


def test_raw_bodies_are_the_blob_stores(selection_run: Path) -> None:
    record = records(selection_run)[0]
    proc = show(
        str(selection_run), "--case", record["case_id"], "-t", label(record), "--raw", "--width", "100000"
    )
    assert proc.returncode == 0, proc.stderr
    raw = expand_blobs(record["raw"], load_blobs(selection_run))
    text = proc.stdout.split("raw request\n", 1)[1]
    request, rest = text.split("\nraw response\n", 1)
    response = rest.rsplit("\nshowing all", 1)[0]
    assert json.loads(request) == raw["request"] and json.loads(response) == raw["response"]
    assert "[REDACTED]" in request


def test_a_recovery_record_reads_as_a_conversation(recovery_run: Path) -> None:
    record = next(r for r in records(recovery_run) if len(r["turns"]) > 1)
    proc = show(str(recovery_run), "-t", label(record), "--width", "100")
    assert proc.returncode == 0, proc.stderr
    flat = " ".join(proc.stdout.split())
    assert "conversation" in proc.stdout
    for turn in record["turns"]:
        assert f"turn {turn['turn']}" in proc.stdout
        for call in turn["outcome"].get("calls") or []:
            assert f"model calls {call['name']}(" in flat
        for result in turn["results"]:
            error = f" [error {result['error_code']}]" if result["is_error"] else ""
            assert f"result of {result['name']}{error}:" in flat
    assert f"recovery: {record['verdict']['recovery']['outcome']}" in flat


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--case", "no-such-case"], "no case 'no-such-case' in this run; cases: abstain-01, "),
        (["--target", "nowhere:model"], "no target 'nowhere:model' in this run; targets: "),
        (["--mode", "stream"], "no mode 'stream' in this run; modes: selection"),
    ],
)
def test_unknown_names_exit_2_listing_the_known_ones(
    selection_run: Path, args: list[str], message: str
) -> None:
    proc = show(str(selection_run), *args)
    assert proc.returncode == 2
    assert message in " ".join(proc.stderr.split()) and "Traceback" not in proc.stderr
    if "--target" in args:
        assert all(label(r) in proc.stderr for r in records(selection_run))


def test_a_missing_run_directory_exits_2(tmp_path: Path) -> None:
    proc = show(str(tmp_path / "nothing"))
    assert proc.returncode == 2 and "not a run directory" in proc.stderr


SGR = re.compile(r"\x1b\[([0-9;]*)m")


def colour_codes(text: str) -> list[str]:
    """SGR parameters that set a colour (30-38, 40-48, 90-97, 100-107)."""
    params = [p for m in SGR.finditer(text) for p in m[1].split(";") if p]
    return [p for p in params if p.isdigit() and (30 <= int(p) <= 48 or 90 <= int(p) <= 107)]


def test_no_color_is_honoured(selection_run: Path) -> None:
    env = {"PATH": "", "FORCE_COLOR": "1"}
    coloured = show(str(selection_run), "--failed", "--limit", "1", env=env)
    plain = show(str(selection_run), "--failed", "--limit", "1", env={**env, "NO_COLOR": "1"})
    assert coloured.returncode == plain.returncode == 0, coloured.stderr + plain.stderr
    assert colour_codes(coloured.stdout)
    assert not colour_codes(plain.stdout) and "FAILED" in plain.stdout


def test_hostile_suite_text_cannot_drive_the_terminal(core_copy, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    evil = "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07 \x1b[2J[bold]x[/bold] :smile:"
    core_copy.edit_case("types-01", lambda case: case.update(prompt=case["prompt"] + evil))
    run_dir = real_run(tmp_path / "runs", "--suite", str(core_copy.path), "--case", "types-01")
    proc = show(str(run_dir), "--raw", env={"PATH": "", "FORCE_COLOR": "1"})
    assert proc.returncode == 0, proc.stderr
    printed = SGR.sub("", proc.stdout)
    assert "\x1b" not in printed and "\x07" not in printed
    assert "click]8;; [2J[bold]x[/bold] :smile:" in printed and "😄" not in printed
