"""The streamed JSON report and the compact case summaries give what pydantic gives for the metrics."""

from __future__ import annotations

import io
import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from records_builder import RunBuilder, call_outcome, error_outcome, text_outcome, verdict

from fcbench.metrics import CaseSummary, RunMetrics, compute_metrics
from fcbench.metrics.cases import CaseSummaries, rate_of
from fcbench.report.common import failing_cases
from fcbench.report.jsonfmt import render_json, write_json

ALPHA = ("mock", "alpha")
BETA = ("mock", "beta")


def varied_run(tmp_path: Path) -> Path:
    """Cases with drift, anomalies, several reasons, errors, odd text, tags or none, two targets
    and both parity modes."""
    b = RunBuilder(tmp_path / "run", targets=[ALPHA, BETA], modes=["selection", "stream"], repeats=4)
    prompts = ["plain", 'quotes " and \\ backslash', "é ünïcode \u2028 ✓ 😀", "tab\tnew\nline \x01", ""]
    for target in (ALPHA, BETA):
        for mode in ("selection", "stream"):
            for i, prompt in enumerate(prompts):
                case = f"case-{i}"
                tags = [f"t{i}", "shared"] if i % 2 else None
                for r in range(4):
                    if i == 0:  # drift: the argument varies
                        outcome, v = call_outcome(("f", {"x": r % 2})), verdict()
                    elif i == 1:  # several failure reasons
                        outcome = text_outcome("no")
                        v = verdict("missed_call", reasons=["b reason", "a reason", f"r{r % 2}"])
                    elif i == 2 and r == 1:
                        outcome, v = error_outcome(), None
                    elif i == 3:
                        outcome = call_outcome(("g", {"y": 1}))
                        v = verdict("correct_call", r % 2 == 0, semantic_exact=r % 2 == 0)
                        v["anomalies"] = ["empty_arguments"] if r == 0 else []
                    else:
                        outcome, v = call_outcome(("g", {"y": 1})), verdict()
                    b.add(
                        case,
                        outcome,
                        v,
                        target=target,
                        repeat=r,
                        mode=mode,
                        tags=tags,
                        prompt=prompt,
                        expected_kind="tool" if i != 1 else "text",
                    )
    return b.write()


@pytest.fixture
def metrics(tmp_path: Path) -> RunMetrics:
    return compute_metrics(varied_run(tmp_path))


def test_streamed_json_is_the_pydantic_json(metrics: RunMetrics) -> None:
    assert any(c.drift for c in metrics.cases) and any(c.anomalies for c in metrics.cases)
    assert any(len(c.reasons) > 1 for c in metrics.cases) and any(c.errors for c in metrics.cases)
    out = io.BytesIO()
    write_json(metrics, out)
    assert out.getvalue().decode() == metrics.to_json(indent=2) + "\n" == render_json(metrics)
    assert RunMetrics.from_json(render_json(metrics)) == metrics


def test_streamed_json_of_metrics_without_cases(tmp_path: Path) -> None:
    metrics = compute_metrics(RunBuilder(tmp_path / "empty").write())
    assert not metrics.cases
    assert render_json(metrics) == metrics.to_json(indent=2) + "\n"


def test_streamed_json_is_written_in_blocks(metrics: RunMetrics, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("fcbench.report.jsonfmt.WRITE_ROWS", 3)
    assert render_json(metrics) == metrics.to_json(indent=2) + "\n"


def test_case_summaries_read_as_the_built_summaries(metrics: RunMetrics) -> None:
    built = list(metrics.cases)
    assert all(isinstance(c, CaseSummary) for c in built) and len(metrics.cases) == len(built)
    assert metrics.cases[0] == built[0] and metrics.cases[-2:] == built[-2:]
    again = CaseSummaries.of_summaries(built)
    assert again == metrics.cases and list(again) == built
    failing = [c for c in built if c.passed.d and c.passed.n < c.passed.d]
    failing.sort(key=lambda c: (c.passed.n / c.passed.d, -c.passed.d, c.case_id, c.target, c.mode))
    assert failing_cases(metrics) == failing and failing_cases(metrics, 2) == failing[:2]
    assert metrics.cases.worst(3) == (len(failing), failing[:3])
    assert metrics.cases.select(lambda row: bool(row.drift)) == [c for c in built if c.drift]
    by_case = metrics.cases.by_case()
    passed = {
        (t, m, i): rate_of(r.passes, r.scorable) for (t, m), rows in by_case.items() for i, r in rows.items()
    }
    assert passed == {(c.target, c.mode, c.case_id): c.passed for c in built}


def test_case_summaries_pickle_compactly_and_share_their_parts(metrics: RunMetrics) -> None:
    back = pickle.loads(pickle.dumps(metrics))
    assert back == metrics and list(back.cases) == list(metrics.cases)
    rows = [row for _, row in back.cases.rows()]
    assert len({id(r.info) for r in rows}) == len({r.info for r in rows})
    assert len({id(r.anomalies) for r in rows if not r.anomalies}) == 1


def test_metrics_json_validates_back_into_case_summaries(metrics: RunMetrics) -> None:
    data = json.loads(metrics.to_json())
    back = RunMetrics.model_validate(data)
    assert isinstance(back.cases, CaseSummaries) and back == metrics
    assert RunMetrics.model_json_schema()["properties"]["cases"]["type"] == "array"


def test_cli_streams_the_json_report(tmp_path: Path) -> None:
    run = varied_run(tmp_path)
    expected = render_json(compute_metrics(run))
    cli = [sys.executable, "-m", "fcbench", "report", str(run), "--format", "json"]
    shown = subprocess.run(cli, capture_output=True, check=True)
    assert shown.stdout.decode() == expected
    out = tmp_path / "out" / "metrics.json"
    subprocess.run([*cli, "-o", str(out)], capture_output=True, check=True)
    assert out.read_text(encoding="utf-8") == expected
    assert not list(out.parent.glob("*.partial"))


def test_case_summaries_pickle_by_columns_with_every_field(metrics: RunMetrics) -> None:
    back = pickle.loads(pickle.dumps(metrics.cases))
    assert [(g.target, g.mode, r) for g, r in back.rows()] == [
        (g.target, g.mode, r) for g, r in metrics.cases.rows()
    ]
    assert any(r.drift for _, r in back.rows()) and list(back) == list(metrics.cases)
    tables = [t for _, r in back.rows() for t in (r.decisions, r.reasons, r.anomalies)]
    assert len({id(t) for t in tables}) == len({tuple(t.items()) for t in tables})
    ids = [r.case_id for _, r in back.rows()]
    assert len({id(c) for c in ids}) == len(set(ids))  # one string per case id, across targets
    assert pickle.loads(pickle.dumps(CaseSummaries())) == CaseSummaries()
