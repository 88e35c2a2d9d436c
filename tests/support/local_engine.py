"""Whether the ``local`` extra (llama.cpp's server) and the small model can be used by a test.

Tests that need them call :func:`require_engine` / :func:`require_model`: they skip when the extra
or the model is missing, unless ``FCBENCH_REQUIRE_REAL_MODEL=1`` (set by ``.ci/run``, which
installs both), where a missing piece fails the test instead: CI never passes by skipping them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fcbench.local import cache_dir, engine_version, find_model, is_ready, model_path

SMALL_MODEL = "qwen2.5-coder-0.5b"
"""The catalogue model the real-model tests run."""


def _missing(reason: str) -> None:
    if os.environ.get("FCBENCH_REQUIRE_REAL_MODEL") == "1":
        pytest.fail(f"{reason}, and FCBENCH_REQUIRE_REAL_MODEL=1 requires it")
    pytest.skip(reason)


def require_engine() -> str:
    """The xllamacpp version, or skip (fail under FCBENCH_REQUIRE_REAL_MODEL=1)."""
    version = engine_version()
    if version is None:
        _missing("the 'local' extra (xllamacpp) is not installed")
    assert version is not None
    return version


def require_model(name: str = SMALL_MODEL) -> Path:
    """The assembled, verified model file, or skip (fail under FCBENCH_REQUIRE_REAL_MODEL=1)."""
    require_engine()
    model = find_model(name)
    cache = cache_dir(os.environ)
    if not is_ready(model, cache):
        _missing(f"{name} is not assembled in {cache} (run: fcbench local pull {name})")
    return model_path(model, cache)
