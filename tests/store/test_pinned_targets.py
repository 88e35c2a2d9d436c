"""A manifest's targets are typed (:class:`PinnedTarget`) and written back with exactly their keys."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError

from fcbench.config import TargetSettings
from fcbench.endpoints import LOCAL_PLACEHOLDER, MANAGED_SERVICE_NAMES, Endpoint, RunningService
from fcbench.run.pins import pinned_target
from fcbench.run.plan import Target
from fcbench.store.records import MANIFEST_FILE, PinnedTarget, read_manifest, write_manifest

V1 = Path(__file__).resolve().parent / "fixtures" / "run-record-v1"

ENDPOINT = Endpoint(name="lab", dialect="openai-chat", base_url="http://127.0.0.1:1/v1")
"""An endpoint of no API version and the default auth."""


def _targets_on_disk(run_dir: Path) -> list[dict[str, object]]:
    return json.loads((run_dir / MANIFEST_FILE).read_text(encoding="utf-8"))["targets"]


def test_an_older_manifest_is_written_back_with_the_keys_it_had(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(V1, run_dir)
    manifest = read_manifest(run_dir)
    first = manifest.targets[0]
    assert (first.ident, first.shown_name, first.name, first.auth) == (
        "sim:sim-careful",
        "sim:sim-careful",
        None,
        None,
    )
    write_manifest(run_dir, manifest)
    assert _targets_on_disk(run_dir) == _targets_on_disk(V1)
    assert list(_targets_on_disk(run_dir)[0]) == ["label", "endpoint", "dialect", "model", "base_url"]


def test_a_pinned_target_writes_the_keys_a_run_writes(tmp_path: Path) -> None:
    plain = pinned_target(Target(ENDPOINT, "plain"), "lab:plain", {})
    tuned = pinned_target(
        Target(
            ENDPOINT.model_copy(update={"api_version": "2024-10-21"}), "tuned", TargetSettings(strict=True)
        ),
        "tuned",
        {},
    )
    assert plain.model_dump() == {
        "name": "lab:plain",
        "label": "lab:plain",
        "endpoint": "lab",
        "dialect": "openai-chat",
        "model": "plain",
        "base_url": ["http://127.0.0.1:1/v1"],
        "auth": "dialect",
    }
    assert tuned.model_dump()["api_version"] == "2024-10-21"
    assert tuned.settings == {"strict": True} and tuned.shown_name == "tuned"
    run_dir = tmp_path / "run"
    shutil.copytree(V1, run_dir)
    manifest = read_manifest(run_dir).model_copy(update={"targets": [plain, tuned]})
    write_manifest(run_dir, manifest)
    assert _targets_on_disk(run_dir) == [plain.model_dump(), tuned.model_dump()]
    assert read_manifest(run_dir).targets == [plain, tuned]


def test_a_managed_service_is_pinned_beside_its_target() -> None:
    local = Endpoint(name="local", dialect="openai-chat", base_url=LOCAL_PLACEHOLDER + "/v1")
    key = local.service_key("m")
    assert key is not None
    pins = {"engine": "llama.cpp server", "sha256": "ab"}
    entry = pinned_target(Target(local, "m"), "local:m", {key: RunningService("http://127.0.0.1:2", pins)})
    assert entry.service == pins and entry.model_dump()["base_url"] == MANAGED_SERVICE_NAMES["local"]


def test_a_target_entry_of_another_shape_is_refused() -> None:
    with pytest.raises(ValidationError):
        PinnedTarget.model_validate({"endpoint": "lab", "dialect": "openai-chat"})
    with pytest.raises(ValidationError):
        PinnedTarget.model_validate({"endpoint": "lab", "dialect": "d", "model": "m", "headers": {}})
