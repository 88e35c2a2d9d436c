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
        summary.touch()
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


def test_the_comparison_against_a_baseline_gates_the_job(tmp_path: Path) -> None:
    base = job(tmp_path, targets="sim:sim-careful", repeats="1", sample="12", out="base")
    assert base.run() == 0, base.log
    baseline = str(base.workdir / base.outputs["run"]["run-dir"])
    same = job(tmp_path, targets="sim:sim-careful", repeats="1", sample="12", baseline=baseline)
    assert same.run() == 0, same.log
    assert same.outputs["compare"]["status"] == "0"
    # the candidate is another model under the same single target: paired, and it regresses
    worse = job(tmp_path, targets="sim-anthropic:sim-sloppy", repeats="1", sample="12", baseline=baseline)
    worse.inputs["min-coverage"] = "0"
    assert worse.run() == 1, worse.log
    assert worse.outputs["compare"]["status"] == "1"
    assert worse.outputs["verdict"]["verdict"] == "fail"
    assert "**FAIL**" in (worse.workdir / "summary.md").read_text()


def test_every_input_the_steps_use_is_declared_and_no_script_holds_an_expression() -> None:
    text = json.dumps(ACTION["runs"]["steps"])
    used = set(re.findall(r"inputs\.([\w-]+)", text))
    assert used and used <= set(ACTION["inputs"]), used - set(ACTION["inputs"])
    for step in ACTION["runs"]["steps"]:  # expressions belong in env, never inside a script (injection)
        assert not EXPRESSION.search(step.get("run", "")), step.get("id")
