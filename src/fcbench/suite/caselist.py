"""A suite's cases as a sequence whose cases may be built only when asked for.

A run needs little of each case before its first request: the id, category, tags and label to
select it, whether it is a multi-turn scenario to plan it, its tool set to pin it. That is a
:class:`CaseHead`. A :class:`CaseList` holds one head per case and gives the full
:class:`~fcbench.suite.models.Case` by index: either kept (a fresh load, or any list of cases),
or built from its line of the case file, kept in memory as bytes, when it is first asked for (a
load from the suite cache, :mod:`fcbench.suite.cache`). Building parses the line and validates
it with the case model exactly as a fresh load does, without the checks against other cases and
the tools (the cache stands for those). Cases asked for by index (a run's plan) are kept only
the last few; a pass over the whole list keeps them all.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

import msgspec

from fcbench.errors import CaseError
from fcbench.suite.models import Case
from fcbench.suite.reading import strict_json_loads

BUILT_KEPT = 256
"""Cases built from their lines that a lazy :class:`CaseList` keeps (the most recent ones): the
observations of one case (its modes and targets) are planned one after the other."""


class CaseHead(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """What selecting, planning and pinning need of one case, and where its line is (strings,
    numbers and a tuple of strings only: it can hold no reference cycle, so the garbage collector
    need not track the 10^5 of a large suite)."""

    id: str
    """The case id."""
    category: str
    """``normal``, ``boundary`` or ``adversarial``."""
    tags: tuple[str, ...]
    """The case's tags."""
    pending: bool
    """Whether the case is labelled ``pending`` (expected prefilled, not confirmed)."""
    multi_turn: bool
    """Whether the case is a multi-turn scenario (``recovery`` set)."""
    tool_set: str | None
    """The tool set the case is offered; None: an inline tool list."""
    source: int = -1
    """Index of the case file holding the case's line in the list's sources; -1: none."""
    start: int = 0
    """Byte offset of the line in that file."""
    end: int = 0
    """Byte offset just past the line (its ``\\n`` excluded)."""
    line: int = 0
    """1-based line number of the case in that file (for messages)."""


def head_of(case: Case, source: int = -1, span: tuple[int, int] = (0, 0), line: int = 0) -> CaseHead:
    """The head of ``case`` (at ``span`` of source file ``source``, line ``line``, when given)."""
    return CaseHead(
        case.id,
        case.category,
        tuple(case.tags),
        case.pending,
        case.multi_turn,
        case.tool_set,
        source,
        *span,
        line,
    )


class CaseList(Sequence[Case]):
    """A suite's cases in file order, with their heads; see the module docstring."""

    def __init__(
        self,
        heads: Sequence[CaseHead],
        sources: Sequence[tuple[str, bytes]] = (),
        kept: Sequence[Case] | None = None,
    ) -> None:
        self.heads = heads
        """One head per case, in the same order."""
        self.sources = sources
        """(Name as shown, bytes) of each case file the lines are read from."""
        self._kept = kept
        self._built: dict[int, Case] = {}

    @classmethod
    def of(cls, cases: Sequence[Case]) -> CaseList:
        """The list of ``cases`` as they are (nothing is built later)."""
        if isinstance(cases, CaseList):
            return cases
        kept = list(cases)
        return cls([head_of(case) for case in kept], kept=kept)

    def __len__(self) -> int:
        return len(self.heads)

    @overload
    def __getitem__(self, index: int) -> Case: ...

    @overload
    def __getitem__(self, index: slice) -> CaseList: ...

    def __getitem__(self, index: int | slice) -> Case | CaseList:
        if isinstance(index, slice):
            return self.subset(range(len(self))[index])
        if self._kept is not None:
            return self._kept[index]
        position = range(len(self.heads))[index]  # an IndexError as a list gives one
        built = self._built.get(position)
        if built is None:
            built = self._build(self.heads[position])
            if len(self._built) >= BUILT_KEPT:
                del self._built[next(iter(self._built))]
            self._built[position] = built
        return built

    def __iter__(self) -> Iterator[Case]:
        """Every case; a lazy list builds those not built yet once and keeps them all from then on
        (what reads every case, a report or ``fcbench cases``, reads them again)."""
        if self._kept is None:
            self._kept = [self[index] for index in range(len(self))]
            self._built = {}
        return iter(self._kept)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # mutable-looking like a list: not hashable

    def __repr__(self) -> str:
        return f"CaseList({len(self)} cases)"

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_built": {}}

    def subset(self, positions: Sequence[int]) -> CaseList:
        """The cases at ``positions``, in that order, sharing this list's sources."""
        heads = [self.heads[p] for p in positions]
        kept = [self._kept[p] for p in positions] if self._kept is not None else None
        return CaseList(heads, self.sources, kept)

    def _build(self, head: CaseHead) -> Case:
        name, data = self.sources[head.source] if 0 <= head.source < len(self.sources) else ("?", b"")
        where = f"{name}:{head.line}"
        try:
            text = data[head.start : head.end].removesuffix(b"\r").decode("utf-8")
            case = Case.model_validate(strict_json_loads(text))
        except ValueError as exc:  # a damaged cache entry pointing at the wrong bytes
            raise CaseError(
                f"{where}: the suite cache points at no valid case ({exc}); clear the cache"
            ) from None
        if case.id != head.id:
            raise CaseError(f"{where}: the suite cache names case {head.id!r} here, the file {case.id!r}")
        return case


CaseFacts = CaseHead | Case
"""What selecting, planning and pinning read of a case (``id``, ``category``, ``tags``,
``pending``, ``multi_turn``, ``tool_set``): a case has them all, and so has its head."""


def heads_of(cases: Sequence[Case]) -> Sequence[CaseFacts]:
    """A :class:`CaseList`'s heads, or any other sequence's cases themselves: the facts of each
    case read without building it."""
    return cases.heads if isinstance(cases, CaseList) else cases


def pick(cases: Sequence[Case], positions: Sequence[int]) -> Sequence[Case]:
    """The cases at ``positions``, built no sooner than a :class:`CaseList` builds them."""
    if isinstance(cases, CaseList):
        return cases.subset(positions)
    return [cases[p] for p in positions]


__all__ = ["CaseFacts", "CaseHead", "CaseList", "head_of", "heads_of", "pick"]
