"""Errors fcbench raises for bad input, bad configuration and harness failures.

Model misbehaviour is never an exception: it is data in the outcome and its anomalies.

::

    FcbenchError                      exit code 2 at the CLI unless stated otherwise
    ├── InputError                    a user file is malformed (carries file and line)
    │   ├── CaseError                 a case or suite file is invalid
    │   └── ConfigError               a config file or flag is invalid (carries the key)
    ├── TargetError                   unknown endpoint or dialect, or a missing API key variable
    │   └── LocalModelError           a managed local model cannot be fetched, verified or started
    └── RunStateError                 a run directory cannot be resumed or merged

Every class drawn here is raised somewhere (``tests/test_one_definition.py`` checks it). A provider
that cannot be reached is no exception: the exchange ends as a ``provider_error`` outcome
(``timeout``, ``server``, ...), coverage lost rather than a run stopped.
"""

from __future__ import annotations


class FcbenchError(Exception):
    """Base of every error fcbench raises on purpose; its message is meant for the user."""

    exit_code: int = 2


class InputError(FcbenchError):
    """A user-supplied file is malformed; the message names the file and, where known, the line."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None) -> None:
        self.path = path
        self.line = line
        where = path or ""
        if path and line is not None:
            where = f"{path}:{line}"
        super().__init__(f"{where}: {message}" if where else message)


class CaseError(InputError):
    """A case, tool or suite file is invalid."""


class ConfigError(InputError):
    """A configuration file or command-line option is invalid; ``key`` names the offending key."""

    def __init__(self, message: str, *, path: str | None = None, key: str | None = None) -> None:
        self.key = key
        super().__init__(f"{key}: {message}" if key else message, path=path)


class TargetError(FcbenchError):
    """An endpoint or dialect is unknown, or an endpoint's API key variable is not set."""


class LocalModelError(TargetError):
    """A managed local model cannot be fetched, assembled, verified or served (the message says how
    to fix it: the install command, the expected checksum, the server's last log lines)."""


class RunStateError(FcbenchError):
    """A run directory cannot be resumed, merged or compared as asked."""
