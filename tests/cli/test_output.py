"""An output file is written whole or not at all (``fcbench.cli.output.replaced_file``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcbench.cli.output import replaced_file


def test_the_file_appears_only_once_written(tmp_path: Path) -> None:
    out = tmp_path / "deeper" / "report.json"
    with replaced_file(out) as fh:
        fh.write(b"{}")
        assert not out.exists() and out.with_name("report.json.partial").exists()
    assert out.read_bytes() == b"{}"
    assert list(out.parent.iterdir()) == [out]


def test_a_failed_write_leaves_the_older_file_and_no_partial(tmp_path: Path) -> None:
    out = tmp_path / "run.csv"
    out.write_bytes(b"older")
    with pytest.raises(RuntimeError), replaced_file(out) as fh:
        fh.write(b"half")
        raise RuntimeError("the writer failed")
    assert out.read_bytes() == b"older"
    assert list(tmp_path.iterdir()) == [out]
