"""Starting llama.cpp's server: clear errors when the engine is missing or cannot load a model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from local_engine import require_engine

from fcbench.errors import LocalModelError
from fcbench.local import EXTRA_HINT, LocalServer, find_model
from fcbench.local import server as server_module

FCBENCH = [sys.executable, "-m", "fcbench"]


def fake_ready_cache(cache: Path, name: str = "qwen2.5-coder-0.5b", data: bytes = b"not a model") -> Path:
    """A cache folder where ``name`` looks assembled and verified (the file itself is junk)."""
    model = find_model(name)
    path = cache / "models" / model.file
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    path.with_name(path.name + ".sha256").write_text(f"{model.sha256} {len(data)}\n")
    return path


def test_missing_extra_is_named_before_anything_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_module.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(LocalModelError) as caught:
        server_module.require_engine()
    assert EXTRA_HINT in str(caught.value)


def test_run_without_a_loadable_engine_exits_2_with_the_install_command(tmp_path: Path) -> None:
    """The server process cannot import xllamacpp (a stand-in that fails to import shadows it)."""
    shim = tmp_path / "shim" / "xllamacpp"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("raise ImportError('no engine here')\n")
    fake_ready_cache(tmp_path / "cache")
    env = {**os.environ, "PYTHONPATH": str(shim.parent), "FCBENCH_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [*FCBENCH, "run", "-t", "local:qwen2.5-coder-0.5b", "--out", str(tmp_path / "runs"), "--sample", "1"],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert 'pip install -e ".[local]"' in done.stderr
    assert "Traceback" not in done.stderr


def test_a_file_llama_cpp_cannot_load_is_reported_with_the_server_log(tmp_path: Path) -> None:
    require_engine()
    path = fake_ready_cache(tmp_path / "cache", data=os.urandom(4096))
    log = tmp_path / "server.log"
    server = LocalServer(find_model("qwen2.5-coder-0.5b"), path, log_path=log, startup_timeout_s=60)
    with pytest.raises(LocalModelError, match="exited with status 1") as caught, server:
        pass
    assert "could not start" in str(caught.value)  # the log's last lines are in the message
    assert "could not start" in log.read_text()


def test_unknown_local_model_is_a_clear_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [*FCBENCH, "run", "-t", "local:no-such-model", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "unknown local model 'no-such-model'" in done.stderr
    assert "qwen2.5-coder-0.5b" in done.stderr


def test_a_variant_the_model_lacks_is_refused_before_anything_starts(tmp_path: Path) -> None:
    with pytest.raises(LocalModelError, match="no template variant 'bare'"):
        LocalServer(
            find_model("qwen2.5-coder-0.5b"), tmp_path / "m.gguf", log_path=tmp_path / "log", variant="bare"
        )


def test_an_unknown_variant_target_exits_2_naming_the_known_ones(tmp_path: Path) -> None:
    done = subprocess.run(
        [*FCBENCH, "run", "-t", "local-anthropic:qwen2.5-coder-0.5b@bare", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "unknown template variant 'bare'" in done.stderr and "qwen2.5-coder-0.5b@json-fence" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_pins_name_the_variant_and_its_template_hash(tmp_path: Path) -> None:
    """Even when the server never got ready (a file llama.cpp cannot load); that the server runs the
    shipped template is checked against its /props in tests/local/test_real_model.py."""
    require_engine()
    path = fake_ready_cache(tmp_path / "cache", data=os.urandom(4096))
    model = find_model("qwen2.5-coder-0.5b")
    server = LocalServer(
        model, path, log_path=tmp_path / "server.log", variant="json-fence", startup_timeout_s=60
    )
    with pytest.raises(LocalModelError, match="exited with status 1"), server:
        pass
    pins = server.pins()
    assert pins["template_variant"] == "json-fence"
    assert pins["chat_template_sha256"] == model.variants["json-fence"].sha256()
    own = LocalServer(model, path, log_path=tmp_path / "own.log").pins()
    assert own["template_variant"] is None and own["chat_template_sha256"] is None  # known once it serves
