"""The viewer's JSON endpoints, against a real ``fcbench view`` process: the runs, paged and filtered
observation queries streamed from records.jsonl, one observation, raw bodies on demand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from fcbench.store.records import RECORDS_FILE, iter_record_dicts


@pytest.fixture(scope="module")
def client(view_url: str) -> Any:
    with httpx.Client(base_url=view_url, timeout=60) as c:
        yield c


@pytest.fixture(scope="module")
def records(runs_root: Path) -> list[dict[str, Any]]:
    return list(iter_record_dicts(runs_root / "base" / RECORDS_FILE))


def result_of(rec: dict[str, Any]) -> str:
    v = rec.get("verdict")
    if rec["outcome"]["kind"] == "provider_error" or not v or v["decision"] == "not_scored":
        return "not_scored"
    return "pass" if v["passed"] else "fail"


def test_lists_every_run_with_its_pass_rate(client: Any) -> None:
    runs = client.get("/api/runs").json()
    assert [r["key"] for r in runs] == ["new", "base"]  # newest first
    base = runs[1]
    assert base["run_id"] == "20260101-000000-base00" and base["suite"] == "synthetic"
    assert len(base["targets"]) == 4 and 0 < base["pass_rate"] < 1
    page = client.get("/")
    assert page.status_code == 200 and "20260101-000000-base00" in page.text


def test_pages_cover_every_observation_once_failures_first(
    client: Any, records: list[dict[str, Any]]
) -> None:
    seen: list[int] = []
    results: list[str] = []
    listed: list[dict[str, Any]] = []
    offset = 0
    while True:
        page = client.get("/api/runs/base/observations", params={"offset": offset, "limit": 500}).json()
        assert page["total"] == len(records) and page["offset"] == offset
        if not page["rows"]:
            break
        listed += page["rows"]
        seen += [r["n"] for r in page["rows"]]
        results += [r["result"] for r in page["rows"]]
        offset += len(page["rows"])
    assert sorted(seen) == list(range(len(records)))
    order = {"fail": 0, "not_scored": 1, "pass": 2}
    assert [order[r] for r in results] == sorted(order[r] for r in results)
    assert results.count("fail") == sum(1 for r in records if result_of(r) == "fail")
    assert all("outcome" not in r and "request" not in r for r in listed)  # list rows stay small


def test_filters_and_search_run_on_the_server(client: Any, records: list[dict[str, Any]]) -> None:
    url = "/api/runs/base/observations"
    fails = client.get(url, params={"result": "fail", "limit": 50}).json()
    assert fails["total"] == sum(1 for r in records if result_of(r) == "fail")
    assert {r["result"] for r in fails["rows"]} == {"fail"} and len(fails["rows"]) == 50
    column = "sim:sim-careful [selection]"
    both = client.get(url, params={"result": "fail", "decision": "wrong_tool", "target": column}).json()
    expected = [
        n
        for n, r in enumerate(records)
        if result_of(r) == "fail"
        and r["verdict"]["decision"] == "wrong_tool"
        and r["target"]["model"] == "sim-careful"
        and r["mode"] == "selection"
    ]
    assert [row["n"] for row in both["rows"]] == expected
    found = client.get(url, params={"q": "ord-000042"}).json()
    assert found["total"] == sum(1 for r in records if r["case_id"] == "case-0042") > 0
    assert client.get(url, params={"q": "no such text anywhere"}).json() == {
        "total": 0,
        "offset": 0,
        "rows": [],
    }
    assert client.get(url, params={"limit": 100_000}).status_code == 422


def test_one_observation_and_its_raw_bodies_on_demand(client: Any, records: list[dict[str, Any]]) -> None:
    n = next(i for i, r in enumerate(records) if r["turns"])
    body = client.get(f"/api/runs/base/observations/{n}").json()
    obs, case = body["obs"], body["case"]
    assert obs["n"] == n and obs["seq"] == records[n]["seq"] and obs["case_id"] == records[n]["case_id"]
    assert obs["request"] is None and obs["response"] is None  # raw bodies come separately
    assert [t["turn"] for t in obs["turns"]] == [1, 2]
    assert case["prompt"] == records[n]["case"]["prompt"]
    assert records[n]["raw"]["request"] == {
        "$blob": records[n]["raw"]["request"]["$blob"]
    }  # stored compacted
    raw = client.get(f"/api/runs/base/observations/{n}/raw").json()
    assert raw["request"]["tools"][0]["name"] == "tool_0" and "$blob" not in str(raw)
    assert raw["response"]["id"] == f"resp-{records[n]['seq']}"
    assert client.get(f"/api/runs/base/observations/{len(records) + 5}").status_code == 404
    assert client.get("/api/runs/nope/observations/1").status_code == 404


def test_report_data_and_pages_are_served(client: Any) -> None:
    report = client.get("/api/runs/base/report").json()
    assert report["count"] == 2000 and len(report["matrix"]["columns"]) == 8
    page = client.get("/runs/base")
    assert page.status_code == 200 and '"api": "/api/runs/base"' in page.text.replace('{"api":"', '{"api": "')
    assert 'id="obs-data"' not in page.text  # the observations are fetched, not embedded
    link = client.get("/runs/base/observations/7", follow_redirects=False)
    assert link.status_code == 307 and link.headers["location"] == "/runs/base#obs=7"
    compare = client.get("/compare", params={"base": "base", "new": "new"})
    assert compare.status_code == 200 and 'class="flip-row"' in compare.text
