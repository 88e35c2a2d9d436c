"""``fcbench cases review`` lists pending cases; ``cases validate`` warns about them (subprocesses)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cli_run import fcbench

from fcbench.logs.cases import import_logs

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"


def _fcbench(*args: str) -> subprocess.CompletedProcess[str]:
    return fcbench("cases", *args)


def _suite(tmp_path: Path, confirm: str | None = None) -> Path:
    out = tmp_path / "suite"
    import_logs([LOGS / "gemini.constructed.jsonl"], "gemini", out)
    if confirm is not None:
        lines = []
        for line in (out / "cases.jsonl").read_text().splitlines():
            case = json.loads(line)
            if case["id"] == confirm:
                case["label"] = "confirmed"
            lines.append(json.dumps(case))
        (out / "cases.jsonl").write_text("\n".join(lines) + "\n")
    return out


def test_review_lists_pending_cases_with_expected_call_and_flags(tmp_path: Path) -> None:
    out = _suite(tmp_path, confirm="log-0001")
    result = _fcbench("review", str(out))
    assert result.returncode == 0, result.stderr
    assert "log-0001" not in result.stdout
    for case_id in ("log-0002", "log-0003", "log-0004"):
        assert case_id in result.stdout
    assert "needs-review:secret" in result.stdout
    assert "3 of 4 cases pending, 2 flagged for review" in result.stdout
    data = json.loads(_fcbench("review", str(out), "--json").stdout)
    rows = {row["id"]: row for row in data["pending"]}
    assert sorted(rows) == ["log-0002", "log-0003", "log-0004"]
    assert rows["log-0002"]["history"] == 3
    arguments = '{"country_code":"US","postal_code":"02139","service":"standard","weight_grams":750}'
    assert rows["log-0002"]["expected"] == f"get_shipping_quote {arguments}"
    assert rows["log-0003"]["expected"] == "text"
    assert rows["log-0003"]["flags"] == ["needs-review:secret", "needs-review:pii"]
    assert rows["log-0004"]["flags"] == ["needs-review:pii"]
    assert rows["log-0004"]["expected"].endswith("(order any)")


def test_validate_warns_about_pending_cases_without_failing(tmp_path: Path) -> None:
    out = _suite(tmp_path, confirm="log-0002")
    result = _fcbench("validate", str(out))
    assert result.returncode == 0, result.stderr
    assert "warning: 3 of 4 cases are pending" in result.stderr
    assert f"fcbench cases review {out}" in result.stderr


def test_a_suite_without_pending_cases_has_no_warning() -> None:
    result = _fcbench("validate", "core")
    assert result.returncode == 0, result.stderr
    assert "pending" not in result.stderr
    review = _fcbench("review", "core")
    assert review.returncode == 0 and "0 of" in review.stdout
