"""The suite cache: a suite folder's checked form, kept so the next load skips the checks.

Checking a suite takes time in proportion to its cases (about 10 µs to 0.1 ms each: JSON, the
case model, every expected call against its tool's schema, the ids), so a 10^5-case suite took
seconds before a run could send anything. Once a folder suite has been loaded and found valid,
its checked form is written to ``<cache>/suites/<key>.json`` (``<cache>`` as for local models:
``$FCBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/fcbench``, else ``~/.cache/fcbench``), and the next
load of the same bytes reads it instead of checking again: the suite's identity, system prompt,
tool sets, claim rules, scripted fakes and dataset hash, and one :class:`~fcbench.suite.caselist.CaseHead`
per case (what selecting and planning need, and where the case's line is). The cases themselves
are built from the suite's own lines when the run asks for them (:class:`~fcbench.suite.caselist.CaseList`).

- The key is a SHA-256 over the entry format, the fcbench version, the source of the packages
  that decide what a valid suite is (``suite``, ``contract``, ``schema``), the pydantic version,
  and every file the loader reads, by name and raw bytes: any change of a file, or of the code
  that checks it, misses the cache.
- Only a suite found valid is written (an invalid one raises before), so an error is reported
  the same, with its file and line, on every load.
- An entry is data, read with a typed decoder (never pickle): an entry that does not decode, is
  of another format or key, or whose heads point outside the files, is ignored and the suite is
  checked and written again.
- One-file suites and suites with tool sets from MCP servers are checked every time.
  ``FCBENCH_SUITE_CACHE=off`` turns the cache off; deleting ``<cache>/suites`` clears it.
- Writes replace the entry atomically (:func:`fcbench.files.write_replacing`); a cache folder that
  cannot be written only means the next load checks again.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pydantic
from pydantic import TypeAdapter

from fcbench import __version__
from fcbench.contract import Tool
from fcbench.files import write_replacing
from fcbench.suite.caselist import CaseHead, CaseList
from fcbench.suite.fakes import ToolScript
from fcbench.suite.imports import ToolImport
from fcbench.suite.models import ClaimRules, SuiteInfo
from fcbench.suite.parts import Suite

FORMAT = 1
"""Version of the entry layout; an entry of another one is ignored."""
MIN_BYTES = 0
"""Case files smaller than this together are not cached. Every folder suite is: even the built-in
``core`` suite's check takes about 0.2 s (its tool schemas against the JSON Schema meta-schema, its
expected calls against the tools), reading its entry about 0.02 s."""
SWITCH_ENV = "FCBENCH_SUITE_CACHE"
"""``off`` (or ``0``, ``no``, ``false``) turns the suite cache off."""
OFF_VALUES = frozenset({"off", "0", "no", "false"})
CODE_PACKAGES = ("suite", "contract", "schema")
"""The packages of fcbench whose source is part of the key (what decides a suite's checked form)."""
FOLDER = "suites"
"""The cache's subfolder holding the entries."""

_TOOL_SETS = TypeAdapter(dict[str, list[Tool]])
_FAKES = TypeAdapter(dict[str, ToolScript])
_IMPORTS = TypeAdapter(list[ToolImport])


class CacheEntry(msgspec.Struct, frozen=True):
    """One cached suite, as stored."""

    format: int
    """:data:`FORMAT` of the writer."""
    key: str
    """The key it was written under (checked against the file name's)."""
    dataset_hash: str
    """The suite's dataset hash (:mod:`fcbench.suite.loader`)."""
    parts: dict[str, Any]
    """The suite's parts besides its cases, as JSON: info, system, tool_sets, claims, fakes, tool_imports."""
    case_files: list[str]
    """The files the cases' lines are in (the index of :attr:`CaseHead.source`)."""
    heads: list[CaseHead]
    """One per case, in file order."""


_DECODER = msgspec.json.Decoder(CacheEntry)
_ENCODER = msgspec.json.Encoder()


def _code_digest() -> bytes:
    """SHA-256 over the source files of :data:`CODE_PACKAGES`, by relative path and bytes."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(pydantic.VERSION.encode())
    for package in CODE_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.digest()


@dataclass(frozen=True)
class SuiteCache:
    """Where suite cache entries live, and from what size of case files a suite is cached."""

    folder: Path
    """The folder holding the entries (``<cache>/suites``)."""
    min_bytes: int = MIN_BYTES
    """Case files smaller than this together are not cached."""

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> SuiteCache | None:
        """The user's suite cache; None when :data:`SWITCH_ENV` turns it off."""
        env = os.environ if environ is None else environ
        if env.get(SWITCH_ENV, "").strip().lower() in OFF_VALUES:
            return None
        from fcbench.local.assemble import cache_dir  # the one choice of fcbench's cache folder

        return cls(cache_dir(env) / FOLDER)

    def worth_it(self, case_bytes: int) -> bool:
        """Whether case files of ``case_bytes`` bytes together are cached."""
        return case_bytes >= self.min_bytes

    @staticmethod
    def key(files: Sequence[tuple[str, bytes]]) -> str:
        """The key of a suite whose loader reads ``files`` (name, raw bytes), in name order."""
        digest = hashlib.sha256(f"fcbench suite cache {FORMAT} {__version__}\0".encode())
        digest.update(_code_digest())
        for name, data in sorted(files, key=lambda file: file[0]):
            digest.update(name.encode("utf-8") + b"\0" + len(data).to_bytes(8, "big"))
            digest.update(data)  # on its own: a 50 MB file is not copied to be hashed
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def read(self, key: str, path: Path, case_files: Mapping[str, bytes]) -> Suite | None:
        """The suite cached under ``key`` (its folder ``path``, its case files' bytes by name);
        None when there is no usable entry."""
        try:
            data = self._path(key).read_bytes()
        except OSError:
            return None
        try:
            entry = _DECODER.decode(data)
            if entry.format != FORMAT or entry.key != key:
                return None
            sources = [(str(path / name), case_files[name]) for name in entry.case_files]
            if not entry.heads or not _heads_fit(entry.heads, [len(data) for _, data in sources]):
                return None
            parts = entry.parts
            return Suite(
                path=path,
                info=SuiteInfo.model_validate(parts["info"]),
                system=str(parts["system"]),
                tool_sets=_TOOL_SETS.validate_python(parts["tool_sets"]),
                cases=CaseList(entry.heads, sources),
                dataset_hash=entry.dataset_hash,
                claims=ClaimRules.model_validate(parts["claims"]),
                fakes=_FAKES.validate_python(parts["fakes"]),
                tool_imports=_IMPORTS.validate_python(parts["tool_imports"]),
            )
        except (msgspec.DecodeError, pydantic.ValidationError, KeyError, TypeError, ValueError):
            return None

    def write(self, key: str, suite: Suite, case_files: Sequence[str]) -> None:
        """Keep ``suite`` (just checked, its cases a :class:`CaseList` over ``case_files``) under ``key``."""
        cases = suite.cases
        if not isinstance(cases, CaseList):
            return
        parts = {
            "info": suite.info.model_dump(mode="json"),
            "system": suite.system,
            "tool_sets": _TOOL_SETS.dump_python(suite.tool_sets, mode="json"),
            "claims": suite.claims.model_dump(mode="json"),
            "fakes": _FAKES.dump_python(suite.fakes, mode="json"),
            "tool_imports": _IMPORTS.dump_python(suite.tool_imports, mode="json"),
        }
        entry = CacheEntry(FORMAT, key, suite.dataset_hash, parts, list(case_files), list(cases.heads))
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_replacing(self._path(key), _ENCODER.encode(entry))
        except OSError:
            return  # a cache that cannot be written: the next load checks again


def _heads_fit(heads: Sequence[CaseHead], sizes: Sequence[int]) -> bool:
    """Whether every head's line lies inside its case file."""
    count = len(sizes)
    return all(0 <= h.source < count and 0 <= h.start <= h.end <= sizes[h.source] for h in heads)


__all__ = ["MIN_BYTES", "SWITCH_ENV", "CacheEntry", "SuiteCache"]
