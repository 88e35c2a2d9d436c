"""``action.yml``'s steps, run as the shell scripts they are, against the embedded mock.

A small runner plays the composite action the way GitHub does for ``shell: bash`` steps:
``${{ inputs.* }}``, ``${{ github.action_path }}`` and ``${{ steps.<id>.outputs.* }}`` in a step's
``env`` are filled in, ``$GITHUB_OUTPUT`` and ``$GITHUB_STEP_SUMMARY`` are files, a step's ``if``
is honoured, and a failing step stops the job. ``uses:`` steps (setup-python, upload-artifact)
and the install step are left out: fcbench is already installed in the test environment, and the
install command is checked to install this checkout.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


@dataclass
class Job:
    workdir: Path
    inputs: dict[str, str]
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    log: list[tuple[str, int]] = field(default_factory=list)
    stderr: dict[str, str] = field(default_factory=dict)

    def value(self, expression: str) -> str:
        kind, _, rest = expression.partition(".")
        if kind == "inputs":
            declared = ACTION["inputs"][rest]
            return self.inputs.get(rest, str(declared.get("default", "")))
        if kind == "github" and rest == "action_path":
            return str(ROOT)
        if kind == "steps":
            step, _, output = rest.partition(".outputs.")
            return self.outputs.get(step, {}).get(output, "")
        raise AssertionError(f"unexpected expression {expression!r} in action.yml")

    def fill(self, text: str) -> str:
        return EXPRESSION.sub(lambda m: self.value(m.group(1)), text)

    def condition(self, expression: str | None) -> bool:
        if expression is None:
            return True
        if expression.startswith("always()"):
            return True
        left, op, right = re.match(r"(\S+)\s*(!=|==)\s*'(.*)'", expression).groups()  # type: ignore[union-attr]
        return (self.value(left) != right) if op == "!=" else (self.value(left) == right)

    def run(self) -> int:
        summary = self.workdir / "summary.md"
        summary.write_text("")  # one job's step summary
        for step in ACTION["runs"]["steps"]:
            if "uses" in step or step.get("id") == "install" or not self.condition(step.get("if")):
                continue
            assert step["shell"] == "bash"
            out_file = self.workdir / f"output-{step['id']}"
            out_file.write_text("")
            env = {
                **os.environ,
                "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
                "GITHUB_OUTPUT": str(out_file),
                "GITHUB_STEP_SUMMARY": str(summary),
                **{k: self.fill(str(v)) for k, v in (step.get("env") or {}).items()},
            }
            proc = subprocess.run(
                ["bash", "-eo", "pipefail", "-c", step["run"]],
                cwd=self.workdir,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            self.log.append((step["id"], proc.returncode))
            self.stderr[step["id"]] = proc.stderr[-2000:]
            self.outputs[step["id"]] = dict(
                line.split("=", 1) for line in out_file.read_text().splitlines() if "=" in line
            )
            if proc.returncode != 0:
                return proc.returncode
        return 0


def job(tmp_path: Path, **inputs: str) -> Job:
    workdir = tmp_path / "workspace"
    workdir.mkdir(exist_ok=True)
    return Job(workdir=workdir, inputs=inputs)


def test_the_install_step_installs_this_checkout() -> None:
    (install,) = [s for s in ACTION["runs"]["steps"] if s.get("id") == "install"]
    assert "pip install" in install["run"] and "$ACTION_PATH" in install["run"]
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"


def test_a_good_run_passes_writes_the_summary_and_the_reports(tmp_path: Path) -> None:
    passing = job(tmp_path, targets="sim:sim-careful", repeats="1", sample="8", **{"min-pass-rate": "0.5"})
    assert passing.run() == 0, passing.log
    assert passing.outputs["verdict"]["verdict"] == "pass"
    run_dir = passing.workdir / passing.outputs["run"]["run-dir"]
    assert (run_dir / "report.html").is_file() and (run_dir / "junit.xml").is_file()
    summary = (passing.workdir / "summary.md").read_text()
    assert summary.lstrip().startswith("**PASS**"), summary[:200]
    assert "compare" not in dict(passing.log)  # no baseline given: the step is skipped


def test_a_misspelt_model_fails_the_job_with_the_summary_written(tmp_path: Path) -> None:
    failing = job(tmp_path, targets="sim:sim-nope", repeats="1", sample="4")
    assert failing.run() == 1
    assert dict(failing.log)["verdict"] == 1
    assert failing.outputs["run"]["status"] == "1"
    assert "FAIL" in (failing.workdir / "summary.md").read_text()


CASES = "cases: [types-01, abstain-01, clarify-01, select-lookup-01]\n"
FULL_GATE = (
    "gate:\n  minCoverage: 0.95\n  minPassRate: 0.5\n  minPassRateByCategory: {normal: 0.5}\n"
    "  minPassRateByTag: {types: 0.5}\n  failFast: 3\n  maxUnsafeWrites: 0\n"
)


def config(workdir: Path, target: str, text: str = "") -> str:
    """A config file in the workspace: one target, one repeat, four cases (and ``text``)."""
    workdir.mkdir(exist_ok=True)
    path = workdir / "fcbench.yaml"
    path.write_text(f"targets: ['{target}']\nrepeats: 1\n{CASES}{text}", encoding="utf-8")
    return path.name


def main_branch_baseline(tmp_path: Path) -> str:
    """A passing run on the default branch, kept where the docs' cache step saves it."""
    main = job(tmp_path, config=config(tmp_path / "workspace", "sim:sim-careful"), out="main-runs")
    assert main.run() == 0, (main.log, main.stderr)
    kept = main.workdir / "fcbench-baseline"
    shutil.copytree(main.workdir / main.outputs["run"]["run-dir"], kept)
    return kept.name


def test_the_first_pull_request_has_no_baseline_and_gates_on_thresholds_only(tmp_path: Path) -> None:
    first = job(
        tmp_path, config=config(tmp_path / "workspace", "sim:sim-careful"), baseline="fcbench-baseline"
    )
    assert first.run() == 0, first.log
    assert first.outputs["compare"] == {"compared": "false"}
    assert first.outputs["verdict"]["verdict"] == "pass"
    summary = (first.workdir / "summary.md").read_text()
    assert summary.startswith("**PASS**: the run passed its gate")
    assert "no baseline run at 'fcbench-baseline' yet" in summary and "gating on thresholds only" in summary


def test_a_second_pull_request_compares_against_the_default_branchs_run(tmp_path: Path) -> None:
    baseline = main_branch_baseline(tmp_path)
    second = job(tmp_path, config=config(tmp_path / "workspace", "sim:sim-careful"), baseline=baseline)
    assert second.run() == 0, (second.log, second.stderr)
    assert second.outputs["compare"] == {"compared": "true", "status": "0"}
    summary = (second.workdir / "summary.md").read_text()
    assert summary.count("**PASS**") == 2 and "**FAIL**" not in summary


def test_a_regression_against_the_baseline_fails_the_job(tmp_path: Path) -> None:
    baseline = main_branch_baseline(tmp_path)
    # the candidate is another model under the same single target: paired, and it regresses
    worse = job(
        tmp_path, config=config(tmp_path / "workspace", "sim-anthropic:sim-sloppy"), baseline=baseline
    )
    assert worse.run() == 1, worse.log
    assert worse.outputs["run"]["status"] == "0"  # its own gate (the default one) passed
    assert worse.outputs["compare"]["status"] == "1"
    assert worse.outputs["verdict"]["verdict"] == "fail"
    summary = (worse.workdir / "summary.md").read_text()
    assert summary.startswith("**PASS**: the run passed its gate") and "**FAIL**" in summary


def test_a_config_with_a_full_gate_block_plus_flags_runs_and_keeps_the_configs_repeats(
    tmp_path: Path,
) -> None:
    name = config(tmp_path / "workspace", "sim:sim-careful", FULL_GATE)
    flags = {"min-coverage": "0.9", "fail-fast": "2", "min-category-pass-rate": "normal=0.5"}
    gated = job(tmp_path, config=name, **flags, **{"max-unsafe-writes": "0", "min-pass-rate": "0.5"})
    assert gated.run() == 0, gated.log
    run_dir = gated.workdir / gated.outputs["run"]["run-dir"]
    assert json.loads((run_dir / "manifest.json").read_text())["repeats"] == 1  # the config's, not 3
    stored = json.loads((run_dir / "config.json").read_text())["gate"]
    assert (stored["min_coverage"], stored["fail_fast"], stored["min_pass_rate_by_tag"]) == (
        0.9,
        2,
        {"types": 0.5},
    )
    strict = job(tmp_path, config=name, **{"min-pass-rate": "1.0"}, out="strict")
    config(tmp_path / "workspace", "sim-anthropic:sim-sloppy", FULL_GATE)
    assert strict.run() == 1, strict.log
    assert strict.outputs["run"]["status"] == "1"
    assert (strict.workdir / "summary.md").read_text().startswith("**FAIL**")


def test_every_input_the_steps_use_is_declared_and_no_script_holds_an_expression() -> None:
    text = json.dumps(ACTION["runs"]["steps"])
    used = set(re.findall(r"inputs\.([\w-]+)", text))
    assert used and used <= set(ACTION["inputs"]), used - set(ACTION["inputs"])
    for step in ACTION["runs"]["steps"]:  # expressions belong in env, never inside a script (injection)
        assert not EXPRESSION.search(step.get("run", "")), step.get("id")
