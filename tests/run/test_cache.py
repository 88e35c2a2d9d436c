"""The response cache (``fcbench run --cache DIR``): a rerun sends nothing the cache holds, records
say ``cached``, and reports count cached observations without measuring them again."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_run import fcbench
from robust_run import records

from fcbench.adapters.base import ParsedTurn
from fcbench.config import RunConfig
from fcbench.contract import ProviderErrorOutcome
from fcbench.endpoints import RunningService
from fcbench.errors import InputError, RunStateError
from fcbench.metrics import compute_metrics
from fcbench.mock.server import MockServer
from fcbench.mock.sim.base import SimReply, SimRequest
from fcbench.mock.sim.models import Careful
from fcbench.redact import Redactor
from fcbench.run import RunResult, execute, prepare
from fcbench.run.cache import ResponseCache
from fcbench.store.records import read_manifest
from fcbench.transport import Exchange

CASES = ["types-01", "select-lookup-01", "clarify-01"]


class CountingCareful:
    """``sim-careful``, counting the requests the mock answered with it."""

    name = "sim-careful"

    def __init__(self) -> None:
        self.model = Careful()
        self.answered = 0

    def respond(self, request: SimRequest) -> SimReply:
        """Count, then answer as ``sim-careful``."""
        self.answered += 1
        return self.model.respond(request)


@pytest.fixture(scope="module")
def counting() -> Iterator[tuple[str, CountingCareful]]:
    model = CountingCareful()
    with MockServer(models={"sim-careful": model}) as server:
        yield server.url, model


def _config(**extra: Any) -> RunConfig:
    data = {"suite": "core", "targets": ["sim:sim-careful"], "cases": CASES, "repeats": 2, **extra}
    return RunConfig.model_validate(data)


def _run(url: str, out: Path, cache: Path | None, resume: Path | None = None, **extra: Any) -> RunResult:
    spec = prepare(_config(**extra), out_root=out, resume_dir=resume, cache_dir=cache)
    return asyncio.run(execute(spec, services={"mock": RunningService(url)}))


def test_a_second_run_with_the_cache_sends_nothing_and_is_not_measured_again(
    counting: tuple[str, CountingCareful], tmp_path: Path
) -> None:
    url, model = counting
    cache = tmp_path / "cache"
    before = model.answered
    first = _run(url, tmp_path / "runs", cache)
    sent = model.answered - before
    assert sent == first.planned == len(CASES) * 2
    assert len(list(cache.glob("*.json"))) == sent
    second = _run(url, tmp_path / "runs", cache)
    assert model.answered - before == sent, "the second run sent nothing to the mock"
    old, new = records(first.run_dir), records(second.run_dir)
    assert not any(r.get("cached") for r in old) and all(r["cached"] is True for r in new)
    assert [r["outcome"] for r in new] == [r["outcome"] for r in old]
    assert read_manifest(second.run_dir).cache is True

    measured, reused = compute_metrics(first.run_dir), compute_metrics(second.run_dir)
    (was,), (now,) = measured.targets, reused.targets
    assert (was.cached, now.cached) == (0, sent)
    assert now.pass_rate == was.pass_rate and now.scorable == was.scorable
    assert was.latency_ms.count == sent and now.latency_ms.count == 0
    assert was.tokens.input > 0 and now.tokens.input == 0 and now.cost_usd in (None, 0.0)
    assert was.stability.cases == len(CASES) and now.stability.cases == 0 and now.pass_hat_k_cases == {}
    shown = fcbench("report", str(second.run_dir), "--format", "md")
    assert shown.returncode == 0, shown.stderr
    assert f"Cached: {sent} observations answered from the response cache" in shown.stdout


def test_only_what_the_cache_lacks_is_sent_and_without_the_cache_everything_is(
    counting: tuple[str, CountingCareful], tmp_path: Path
) -> None:
    url, model = counting
    cache = tmp_path / "cache"
    _run(url, tmp_path / "runs", cache, repeats=1)
    before = model.answered
    more = _run(url, tmp_path / "runs", cache, repeats=3)  # repeats 1 and 2 are new requests
    assert model.answered - before == len(CASES) * 2
    rows = records(more.run_dir)
    assert sorted((r["repeat"], bool(r.get("cached"))) for r in rows) == sorted(
        [(0, True)] * len(CASES) + [(1, False)] * len(CASES) + [(2, False)] * len(CASES)
    )
    metrics = compute_metrics(more.run_dir)
    assert metrics.targets[0].stability.cases == 0  # every case has a cached repeat
    before = model.answered
    plain = _run(url, tmp_path / "runs", None, repeats=1)
    assert model.answered - before == len(CASES), "off by default: every request is sent"
    assert "cache" not in json.loads((plain.run_dir / "manifest.json").read_text(encoding="utf-8"))


def test_a_resume_must_agree_on_the_cache(counting: tuple[str, CountingCareful], tmp_path: Path) -> None:
    url, _ = counting
    without = _run(url, tmp_path / "runs", None, repeats=1)
    with pytest.raises(RunStateError, match="made without --cache"):
        _run(url, tmp_path / "runs", tmp_path / "cache", resume=without.run_dir, repeats=1)
    with_cache = _run(url, tmp_path / "runs", tmp_path / "cache", repeats=1)
    with pytest.raises(RunStateError, match="made with --cache"):
        _run(url, tmp_path / "runs", None, resume=with_cache.run_dir, repeats=1)
    again = _run(url, tmp_path / "runs", tmp_path / "cache", resume=with_cache.run_dir, repeats=1)
    assert again.skipped == again.planned


def test_a_cache_folder_is_data_a_link_or_a_damaged_file_is_never_used(
    counting: tuple[str, CountingCareful], tmp_path: Path
) -> None:
    url, model = counting
    cache = tmp_path / "cache"
    _run(url, tmp_path / "runs", cache, repeats=1)
    damaged, linked, *_ = sorted(cache.glob("*.json"))  # a valid answer behind a link is not read either
    damaged.write_text('{"format": "fcbench-response-cache/1", "key": {}, "turn": 1}', encoding="utf-8")
    before = model.answered
    _run(url, tmp_path / "runs", cache, repeats=1)
    assert model.answered - before == 1, "the damaged answer was asked again (and kept anew)"
    assert json.loads(damaged.read_text(encoding="utf-8"))["key"]
    target = tmp_path / "elsewhere.json"
    kept = linked.read_bytes()  # a valid answer: read through the link, it would be used
    target.write_bytes(kept)
    linked.unlink()
    os.symlink(target, linked)
    before = model.answered
    _run(url, tmp_path / "runs", cache, repeats=1)
    assert model.answered - before == 1, "the link was not followed: its request was sent"
    assert not linked.is_symlink() and json.loads(linked.read_text(encoding="utf-8"))["key"]
    assert target.read_bytes() == kept, "what the link pointed to was not written"
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="must be a folder"):
        ResponseCache(tmp_path / "file", Redactor())


def test_provider_errors_are_not_kept(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache", Redactor())
    failed = Exchange(ParsedTurn(outcome=ProviderErrorOutcome(code="server", message="boom")), 5.0, 3)
    from fcbench.adapters.base import BuiltRequest
    from fcbench.endpoints import all_endpoints, parse_target
    from fcbench.run.plan import Planned, Target
    from fcbench.suite.models import Case, ExpectText

    endpoint, model = parse_target("sim:sim-careful", all_endpoints())
    planned = Planned(
        0, Target(endpoint, model), Case(id="c", prompt="p", expected=ExpectText()), 0, "selection"
    )
    key = cache.key(planned, BuiltRequest(path="/chat", body={"model": model}), {}, 1)
    assert cache.put(key, failed) is False and cache.get(key) is None
    assert not list((tmp_path / "cache").iterdir())


def test_the_cli_runs_with_the_cache_and_says_what_was_cached(tmp_path: Path) -> None:
    args = ["run", "-t", "sim:sim-careful", "--case", "types-01", "--repeats", "1", "--no-progress"]
    first = fcbench(*args, "--out", str(tmp_path / "runs"), "--cache", str(tmp_path / "cache"))
    assert first.returncode == 0, first.stderr
    second = fcbench(*args, "--out", str(tmp_path / "runs"), "--cache", str(tmp_path / "cache"))
    assert second.returncode == 0, second.stderr
    assert "1 observations answered from the response cache" in second.stdout
    assert "response cache" not in first.stdout
