"""How fcbench opens and replaces files: the one place that decides what a file may be.

Two kinds of file come in from outside:

- a **user file** (``--config``, a suite, cases): the user named it, so a symbolic link is followed,
  but it must be a regular file. A FIFO or a device would block a reader forever (or feed it
  without end), so the file is opened with ``O_NONBLOCK`` (opening a FIFO then returns at once),
  checked with ``fstat`` and refused with an :class:`~fcbench.errors.InputError` naming it.
- a **run-directory file** (``records.jsonl``, ``blobs.jsonl.gz``, ``manifest.json``, ``.lock``,
  ``config.json``): run directories travel (CI artifacts, a colleague's baseline), so a file in one
  is data from someone else. It is opened with ``O_NOFOLLOW`` as well (a link inside the directory
  is refused, never followed: a linked ``records.jsonl`` would let a resume append to any file the
  user can write) and must be a regular file; a refusal is a :class:`~fcbench.errors.RunStateError`.

Every file fcbench writes whole goes through :func:`replaced_file`: a temporary file with a unique
name in the same folder (two writers never share one), flushed and fsynced, then renamed over the
target, so a reader sees the old file or the new one, never half of one. A rename replaces a link
itself, never the file it points to.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from fcbench.errors import FcbenchError, InputError, RunStateError

_MODES: dict[str, int] = {
    "r": os.O_RDONLY,
    "r+": os.O_RDWR,
    "a": os.O_WRONLY | os.O_APPEND | os.O_CREAT,
    "a+": os.O_RDWR | os.O_APPEND | os.O_CREAT,
}
"""Open modes (without ``b``) -> ``os.open`` flags."""

_KINDS: dict[int, str] = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
    stat.S_IFLNK: "a symbolic link",
}
"""File types by ``stat`` format bits, for the messages."""


def kind_of(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words (``a FIFO``)."""
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def _open_regular(path: Path, mode: str, *, follow: bool, error: type[FcbenchError], **text: Any) -> IO[Any]:
    base = mode.replace("b", "")
    flags = _MODES[base] | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags, 0o644)
    except FileNotFoundError:
        raise
    except NotADirectoryError as exc:  # a path below a file: no such file either
        raise FileNotFoundError(exc.errno, exc.strerror, str(path)) from None
    except OSError as exc:
        raise _refusal(path, exc, follow=follow, error=error) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _error(error, path, f"{kind_of(info.st_mode)}, not a regular file; refused")
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(fd, mode, **text)
    except BaseException:
        os.close(fd)
        raise


def _error(error: type[FcbenchError], path: Path, message: str) -> FcbenchError:
    return error(message, path=str(path)) if issubclass(error, InputError) else error(f"{path}: {message}")


def _refusal(path: Path, exc: OSError, *, follow: bool, error: type[FcbenchError]) -> FcbenchError:
    if not follow and os.path.islink(path):
        return _error(
            error,
            path,
            "a symbolic link inside a run directory, refused (a run directory holds its own files; "
            "links are never followed)",
        )
    with contextlib.suppress(OSError):
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return _error(error, path, f"{kind_of(info.st_mode)}, not a regular file; refused")
    return _error(error, path, f"cannot be opened: {exc.strerror or exc}")


def open_user_file(path: Path, mode: str = "rb", **text: Any) -> IO[Any]:
    """Open a file the user named (links followed) if it is a regular file; else :class:`InputError`.

    ``FileNotFoundError`` passes through, for the caller's own message."""
    return _open_regular(path, mode, follow=True, error=InputError, **text)


def open_run_file(path: Path, mode: str = "rb", **text: Any) -> IO[Any]:
    """Open a file inside a run directory: never through a link, and only a regular file; else
    :class:`RunStateError` naming it. ``FileNotFoundError`` passes through (a file not made yet).

    ``mode`` is ``r``, ``r+``, ``a`` or ``a+``, with ``b`` for bytes (``text`` holds ``encoding``)."""
    return _open_regular(path, mode, follow=False, error=RunStateError, **text)


def read_run_bytes(path: Path, *, missing: str | None = None) -> bytes:
    """The whole content of a run-directory file (see :func:`open_run_file`); a missing file is
    :class:`RunStateError` ``missing`` when given, else ``FileNotFoundError``."""
    try:
        fh = open_run_file(path)
    except FileNotFoundError:
        if missing is None:
            raise
        raise RunStateError(missing) from None
    with fh:
        data: bytes = fh.read()
    return data


def check_user_path(path: Path) -> None:
    """Refuse a user-named input that exists but is a FIFO, device or socket (a folder is fine, and
    so is a missing path: the caller reports those). Checks what a link points to."""
    with contextlib.suppress(OSError):
        info = os.stat(path)
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
            raise InputError(f"{kind_of(info.st_mode)}, not a regular file; refused", path=str(path))


@contextlib.contextmanager
def replaced_file(path: Path) -> Iterator[IO[bytes]]:
    """A binary file that becomes ``path`` when the block ends without an error.

    It is written beside ``path`` under a unique temporary name (``.NAME.*.partial``), flushed and
    fsynced, then renamed over ``path`` (a link at ``path`` is replaced, not followed); a failed or
    interrupted write leaves no half file and an older ``path`` as it was."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    partial = Path(name)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(partial, 0o644)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def write_replacing(path: Path, data: bytes | str) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8) through :func:`replaced_file`."""
    with replaced_file(path) as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)


__all__ = [
    "check_user_path",
    "kind_of",
    "open_run_file",
    "open_user_file",
    "read_run_bytes",
    "replaced_file",
    "write_replacing",
]
