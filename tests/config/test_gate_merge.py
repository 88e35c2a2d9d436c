"""The ``gate:`` block of a config and the gate flags merge into one gate (the flag wins)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcbench.config import CommandLine, GateFlags, load_config
from fcbench.errors import ConfigError

README_GATE = "gate: {minCoverage: 0.95, minPassRateByCategory: {normal: 0.9, boundary: 0.5}, failFast: 3}\n"


@pytest.mark.parametrize(
    "text",
    [
        README_GATE,
        "gate: {min_coverage: 0.95, min_pass_rate_by_category: {normal: 0.9, boundary: 0.5}, fail_fast: 3}\n",
    ],
)
def test_a_camel_or_snake_case_gate_block_merges_with_every_gate_flag(tmp_path: Path, text: str) -> None:
    path = tmp_path / "fcbench.yaml"
    path.write_text(text)
    flags = GateFlags(
        min_coverage=0.5,
        min_pass_rate=0.7,
        min_pass_rate_by_category={"normal": 0.99},
        min_pass_rate_by_tag={"types": 0.8},
        fail_fast=5,
        max_unsafe_writes=2,
    )
    gate = load_config(path, CommandLine(gate=flags)).gate
    assert gate.min_coverage == 0.5
    assert gate.min_pass_rate == 0.7
    # a flag's entry wins over the config's; the config's other entries stay
    assert gate.min_pass_rate_by_category == {"normal": 0.99, "boundary": 0.5}
    assert gate.min_pass_rate_by_tag == {"types": 0.8}
    assert gate.fail_fast == 5
    assert gate.max_unsafe_writes == 2


def test_without_flags_the_config_gate_is_kept_and_unsafe_writes_default_to_zero(tmp_path: Path) -> None:
    path = tmp_path / "fcbench.yaml"
    path.write_text(README_GATE)
    gate = load_config(path, CommandLine(gate=GateFlags(min_coverage=None))).gate
    assert (gate.min_coverage, gate.fail_fast, gate.max_unsafe_writes) == (0.95, 3, 0)
    assert gate.min_pass_rate_by_category == {"normal": 0.9, "boundary": 0.5}


def test_max_unsafe_writes_is_a_gate_key_in_both_spellings(tmp_path: Path) -> None:
    path = tmp_path / "fcbench.yaml"
    for key in ("maxUnsafeWrites", "max_unsafe_writes"):
        path.write_text(f"gate: {{{key}: 4}}\n")
        assert load_config(path).gate.max_unsafe_writes == 4
    path.write_text("gate: {maxUnsafeWrites: -1}\n")
    with pytest.raises(ConfigError, match="max_unsafe_writes|maxUnsafeWrites"):
        load_config(path)


def test_a_key_given_twice_in_one_gate_block_is_still_an_error(tmp_path: Path) -> None:
    path = tmp_path / "fcbench.yaml"
    path.write_text("gate: {minCoverage: 0.9, min_coverage: 0.5}\n")
    with pytest.raises(ConfigError):
        load_config(path)
