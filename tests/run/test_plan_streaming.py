"""The plan is expanded while the run goes: the first request of a 10^5-case run leaves before the
plan is complete, and a run holds at most ``concurrency`` planned observations ahead of its records;
a 10^5-case suite read from the suite cache builds its cases only as their observations are made.

The provider is an aiohttp server on 127.0.0.1 in the test's own event loop, so what the plan has
built when it sees its first request is read at that very moment (an order of events, no timing).
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp_app import served

from fcbench.config import RunConfig
from fcbench.endpoints import BUILTIN_ENDPOINTS
from fcbench.run import execute, plan, prepare
from fcbench.store.records import read_manifest
from fcbench.suite.cache import SuiteCache
from fcbench.suite.caselist import CaseHead, CaseList
from fcbench.suite.loader import BUILTIN_DIR, Suite, load_suite
from fcbench.suite.models import Case
from fcbench.suite.parts import SuiteReader

CASES = 100_000
CONCURRENCY = 20
KEY_ENV = "FCBENCH_STREAMING_TEST_KEY"
REPLY = {
    "id": "chatcmpl-test",
    "object": "chat.completion",
    "model": "test",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "lookup_order", "arguments": json.dumps({"order_id": "ORD-1"})},
                    }
                ],
            },
        }
    ],
    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
}


@pytest.fixture(scope="module")
def large_suite() -> Suite:
    """The core suite with 10^5 generated single-turn cases (copies of one case, new ids)."""
    suite = load_suite("core")
    model = next(case for case in suite.cases if case.recovery is None)
    cases = [model.model_copy(update={"id": f"gen-{number:06d}"}) for number in range(CASES)]
    return replace(suite, cases=cases)


@pytest.fixture(scope="module")
def cached_large_suite(tmp_path_factory: pytest.TempPathFactory) -> Suite:
    """A 10^5-case suite folder on disk (the core suite's tools, one of its single-turn cases with
    new ids), loaded from a suite cache holding its checked form as a load would have left it."""
    folder = tmp_path_factory.mktemp("large") / "suite"
    shutil.copytree(BUILTIN_DIR / "core", folder)
    (folder / "recovery.jsonl").unlink()
    core = load_suite(folder, cache=False)
    model = next(case for case in core.cases if not case.multi_turn)
    line = next(
        text for text in (folder / "cases.jsonl").read_text(encoding="utf-8").splitlines() if model.id in text
    )
    heads, offset = [], 0
    with (folder / "cases.jsonl").open("wb") as out:
        for number in range(CASES):
            data = json.dumps({**json.loads(line), "id": f"gen-{number:06d}"}).encode()
            facts = (f"gen-{number:06d}", model.category, tuple(model.tags), False, False, model.tool_set)
            heads.append(CaseHead(*facts, 0, offset, offset + len(data), number + 1))
            out.write(data + b"\n")
            offset += len(data) + 1
    reader = SuiteReader(folder)
    files = sorted(path.name for path in folder.iterdir())
    for name in files:
        reader.read_text(name)
    cache = SuiteCache(folder.parent / "cache", min_bytes=0)
    checked = replace(core, cases=CaseList(heads), dataset_hash=reader.dataset_hash())
    cache.write(cache.key([(name, (folder / name).read_bytes()) for name in files]), checked, ["cases.jsonl"])
    return load_suite(folder, cache=cache)


class PlannedCounter:
    """Counts the planned observations built (``Planned`` instances) and the cases a cached suite
    built from their lines, in the test's process."""

    def __init__(self) -> None:
        self.built = 0
        self.cases_built = 0

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        counter = self
        build = CaseList._build

        def counted_build(cases: CaseList, head: CaseHead) -> Case:
            counter.cases_built += 1
            return build(cases, head)

        monkeypatch.setattr(CaseList, "_build", counted_build)

        class CountedPlanned(plan.Planned):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                counter.built += 1
                super().__init__(*args, **kwargs)

        monkeypatch.setattr(plan, "Planned", CountedPlanned)


@pytest.fixture
def counter(monkeypatch: pytest.MonkeyPatch) -> Iterator[PlannedCounter]:
    found = PlannedCounter()
    found.install(monkeypatch)
    monkeypatch.setenv(KEY_ENV, "test-key")
    yield found


class Provider:
    """An OpenAI-chat provider that notes how many observations were planned at each request."""

    def __init__(self, counter: PlannedCounter) -> None:
        self.counter = counter
        self.planned_at_request: list[int] = []
        self.cases_at_request: list[int] = []
        self.first = asyncio.Event()
        self.release = asyncio.Event()

    async def answer(self, request: web.Request) -> web.Response:
        self.planned_at_request.append(self.counter.built)
        self.cases_at_request.append(self.counter.cases_built)
        self.first.set()
        await request.read()
        await self.release.wait()
        return web.json_response(REPLY)

    async def serve(self) -> AsyncIterator[str]:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self.answer)
        async with served(app) as url:
            yield f"{url}/v1"


def run_config(url: str) -> RunConfig:
    return RunConfig.model_validate(
        {
            "endpoints": {"bench": {"dialect": "openai-chat", "base_url": url, "api_key_env": KEY_ENV}},
            "targets": ["bench:test-model"],
            "modes": ["selection"],
            "repeats": 1,
            "concurrency": CONCURRENCY,
            "timeoutMs": 60000,
        }
    )


async def first_requests(large_suite: Suite, counter: PlannedCounter, out: Path) -> tuple[Provider, Path]:
    """Start a run of the large suite, let its first ``CONCURRENCY`` requests arrive, answer them,
    let a few more arrive, then stop the run."""
    provider = Provider(counter)
    serving = provider.serve()
    url = await anext(serving)
    try:
        spec = prepare(run_config(url), out_root=out, suite=large_suite)
        run = asyncio.create_task(execute(spec))
        await provider.first.wait()
        while len(provider.planned_at_request) < CONCURRENCY and not run.done():
            await asyncio.sleep(0.01)
        provider.release.set()
        while len(provider.planned_at_request) < 3 * CONCURRENCY and not run.done():
            await asyncio.sleep(0.01)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
    finally:
        await serving.aclose()
    return provider, spec.run_dir


def test_first_request_leaves_before_the_plan_is_complete(
    large_suite: Suite, counter: PlannedCounter, tmp_path: Path
) -> None:
    provider, run_dir = asyncio.run(first_requests(large_suite, counter, tmp_path))
    first = provider.planned_at_request[0]
    assert 0 < first <= CONCURRENCY < CASES
    # the manifest counts the whole plan without building it
    assert read_manifest(run_dir).planned == CASES
    # the look-ahead stays bounded: each request finds at most `concurrency` more observations
    # planned than requests made before it (the workers take the next only when they are free)
    for made, planned in enumerate(provider.planned_at_request):
        assert planned <= made + CONCURRENCY + 1
    assert counter.built < CASES // 100


def test_a_cached_suite_on_disk_sends_its_first_request_before_building_its_cases(
    cached_large_suite: Suite, counter: PlannedCounter, tmp_path: Path
) -> None:
    assert len(cached_large_suite.cases) == CASES and counter.cases_built == 0
    provider, run_dir = asyncio.run(first_requests(cached_large_suite, counter, tmp_path))
    # the manifest (the plan's counts, the tool-set pins of every case) was written from the heads
    manifest = read_manifest(run_dir)
    assert manifest.planned == CASES and len(manifest.tool_sets["core"].cases) == CASES
    assert 0 < provider.cases_at_request[0] <= CONCURRENCY + 1
    assert counter.cases_built <= len(provider.cases_at_request) + CONCURRENCY + 1 < CASES // 100
    assert cached_large_suite.cases[CASES - 1].id == f"gen-{CASES - 1:06d}"


@pytest.mark.parametrize("shard", [None, plan.Shard(1, 3), plan.Shard(2, 7)])
@pytest.mark.parametrize("modes", [["selection"], ["stream", "recovery", "forced"]])
def test_lazy_plan_has_the_listed_plans_observations_and_orders(
    shard: plan.Shard | None, modes: list[str]
) -> None:
    suite = load_suite("core")
    targets = [plan.Target(BUILTIN_ENDPOINTS["sim"], model) for model in ("b", "a")]
    listed = [
        p for p in plan.build_plan(targets, suite.cases, 2, modes) if shard is None or shard.owns(p.seq)
    ]
    lazy = plan.Plan(targets, suite.cases, 2, modes, shard)
    assert list(lazy) == listed
    assert list(lazy.in_execution_order()) == plan.execution_order(listed)
    assert len(lazy) == len(listed)
    assert list(lazy.planned_by().items()) == list(plan.planned_by(listed).items())
    assert all(lazy.seq_of(p.key) == p.seq for p in listed)
    done = {p.key for p in listed[::3]}
    recorded = lazy.recorded([*done, *done, ("sim:zzz", suite.cases[0].id, 0, modes[0])])
    assert recorded.count == len(done)
    assert list(recorded.seqs()) == sorted(lazy.seq_of(key) for key in done)
    assert recorded.by_label() == Counter(key[0] for key in done)
    assert list(lazy.in_execution_order(skip=recorded)) == [
        p for p in plan.execution_order(listed) if p.key not in done
    ]
    assert lazy.seq_of(("sim:zzz", suite.cases[0].id, 0, modes[0])) is None
