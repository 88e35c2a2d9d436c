"""The documented recipe for running shards on a job array (docs/scale.md): the Indexed Job's pods,
stood in for by one process per index started at once, each running ``docs/recipes/shard-job.sh``,
then ``fcbench merge``, leave the records and metrics of one unsharded run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml
from cli_run import fcbench, keyless_env
from run_equivalence import comparable_metrics, comparable_records, only_run_in

RECIPES = Path(__file__).resolve().parents[2] / "docs" / "recipes"
SCRIPT = RECIPES / "shard-job.sh"
SHARDS = 3
CONFIG = {
    "targets": ["sim:sim-careful", "sim-gemini:sim-flaky"],
    "repeats": 1,
    "modes": ["forced", "recovery"],  # every request distinct: one right answer each (see test_workers)
    "categories": ["boundary"],
}


def task(index: int, workdir: Path) -> subprocess.Popen[str]:
    """One pod of the job array: the recipe's script with the index the scheduler sets."""
    env = keyless_env(
        {
            "JOB_COMPLETION_INDEX": str(index),
            "SHARDS": str(SHARDS),
            "FCBENCH_CONFIG": "fcbench.yaml",
            "RUNS": "runs",
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        }
    )
    return subprocess.Popen(
        ["sh", str(SCRIPT)], cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_the_job_arrays_shards_merge_into_the_unsharded_run(tmp_path: Path) -> None:
    (tmp_path / "fcbench.yaml").write_text(yaml.safe_dump(CONFIG), encoding="utf-8")
    tasks = [task(index, tmp_path) for index in range(SHARDS)]  # all at once, like the job's pods
    whole = fcbench("run", "--config", "fcbench.yaml", "--no-progress", "--out", "whole", cwd=tmp_path)
    for proc in tasks:
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stdout + stderr
    assert whole.returncode in (0, 1), whole.stderr  # 1: the sim models fail the default gate
    shard_dirs = [only_run_in(tmp_path / "runs" / f"shard-{index}") for index in range(SHARDS)]

    retried = task(0, tmp_path)  # a task run again (a retried pod) resumes its shard
    stdout, stderr = retried.communicate(timeout=300)
    assert retried.returncode == 0, stdout + stderr
    assert "0 recorded now" in stdout and only_run_in(tmp_path / "runs" / "shard-0") == shard_dirs[0]

    merged = fcbench("merge", *map(str, shard_dirs), "--out", "runs/merged", cwd=tmp_path)
    assert merged.returncode == 0, merged.stderr
    reference = only_run_in(tmp_path / "whole")
    assert comparable_records(tmp_path / "runs" / "merged") == comparable_records(reference)
    assert comparable_metrics(tmp_path / "runs" / "merged") == comparable_metrics(reference)

    gate = fcbench("run", "-c", "fcbench.yaml", "--resume", "runs/merged", "--no-progress", cwd=tmp_path)
    assert gate.returncode == whole.returncode, gate.stdout + gate.stderr  # the merged run's gate
    assert "0 recorded now" in gate.stdout


def test_the_indexed_job_runs_the_recipe_once_per_shard() -> None:
    job = yaml.safe_load((RECIPES / "shard-job.yaml").read_text(encoding="utf-8"))
    spec = job["spec"]
    assert job["kind"] == "Job" and spec["completionMode"] == "Indexed"
    (container,) = spec["template"]["spec"]["containers"]
    env = {item["name"]: item.get("value") for item in container["env"]}
    assert env["SHARDS"] == str(spec["completions"])
    assert container["command"][-1].endswith(SCRIPT.name)
