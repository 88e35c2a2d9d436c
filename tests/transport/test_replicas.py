"""An endpoint with several base URLs (replicas) spreads its requests across all of them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import yaml

from fcbench.mock.server import MockServer
from fcbench.store.blobs import expand_blobs, load_blobs


def test_requests_are_balanced_across_replicas(
    tmp_path: Path, mock_server_factory: Callable[..., MockServer]
) -> None:
    replicas = [mock_server_factory(), mock_server_factory()]
    config = {
        "endpoints": {
            "cluster": {
                "dialect": "openai-chat",
                "base_url": [f"{s.url}/v1" for s in replicas],
                "api_key_env": "CLUSTER_KEY",
                "local": True,
                "max_concurrency": 4,
            }
        },
        "targets": ["cluster:sim-careful"],
        "repeats": 2,
        "tags": ["selection"],
    }
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump(config))
    proc = subprocess.run(
        [sys.executable, "-m", "fcbench", "run", "--no-progress", "--config", str(path)],
        cwd=tmp_path,
        capture_output=True,
        env={**os.environ, "CLUSTER_KEY": "replica-test-key"},
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr
    run_dir = next((tmp_path / "runs").iterdir())
    blobs = load_blobs(run_dir)
    rows = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    assert rows and all(r["outcome"]["kind"] != "provider_error" for r in rows)
    urls = Counter(expand_blobs(r["raw"], blobs)["request"]["url"].split("/v1")[0] for r in rows)
    assert set(urls) == {s.url for s in replicas}
    assert abs(urls[replicas[0].url] - urls[replicas[1].url]) <= 1
