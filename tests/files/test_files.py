"""Opening and replacing files: regular files only, no links inside run directories, unique
temporary names (real files, FIFOs and devices)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fcbench.errors import InputError, RunStateError
from fcbench.files import open_run_file, open_user_file, replaced_file, write_replacing


def test_the_file_appears_only_once_written(tmp_path: Path) -> None:
    out = tmp_path / "deeper" / "report.json"
    with replaced_file(out) as fh:
        fh.write(b"{}")
        (partial,) = out.parent.iterdir()
        assert not out.exists() and partial.name.startswith(".report.json.")
    assert out.read_bytes() == b"{}"
    assert list(out.parent.iterdir()) == [out]


def test_two_replacers_of_one_file_in_flight_never_share_a_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "catalogue.json"
    target.write_text("old", encoding="utf-8")
    with replaced_file(target) as first:
        first.write(b"first")
        with replaced_file(target) as second:
            second.write(b"second")
        assert target.read_bytes() == b"second"
        first.write(b" and more")
    assert target.read_bytes() == b"first and more"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["catalogue.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "manifest.json"
    write_replacing(target, "old\n")
    with pytest.raises(RuntimeError), replaced_file(target) as fh:
        fh.write(b"half")
        raise RuntimeError("disk full")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.json"]


def test_replacing_a_link_replaces_the_link_not_its_target(tmp_path: Path) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me", encoding="utf-8")
    link = tmp_path / "manifest.json"
    link.symlink_to(precious)
    write_replacing(link, "new")
    assert precious.read_text(encoding="utf-8") == "keep me"
    assert not link.is_symlink() and link.read_text(encoding="utf-8") == "new"


@pytest.mark.parametrize("mode", ["rb", "ab", "a+", "r+b"])
def test_a_link_inside_a_run_directory_is_refused_in_every_mode(tmp_path: Path, mode: str) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_bytes(b"keep me")
    link = tmp_path / "records.jsonl"
    link.symlink_to(precious)
    with pytest.raises(RunStateError, match=r"records\.jsonl: a symbolic link"):
        open_run_file(link, mode)
    assert precious.read_bytes() == b"keep me"


@pytest.mark.parametrize("opener", [open_run_file, open_user_file])
def test_a_fifo_is_refused_at_once_instead_of_blocking(tmp_path: Path, opener: object) -> None:
    fifo = tmp_path / "records.jsonl"
    os.mkfifo(fifo)
    with pytest.raises((RunStateError, InputError), match=r"records\.jsonl: a FIFO, not a regular file"):
        opener(fifo)  # type: ignore[operator]


def test_a_user_file_may_be_a_link_to_a_regular_file_but_not_to_a_device(tmp_path: Path) -> None:
    real = tmp_path / "real.yaml"
    real.write_text("repeats: 1\n", encoding="utf-8")
    (tmp_path / "fcbench.yaml").symlink_to(real)
    with open_user_file(tmp_path / "fcbench.yaml") as fh:
        assert fh.read() == b"repeats: 1\n"
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    with pytest.raises(InputError, match=r"zero\.yaml: a character device, not a regular file"):
        open_user_file(tmp_path / "zero.yaml")


def test_a_missing_file_is_left_to_the_caller(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        open_run_file(tmp_path / "records.jsonl")
    with open_run_file(tmp_path / "records.jsonl", "a", encoding="utf-8") as fh:
        fh.write("created\n")
    assert (tmp_path / "records.jsonl").read_text(encoding="utf-8") == "created\n"
