"""Numbers beyond any real request are data, never a harness error: a token count past 2^53, or a
cost that overflows, is recorded as an ``implausible_usage`` anomaly (the value left out) beside a
graded answer; a price in exponent notation (``1e-6``) is a price."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from robust_run import records, run_in_process
from robust_server import CHAT_REPLY, Answer, HostileServer, SeenRequest

from fcbench.config import load_config

HUGE = "1" + "0" * 400


def _reply(prompt_tokens: str) -> bytes:
    body = json.dumps(CHAT_REPLY).replace('"prompt_tokens": 3', f'"prompt_tokens": {prompt_tokens}')
    return body.encode()


@pytest.mark.parametrize(
    ("prompt_tokens", "price", "left_out"),
    [(HUGE, 2.5, "input_tokens"), ("9007199254740000", 1e300, "cost_usd")],
    ids=["count-past-2^53", "cost-overflows"],
)
def test_an_impossible_usage_is_an_anomaly_beside_a_graded_answer(
    tmp_path: Path, prompt_tokens: str, price: float, left_out: str
) -> None:
    def answer(request: SeenRequest) -> Answer:
        return Answer(200, _reply(prompt_tokens))

    with HostileServer(answer) as server:
        config: dict[str, Any] = {
            "endpoints": {
                "lab": {"dialect": "openai-chat", "base_url": server.url + "/v1", "key_required": False}
            },
            "targets": ["lab:priced-model"],
            "prices": {"priced-model": {"input": price, "output": price}},
            "cases": ["abstain-01"],
            "repeats": 1,
            "modes": ["selection"],
            "max_retries": 0,
        }
        result = run_in_process(config, tmp_path)
    (record,) = records(result.run_dir)
    assert record["outcome"]["kind"] == "text" and record["error"] is None
    assert record["verdict"]["decision"] == "correct_abstention"
    anomaly = next(a for a in record["anomalies"] if a["code"] == "implausible_usage")
    assert left_out in anomaly["detail"]
    assert record["cost_usd"] is None
    if left_out == "input_tokens":
        assert record["usage"]["input_tokens"] is None and record["usage"]["output_tokens"] == 2


def test_a_price_in_exponent_notation_is_read_as_a_number(tmp_path: Path) -> None:
    path = tmp_path / "fcbench.json"
    path.write_text(json.dumps({"prices": {"m": {"input": 1e-6, "output": 2e-06}}}), encoding="utf-8")
    assert "1e-06" in path.read_text()
    config = load_config(path)
    assert (config.prices["m"].input, config.prices["m"].output) == (1e-6, 2e-6)
