"""Start llama.cpp's server for one local model, wait until it is healthy, stop it afterwards."""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from fcbench.errors import LocalModelError
from fcbench.local.catalogue import LocalModel, ServedModel
from fcbench.local.serve import MISSING_EXTRA_EXIT

if TYPE_CHECKING:  # httpx loads when a server starts, not for `fcbench local list`
    import httpx

EXTRA_HINT = 'pip install -e ".[local]"  (or: pip install "fcbench[local]")'
"""How to install the optional dependency the local target needs."""

SERVER_ENVIRONMENT = {"OMP_WAIT_POLICY": "PASSIVE"}
"""Set for the server process: without it, OpenMP threads spin and generation on a busy machine
falls from about 10 tokens/s to about 1."""


def engine_version() -> str | None:
    """The installed ``xllamacpp`` version, or None when the ``local`` extra is missing."""
    if importlib.util.find_spec("xllamacpp") is None:
        return None
    try:
        return importlib.metadata.version("xllamacpp")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def require_engine() -> str:
    """The engine version; a :class:`LocalModelError` with the install command when it is missing."""
    version = engine_version()
    if version is None:
        raise LocalModelError(f"local targets need the 'local' extra (llama.cpp's server): {EXTRA_HINT}")
    return version


class LocalServer:
    """llama.cpp's OpenAI-compatible server for one model, on 127.0.0.1, as a context manager.

    Settings: the model's own Jinja chat template, or the shipped template of ``variant``;
    ``ctx`` tokens of context, ``slots`` parallel sequences and ``threads`` CPU threads; the
    server's output goes to ``log_path``.
    """

    def __init__(
        self,
        model: LocalModel,
        model_file: Path,
        *,
        log_path: Path,
        variant: str | None = None,
        ctx: int = 8192,
        threads: int = 2,
        slots: int = 1,
        startup_timeout_s: float = 180.0,
    ) -> None:
        if variant is not None and variant not in model.variants:
            raise LocalModelError(f"{model.name} has no template variant {variant!r}")
        self.model = model
        self.served = ServedModel(model, variant)
        self.model_file = model_file
        self.log_path = log_path
        self.settings: dict[str, Any] = {"jinja": True, "ctx": ctx, "threads": threads, "slots": slots}
        self.settings["environment"] = dict(SERVER_ENVIRONMENT)
        self.startup_timeout_s = startup_timeout_s
        self.url = ""
        self.props: dict[str, Any] = {}
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> LocalServer:
        version = require_engine()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="fcbench-local-") as tmp:
            address_file = Path(tmp) / "address"
            command = [
                sys.executable, "-m", "fcbench.local.serve",
                "--model", str(self.model_file), "--alias", self.served.name,
                "--address-file", str(address_file),
                "--ctx", str(self.settings["ctx"]), "--threads", str(self.settings["threads"]),
                "--slots", str(self.settings["slots"]),
            ]  # fmt: skip
            template = self.served.template
            if template is not None:
                template_file = Path(tmp) / template.template
                template_file.write_text(template.text(), encoding="utf-8")
                command += ["--chat-template-file", str(template_file)]
            with self.log_path.open("ab") as log:
                self._process = subprocess.Popen(
                    command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **SERVER_ENVIRONMENT}
                )
            try:
                self.url = self._wait_ready(address_file)
            except BaseException:
                self.stop()
                raise
        self.settings["engine"] = f"llama.cpp server (xllamacpp {version})"
        return self

    def _wait_ready(self, address_file: Path) -> str:
        import httpx

        assert self._process is not None
        deadline = time.monotonic() + self.startup_timeout_s
        url = ""
        with httpx.Client(timeout=5.0, trust_env=False) as client:
            while time.monotonic() < deadline:
                status = self._process.poll()
                if status is not None:
                    if status == MISSING_EXTRA_EXIT:
                        raise LocalModelError(
                            f"llama.cpp's server could not load xllamacpp (the 'local' extra): {EXTRA_HINT}"
                        )
                    raise LocalModelError(
                        f"llama.cpp's server for {self.model.name} exited with status {status} before it was "
                        f"ready; its last lines:\n{self._log_tail()}"
                    )
                if not url and address_file.is_file():
                    url = address_file.read_text(encoding="utf-8").strip().rstrip("/")
                if url:
                    try:
                        if client.get(f"{url}/health").status_code == 200:
                            self.props = self._read_props(client, url)
                            return url
                    except httpx.HTTPError:
                        pass
                time.sleep(0.2)
        raise LocalModelError(
            f"llama.cpp's server for {self.model.name} was not healthy after {self.startup_timeout_s:.0f} s; "
            f"its last lines:\n{self._log_tail()}"
        )

    @staticmethod
    def _read_props(client: httpx.Client, url: str) -> dict[str, Any]:
        """What the server says about itself, pinned in the manifest (the template by its hash)."""
        import httpx

        try:
            props = client.get(f"{url}/props").json()
        except (httpx.HTTPError, ValueError):
            return {}
        if not isinstance(props, dict):
            return {}
        template = props.get("chat_template")
        settings = props.get("default_generation_settings")
        return {
            "build_info": props.get("build_info"),
            "chat_template_sha256": hashlib.sha256(template.encode()).hexdigest()
            if isinstance(template, str)
            else None,
            "n_ctx": settings.get("n_ctx") if isinstance(settings, dict) else None,
        }

    def _log_tail(self, lines: int = 8) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.strip().splitlines()[-lines:])

    def pins(self) -> dict[str, Any]:
        """What a run's manifest pins about this server: model, checksum, chat template, engine,
        settings. ``chat_template_sha256`` is the shipped variant's hash, else the hash of the
        template the server reports (the model's own)."""
        template = self.served.template
        return {
            "managed": "local",
            "model": self.model.name,
            "file": self.model.file,
            "sha256": self.model.sha256,
            "template_variant": self.served.variant,
            "chat_template_sha256": template.sha256() if template else self.props.get("chat_template_sha256"),
            **self.settings,
            "props": self.props,
        }

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 10 s)."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
