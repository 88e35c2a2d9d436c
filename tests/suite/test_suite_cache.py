"""The suite cache: the second load of the same files checks nothing, any change or a damaged entry
checks again, an invalid suite fails the same on every load, and a cached load equals a fresh one.

How much was checked is counted (the loader's per-case check and the case model's builds), never timed.
"""

from __future__ import annotations

import json
import pickle
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from fcbench.errors import CaseError
from fcbench.suite import cache as cache_module
from fcbench.suite import caselist, loader
from fcbench.suite.cache import SuiteCache
from fcbench.suite.caselist import CaseList
from fcbench.suite.loader import BUILTIN_DIR, builtin_suites, load_suite
from fcbench.suite.parts import Suite
from fcbench.suite.reading import SuiteError


class Counts:
    """Cases checked by the loader, and cases built from their lines by a cached load."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.checked = 0
        self.built = 0
        check, build = loader.check_case, CaseList._build

        def counted_check(*args: Any) -> Any:
            self.checked += 1
            return check(*args)

        def counted_build(this: CaseList, head: caselist.CaseHead) -> Any:
            self.built += 1
            return build(this, head)

        monkeypatch.setattr(loader, "check_case", counted_check)
        monkeypatch.setattr(CaseList, "_build", counted_build)


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> Counts:
    return Counts(monkeypatch)


@pytest.fixture
def cache(tmp_path: Path) -> SuiteCache:
    """A cache in the test's own folder that keeps suites of any size."""
    return SuiteCache(tmp_path / "cache" / "suites", min_bytes=0)


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    target = tmp_path / "core"
    shutil.copytree(BUILTIN_DIR / "core", target)
    return target


def entries(cache: SuiteCache) -> list[Path]:
    return sorted(cache.folder.glob("*.json")) if cache.folder.is_dir() else []


def same_suite(cached: Suite, fresh: Suite) -> None:
    assert isinstance(cached.cases, CaseList)
    assert [c.id for c in cached.cases] == [c.id for c in fresh.cases]
    assert list(cached.cases) == list(fresh.cases)
    assert cached.dataset_hash == fresh.dataset_hash
    assert (cached.info, cached.system, cached.tool_sets) == (fresh.info, fresh.system, fresh.tool_sets)
    assert (cached.claims, cached.fakes, cached.tool_imports) == (
        fresh.claims,
        fresh.fakes,
        fresh.tool_imports,
    )
    assert cached == fresh


def test_the_second_load_checks_no_case(suite_dir: Path, cache: SuiteCache, counts: Counts) -> None:
    fresh = load_suite(suite_dir, cache=cache)
    assert counts.checked == len(fresh.cases) and len(entries(cache)) == 1
    counts.checked = 0
    cached = load_suite(suite_dir, cache=cache)
    assert counts.checked == 0
    assert counts.built == 0  # nothing is built until a case is asked for
    assert cached.cases[3] == fresh.cases[3] and counts.built == 1
    assert cached.case(fresh.cases[-1].id) == fresh.cases[-1]
    assert list(cached.cases) == list(fresh.cases) == list(cached.cases)
    assert counts.built == len(fresh.cases)  # a whole pass builds the rest once and keeps them


@pytest.mark.parametrize("name", builtin_suites())
def test_a_cached_load_equals_a_fresh_one(name: str, tmp_path: Path, cache: SuiteCache) -> None:
    folder = tmp_path / name
    shutil.copytree(BUILTIN_DIR / name, folder)
    fresh = load_suite(folder, cache=False)
    load_suite(folder, cache=cache)
    same_suite(load_suite(folder, cache=cache), fresh)


def replaced(name: str, old: bytes, new: bytes) -> Any:
    def change(folder: Path) -> None:
        path = folder / name
        data = path.read_bytes() if path.exists() else b""
        path.write_bytes(data.replace(old, new, 1) if old else new)

    return change


@pytest.mark.parametrize(
    "change",
    [
        replaced("cases.jsonl", b"Where is order", b"Where's order"),
        replaced("tools.core.json", b"Find one order", b"Find an order"),
        replaced("system.txt", b"", b"Be brief.\n"),
        replaced("fakes.json", b"", b"{}\n"),
        lambda folder: (folder / "cases.jsonl").write_bytes(
            (folder / "cases.jsonl").read_bytes().replace(b"\n", b"\r\n")
        ),
    ],
    ids=["case", "tool-set", "system", "new-file", "line-endings"],
)
def test_a_changed_file_misses_the_cache(
    suite_dir: Path, cache: SuiteCache, counts: Counts, change: Any
) -> None:
    load_suite(suite_dir, cache=cache)
    change(suite_dir)
    counts.checked = 0
    loaded = load_suite(suite_dir, cache=cache)
    assert counts.checked == len(loaded.cases)
    same_suite(load_suite(suite_dir, cache=cache), load_suite(suite_dir, cache=False))
    assert len(entries(cache)) == 2


def test_a_change_of_the_checking_code_misses_the_cache(
    suite_dir: Path, cache: SuiteCache, counts: Counts, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_suite(suite_dir, cache=cache)
    monkeypatch.setattr(cache_module, "_code_digest", lambda: b"another checker")
    counts.checked = 0
    load_suite(suite_dir, cache=cache)
    assert counts.checked > 0


def damaged_entries(entry: bytes) -> Iterator[bytes]:
    data = json.loads(entry)
    yield b""
    yield entry[: len(entry) // 2]
    yield b"\x80not json"
    yield json.dumps({**data, "format": data["format"] + 1}).encode()
    yield json.dumps({**data, "key": "0" * 64}).encode()
    yield json.dumps({**data, "heads": []}).encode()
    yield json.dumps({**data, "heads": [[*h[:7], h[7] + 10**9, *h[8:]] for h in data["heads"]]}).encode()
    yield json.dumps({**data, "heads": [[h[0], 7, *h[2:]] for h in data["heads"]]}).encode()
    yield json.dumps({**data, "parts": {**data["parts"], "info": {"name": 3}}}).encode()
    yield json.dumps({**data, "parts": {}}).encode()
    yield json.dumps([1, 2, 3]).encode()


def test_a_damaged_or_foreign_entry_is_ignored_and_rebuilt(
    suite_dir: Path, cache: SuiteCache, counts: Counts
) -> None:
    fresh = load_suite(suite_dir, cache=cache)
    (entry,) = entries(cache)
    good = entry.read_bytes()
    for damaged in damaged_entries(good):
        entry.write_bytes(damaged)
        counts.checked = 0
        loaded = load_suite(suite_dir, cache=cache)
        assert counts.checked == len(fresh.cases), damaged[:80]
        same_suite(loaded, fresh)
        assert entry.read_bytes() == good  # written again, whole
        counts.checked = 0
        assert load_suite(suite_dir, cache=cache) == fresh and counts.checked == 0


def test_an_entry_that_is_not_a_file_is_ignored(suite_dir: Path, cache: SuiteCache, counts: Counts) -> None:
    load_suite(suite_dir, cache=cache)
    (entry,) = entries(cache)
    entry.unlink()
    entry.mkdir()
    counts.checked = 0
    assert load_suite(suite_dir, cache=cache).cases
    assert counts.checked > 0  # checked again; the folder in the way is left alone


def test_an_invalid_suite_fails_with_file_and_line_on_every_load(suite_dir: Path, cache: SuiteCache) -> None:
    load_suite(suite_dir, cache=cache)
    lines = (suite_dir / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    broken = json.loads(lines[4])
    broken["expected"] = {"kind": "tool", "name": "no_such_tool"}
    lines[4] = json.dumps(broken)
    (suite_dir / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    messages = []
    for _ in range(3):
        with pytest.raises(SuiteError) as info:
            load_suite(suite_dir, cache=cache)
        messages.append(str(info.value))
    assert len(set(messages)) == 1
    assert f"{suite_dir / 'cases.jsonl'}:5: expected.name: 'no_such_tool' is not a tool" in messages[0]
    assert len(entries(cache)) == 1  # the invalid suite was never written


def test_small_suites_and_the_switch_leave_the_cache_alone(
    suite_dir: Path, tmp_path: Path, counts: Counts
) -> None:
    small = SuiteCache(tmp_path / "small", min_bytes=10**9)
    load_suite(suite_dir, cache=small)
    assert not small.folder.exists()
    assert SuiteCache.from_environment({"FCBENCH_SUITE_CACHE": "off", "FCBENCH_CACHE_DIR": "x"}) is None
    chosen = SuiteCache.from_environment({"FCBENCH_CACHE_DIR": str(tmp_path / "c")})
    assert chosen is not None and chosen.folder == tmp_path / "c" / "suites"


def test_the_user_cache_is_used_by_default(
    suite_dir: Path, tmp_path: Path, counts: Counts, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FCBENCH_SUITE_CACHE", raising=False)  # the test session turns it off
    monkeypatch.setenv("FCBENCH_CACHE_DIR", str(tmp_path / "user-cache"))
    cases = suite_dir / "cases.jsonl"
    models = [json.loads(line) for line in cases.read_text(encoding="utf-8").splitlines()]
    with cases.open("a", encoding="utf-8") as out:  # past the size from which suites are cached
        for copy in range(cache_module.MIN_BYTES // len(cases.read_bytes()) + 1):
            for model in models:
                out.write(json.dumps({**model, "id": f"{model['id']}-{copy}", "paraphrase_of": None}) + "\n")
    load_suite("core")  # a built-in suite by name, small as it is, is kept too
    assert len(list((tmp_path / "user-cache" / "suites").glob("*.json"))) == 1
    counts.checked = 0
    assert load_suite("core").dataset_hash and counts.checked == 0
    load_suite(suite_dir)
    assert list((tmp_path / "user-cache" / "suites").glob("*.json"))
    counts.checked = 0
    load_suite(suite_dir)
    assert counts.checked == 0
    monkeypatch.setenv("FCBENCH_SUITE_CACHE", "off")
    load_suite(suite_dir)
    assert counts.checked > 0


def test_a_cached_case_list_crosses_a_process_boundary(suite_dir: Path, cache: SuiteCache) -> None:
    load_suite(suite_dir, cache=cache)
    cached = load_suite(suite_dir, cache=cache)
    first = cached.cases[0]
    copied = pickle.loads(pickle.dumps(cached))
    assert copied.cases[0] == first and copied == cached


def test_a_case_the_entry_misplaces_is_an_error_naming_file_and_line(
    suite_dir: Path, cache: SuiteCache
) -> None:
    load_suite(suite_dir, cache=cache)
    cached = load_suite(suite_dir, cache=cache)
    assert isinstance(cached.cases, CaseList)
    heads = list(cached.cases.heads)
    misnamed = CaseList([msgspec.structs.replace(heads[0], id=heads[1].id), *heads[1:]], cached.cases.sources)
    with pytest.raises(CaseError, match=r"cases\.jsonl:1: the suite cache names case"):
        misnamed[0]
    elsewhere = CaseList([msgspec.structs.replace(heads[0], start=heads[0].start + 1)], cached.cases.sources)
    with pytest.raises(CaseError, match=r"cases\.jsonl:1: the suite cache points at no valid case"):
        elsewhere[0]
