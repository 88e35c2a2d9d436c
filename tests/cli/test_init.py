"""``fcbench init``: a scaffold that runs on the embedded mock straight away, and never overwrites."""

from __future__ import annotations

import json
from pathlib import Path

from cli_run import fcbench


def test_init_then_run_scores_every_case_on_the_mock(tmp_path: Path) -> None:
    made = fcbench("init", "helpdesk", cwd=tmp_path)
    assert made.returncode == 0, made.stdout + made.stderr
    assert "fcbench run --config helpdesk/fcbench.yaml" in made.stdout
    assert "fcbench cases validate helpdesk/suite.yaml" in made.stdout
    config = (tmp_path / "helpdesk" / "fcbench.yaml").read_text()
    assert "concurrency: 1" in config and "rate limits" in config and "# - openai:" in config

    run = fcbench(
        "run", "--suite", "helpdesk", "-t", "sim:sim-careful", "--repeats", "1", "--out", "runs", cwd=tmp_path
    )
    assert run.returncode == 0, run.stdout + run.stderr
    (run_dir,) = list((tmp_path / "runs").iterdir())
    records = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    kinds = {r["case"]["expected_kind"] for r in records}  # type: ignore[index]
    categories = {r["case"]["category"] for r in records}  # type: ignore[index]
    assert kinds == {"tool", "text", "clarification"} and categories == {"normal", "boundary", "adversarial"}
    assert all(r["verdict"]["decision"] != "not_scored" for r in records)  # type: ignore[index]
    assert sum(bool(r["verdict"]["passed"]) for r in records) >= len(records) // 2  # type: ignore[index]

    configured = fcbench(
        "run", "--config", "helpdesk/fcbench.yaml", "--repeats", "1", "--out", "runs2",
        "--max-unsafe-writes", "99",  # sim-eager writes unasked: that gate is test_run_gate.py's
        cwd=tmp_path,
    )  # fmt: skip
    assert configured.returncode == 0, configured.stdout + configured.stderr
    (run_dir,) = list((tmp_path / "runs2").iterdir())
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert {t["label"] for t in manifest["targets"]} == {"sim:sim-careful", "sim-anthropic:sim-eager"}
    assert manifest["system_prompt"].startswith("sha256:") and manifest["tool_imports"] == []
    recovered = [
        json.loads(line)
        for line in (run_dir / "records.jsonl").read_text().splitlines()
        if json.loads(line)["mode"] == "recovery"
    ]
    assert len(recovered) == 2, "one recovery case x two targets"
    for record in recovered:  # the scripted fake failed the first call; the model called again
        results = [result["content"]["ok"] for turn in record["turns"] for result in turn["results"]]
        assert results[0] is False and True in results, record["turns"]
    valid = fcbench("cases", "validate", "helpdesk/suite.yaml", cwd=tmp_path)
    assert valid.returncode == 0, valid.stdout + valid.stderr


def test_init_refuses_to_overwrite(tmp_path: Path) -> None:
    (tmp_path / "fcbench-suite").mkdir()
    (tmp_path / "fcbench-suite" / "suite.yaml").write_text("mine\n", encoding="utf-8")
    proc = fcbench("init", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "already exist" in proc.stderr and "nothing was written" in proc.stderr
    assert (tmp_path / "fcbench-suite" / "suite.yaml").read_text() == "mine\n"
    assert not (tmp_path / "fcbench-suite" / "fcbench.yaml").exists()
