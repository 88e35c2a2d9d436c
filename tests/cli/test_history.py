"""``fcbench history``: a named target across a model change, and the catalogue its runs build.

Real runs: ``fcbench run`` on the embedded mock with a config whose target is named ``prod-model``
and served by sim-careful twice, then by sim-sloppy; the CLI is driven in subprocesses.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_run import fcbench
from pty_run import run_in_pty

CASES = ("types-01", "args-limit-01", "select-lookup-01", "abstain-01")
NAME = "prod-model"


def run_as_prod(root: Path, model: str) -> Path:
    """One small run of ``sim:MODEL`` named prod-model; returns its run directory."""
    config = root / f"{model}.yaml"
    config.write_text(f"targets:\n  - name: {NAME}\n    target: sim:{model}\nrepeats: 1\n", encoding="utf-8")
    before = set((root / "runs").glob("*")) if (root / "runs").exists() else set()
    args = ["run", "-c", str(config), "--out", "runs", "--no-progress", "--min-coverage", "0"]
    made = fcbench(*args, *(a for case in CASES for a in ("--case", case)), cwd=root)
    assert made.returncode in (0, 1), made.stdout + made.stderr
    (run_dir,) = set((root / "runs").glob("*")) - before
    return run_dir


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    root = tmp_path_factory.mktemp("history")
    return root, [run_as_prod(root, m) for m in ("sim-careful", "sim-careful", "sim-sloppy")]


def copy_of(made: tuple[Path, list[Path]], into: Path) -> tuple[Path, list[Path]]:
    """The made runs copied under ``into`` (a test that adds runs or a catalogue changes its copy)."""
    root, runs = made
    shutil.copytree(root / "runs", into / "runs")
    return into, [into / "runs" / r.name for r in runs]


def test_history_shows_the_model_change_and_the_drop(three_runs: tuple[Path, list[Path]]) -> None:
    root, runs = three_runs
    shown = fcbench("history", "runs", "-f", "json", cwd=root)
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    (series,) = data["series"]
    assert (series["name"], series["mode"]) == (NAME, "selection")
    points = series["points"]
    assert [p["run_id"] for p in points] == [r.name for r in runs]
    assert [p["model"] for p in points] == ["sim-careful", "sim-careful", "sim-sloppy"]
    assert [p["model_changed_from"] for p in points] == [None, None, "sim-careful"]
    careful, same, sloppy = points
    assert careful["pass_rate"]["n"] == careful["pass_rate"]["d"] == len(CASES)
    assert careful["pass_rate"]["low"] < 1 and same["change"] == 0
    assert sloppy["change"] < 0 and sloppy["pass_rate"]["n"] < len(CASES)
    assert sloppy["failures"]["bad_arguments"]["d"] == len(CASES)
    assert sloppy["coverage_loss"] == {
        "n": 0,
        "d": len(CASES),
        "rate": 0.0,
        "low": 0.0,
        "high": pytest.approx(0.49, abs=0.01),
    }

    text = fcbench("history", "runs", "--target", NAME, cwd=root)
    assert text.returncode == 0, text.stderr
    assert f"{runs[2].name}: model changed: sim-careful -> sim-sloppy; pass rate drop -" in text.stdout
    assert "failures: bad_arguments" in text.stdout


def test_the_catalogue_names_what_the_second_model_brought_and_keeps_annotations(
    three_runs: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    root, runs = copy_of(three_runs, tmp_path)
    updated = fcbench("history", "runs", "--update-catalogue", cwd=root)
    assert updated.returncode == 0, updated.stderr
    assert "3 run(s) read" in updated.stderr
    path = root / "runs" / "catalogue.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert not [p for p in data["patterns"] if p["model"] == "sim-careful"]
    (weights,) = [
        p
        for p in data["patterns"]
        if p["model"] == "sim-sloppy"
        and p["fields"] == {"tool": "get_shipping_quote", "key": "weight_grams", "shape": "number_as_string"}
    ]
    assert weights["first_run"] == runs[2].name and weights["targets"] == [NAME]
    assert weights["examples"][0]["case_id"] == "types-01"
    assert f"{weights['id']}  x1 in 1 run  writes numbers as strings in `weight_grams`" in updated.stdout

    weights.update(title="Weights sent as strings", note="sloppy quotes numbers")
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    fourth = run_as_prod(root, "sim-sloppy")
    again = fcbench("history", "runs", "--update-catalogue", cwd=root)
    assert again.returncode == 0, again.stderr
    assert "1 run(s) read, 3 unchanged" in again.stderr
    kept = next(
        p for p in json.loads(path.read_text(encoding="utf-8"))["patterns"] if p["id"] == weights["id"]
    )
    assert (kept["title"], kept["note"]) == ("Weights sent as strings", "sloppy quotes numbers")
    assert kept["count"] == 2 and kept["runs"] == {runs[2].name: 1, fourth.name: 1}
    assert kept["last_run"] == fourth.name
    assert f"{weights['id']}  x2 in 2 runs  Weights sent as strings" in again.stdout

    report = fcbench("report", str(fourth), cwd=root)
    assert report.returncode == 0, report.stderr
    section = report.stdout.split("## Known failure patterns", 1)[1]
    assert f"| sim:sim-sloppy | `{weights['id']}` | Weights sent as strings | 1 |" in section
    careful = fcbench("report", str(runs[0]), cwd=root)
    assert "No catalogue pattern in this run." in careful.stdout.split("## Known failure patterns", 1)[1]


def test_the_terminal_output_fits_80_columns(three_runs: tuple[Path, list[Path]], tmp_path: Path) -> None:
    root, _ = copy_of(three_runs, tmp_path)
    assert fcbench("history", "runs", "--update-catalogue", cwd=root).returncode == 0
    shown = run_in_pty(["history", "runs"], cwd=root, columns=80)
    assert shown.returncode == 0, shown.screen
    assert "model changed: sim-careful -> sim-sloppy" in " ".join(shown.screen.split())
    assert "sim-sloppy:" in shown.screen and "patterns" in shown.screen
    assert all(len(line.rstrip()) <= 80 for line in shown.screen.splitlines()), shown.screen


def test_no_runs_or_an_unknown_name_exit_2(tmp_path: Path, three_runs: tuple[Path, list[Path]]) -> None:
    empty = fcbench("history", ".", cwd=tmp_path)
    assert empty.returncode == 2 and "no runs here" in empty.stderr
    root, _ = three_runs
    unknown = fcbench("history", "runs", "--target", "nope", cwd=root)
    assert unknown.returncode == 2 and "no target named 'nope'" in unknown.stderr


HOSTILE_MODEL = "sim-sloppy\x1b[2Ja:b:m"
HOSTILE_NAME = "prod\x1b]8;;https://evil.example\x07-model"


def _rename_everywhere(runs: list[Path], old: str, new: str) -> None:
    """``old`` -> ``new`` in every run's manifest and records (as JSON text, so control characters
    are written escaped, as a run directory from elsewhere could hold them)."""
    quoted_old, quoted_new = json.dumps(old)[1:-1], json.dumps(new)[1:-1]
    for run in runs:
        for name in ("manifest.json", "records.jsonl"):
            path = run / name
            path.write_text(
                path.read_text(encoding="utf-8").replace(quoted_old, quoted_new), encoding="utf-8"
            )


def test_model_ids_target_names_and_titles_print_without_control_characters(
    three_runs: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    root, runs = copy_of(three_runs, tmp_path)
    _rename_everywhere(runs, "sim-sloppy", HOSTILE_MODEL)
    _rename_everywhere(runs, NAME, HOSTILE_NAME)
    assert fcbench("history", "runs", "--update-catalogue", cwd=root).returncode == 0
    path = root / "runs" / "catalogue.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert any(p["model"] == HOSTILE_MODEL for p in data["patterns"])
    for pattern in data["patterns"]:
        pattern["title"] = "\x1b[31mred\x9b1m title\u202e a:b:m"
    path.write_text(json.dumps(data), encoding="utf-8")
    shown = fcbench("history", "runs", cwd=root)
    assert shown.returncode == 0, shown.stderr
    for stream in (shown.stdout, shown.stderr):
        assert not {"\x1b", "\x07", "\x9b", "\u202e"} & set(stream), stream
    assert "sim-sloppy[2Ja:b:m" in shown.stdout and "🅱" not in shown.stdout
    assert "prod]8;;https://evil.example-model" in shown.stdout
    assert "red1m title a:b:m" in shown.stdout
