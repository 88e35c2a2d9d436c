"""``--judge``: a judge target rates the text replies over real HTTP against the mock, beside the
verdicts and never changing them; its agreement and its disagreements are reported; a judge that
fails is coverage of the judge only."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from fcbench.config import RunConfig
from fcbench.endpoints import RunningService
from fcbench.errors import ConfigError
from fcbench.grading.judge import JUDGED_DECISIONS, RUBRIC_SHA256, RUBRIC_VERSION
from fcbench.metrics import compute_metrics
from fcbench.report.render import render_report
from fcbench.run import execute, prepare
from fcbench.store.records import RECORDS_FILE, read_manifest

CASES = ["abstain-01", "abstain-04", "clarify-01", "clarify-ask-ja-01", "adv-inject-02"]
"""An abstention the simulated judge agrees with and one it does not (the reply ends by asking),
a clarification in English, a Japanese one the target answers without asking, and a call."""
TARGET = "sim:sim-careful"
JUDGE = "sim-anthropic:sim-careful"


def _run(mock_server: str, root: Path, judge: str | None) -> Path:
    data: dict[str, Any] = {"targets": [TARGET], "repeats": 1, "cases": CASES, "max_retries": 0}
    if judge is not None:
        data["judge"] = judge
    spec = prepare(RunConfig.model_validate(data), out_root=root)
    return asyncio.run(execute(spec, services={"mock": RunningService(mock_server)})).run_dir


def _records(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / RECORDS_FILE).read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def runs(mock_server: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("judge")
    return {
        "plain": _run(mock_server, root / "plain", None),
        "judged": _run(mock_server, root / "judged", JUDGE),
        "failing": _run(mock_server, root / "failing", "sim:sim-no-such-model"),
    }


def test_text_verdicts_are_rated_beside_the_verdict_which_stays_as_graded(runs: dict[str, Path]) -> None:
    plain = {r["case_id"]: r for r in _records(runs["plain"])}
    judged = {r["case_id"]: r for r in _records(runs["judged"])}
    assert set(judged) == set(CASES)
    for case_id, record in judged.items():
        assert record["verdict"] == plain[case_id]["verdict"], case_id
        assert record["outcome"]["kind"] == plain[case_id]["outcome"]["kind"], case_id
        assert record["outcome"].get("text") == plain[case_id]["outcome"].get("text"), case_id
        text_decision = (
            record["outcome"]["kind"] == "text" and record["verdict"]["decision"] in JUDGED_DECISIONS
        )
        assert ("judge" in record) == text_decision, case_id
        assert "judge" not in plain[case_id]
    rating = judged["clarify-01"]["judge"]
    assert rating["target"] == JUDGE and rating["rubric"] == RUBRIC_VERSION
    assert rating["label"] == "asks_for_missing" and rating["error"] is None
    assert rating["outcome"]["kind"] == "tool_calls" and rating["outcome"]["calls"][0]["name"] == "rate_reply"
    sent = rating["raw"]["request"]["body"]
    assert sent["tool_choice"] == {"type": "tool", "name": "rate_reply"}  # the judge's own dialect
    assert "## Information the request still lacks\npostal_code" in sent["messages"][0]["content"]
    assert "judge" not in judged["adv-inject-02"]  # a call is not the judge's to rate


def test_the_manifest_pins_the_judge_and_its_rubric(runs: dict[str, Path]) -> None:
    pin = read_manifest(runs["judged"]).judge
    assert pin is not None
    assert pin.target.ident == JUDGE and pin.target.dialect == "anthropic-messages"
    assert (pin.rubric, pin.rubric_sha256, pin.temperature) == (RUBRIC_VERSION, RUBRIC_SHA256, 0.0)
    assert read_manifest(runs["plain"]).judge is None
    assert "judge" not in json.loads((runs["plain"] / "manifest.json").read_text(encoding="utf-8"))


def test_agreement_counts_and_lists_the_disagreement(runs: dict[str, Path]) -> None:
    agreement = compute_metrics(runs["judged"]).judge
    assert agreement is not None
    (row,) = agreement.targets
    rated = [r for r in _records(runs["judged"]) if "judge" in r]
    agreeing = [r for r in rated if r["judge"]["label"] in {"asks_for_missing", "answers"}]
    assert (row.target, row.mode, row.judged, row.failed) == (TARGET, "selection", len(rated), 0)
    assert (row.agreement.n, row.agreement.d) == (len(agreeing), len(rated))
    (disagreement,) = agreement.disagreements
    assert disagreement.case_id == "abstain-04"
    assert (disagreement.decision, disagreement.label) == ("correct_abstention", "asks_again")
    assert compute_metrics(runs["plain"]).judge is None


def test_every_format_shows_the_agreement_and_the_disagreement(runs: dict[str, Path]) -> None:
    markdown = render_report(runs["judged"], "md")
    assert "## Judge agreement" in markdown and "### Disagreements (1)" in markdown
    assert "| abstain-04 | 0 | correct\\_abstention | asks\\_again |" in markdown
    html = render_report(runs["judged"], "html")
    assert 'id="judge-disagreements"' in html and "abstain-04" in html
    data = json.loads(render_report(runs["judged"], "json"))
    assert data["judge"]["disagreements"][0]["case_id"] == "abstain-04"
    assert data["judge"]["targets"][0]["agreement"]["d"] == len(
        [r for r in _records(runs["judged"]) if "judge" in r]
    )
    assert "judge" not in json.loads(render_report(runs["plain"], "json"))
    assert "Judge agreement" not in render_report(runs["plain"], "md")


def test_a_failing_judge_is_the_judges_coverage_not_the_targets(runs: dict[str, Path]) -> None:
    plain = {r["case_id"]: r for r in _records(runs["plain"])}
    failing = _records(runs["failing"])
    rated = [r for r in failing if "judge" in r]
    assert rated
    for record in failing:
        assert record["verdict"] == plain[record["case_id"]]["verdict"]
        assert record["outcome"]["kind"] != "provider_error"
    for record in rated:
        assert record["judge"]["label"] is None and record["judge"]["error"].startswith("provider error")
    (row,) = compute_metrics(runs["failing"]).judge.targets  # type: ignore[union-attr]
    assert (row.judged, row.failed, row.agreement.d) == (len(rated), len(rated), 0)
    target = compute_metrics(runs["failing"]).find(TARGET, "selection")
    assert target is not None and sum(target.provider_errors.values()) == 0


def test_an_unknown_judge_endpoint_is_a_config_error(tmp_path: Path) -> None:
    config = RunConfig.model_validate({"targets": [TARGET], "judge": "nowhere:model"})
    with pytest.raises(ConfigError, match="judge"):
        prepare(config, out_root=tmp_path)
