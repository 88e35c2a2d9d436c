"""What ``fcbench view`` knows of every observation of a run, built in the pass that summarises it,
so that a filter or a search answers from memory and a page of rows reads only its own lines.

Per observation the table keeps a few integers: its line's byte range
(:class:`~fcbench.store.index.RecordOffsets`), its *signature* (the values every filter but the
case and the search looks at: column, mode, category, tags, decision, result, anomalies,
failure type), its case
and its search text, each of the last three a number into a table of distinct values. A filter is
matched against the distinct signatures (a few hundred), then the observations of the matching ones
are taken; a search looks for the text in each distinct search text once. Memory is a few tens of
bytes per observation plus the distinct texts.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench.store.index import RecordOffsets

Signature = tuple[str, str, str, tuple[str, ...], str, str, tuple[str, ...], str]
"""(column, mode, category, tags, decision, result, anomalies, failure type) of an observation."""

_SIGNATURE_CHECKS: dict[str, Callable[[Signature, str], bool]] = {
    "target": lambda s, v: s[0] == v,
    "mode": lambda s, v: s[1] == v,
    "category": lambda s, v: s[2] == v,
    "tag": lambda s, v: v in s[3],
    "decision": lambda s, v: s[4] == v,
    "result": lambda s, v: s[5] == v,
    "anomaly": lambda s, v: v in s[6],
    "failure": lambda s, v: s[7] == v or s[7].split(":")[0] == v,
}
"""How each filter of the page reads a signature (``case`` and ``q`` are matched apart)."""


def _intern(table: dict[Any, int], value: Any) -> int:
    found = table.get(value)
    if found is None:
        found = table[value] = len(table)
    return found


@dataclass
class ObservationTable:
    """Every observation of one run, as the viewer's filters and search read it."""

    offsets: RecordOffsets = field(default_factory=RecordOffsets)
    """Where each observation's line is in ``records.jsonl``."""
    signatures: dict[Signature, int] = field(default_factory=dict)
    """Each distinct signature and its number."""
    by_signature: list[array[int]] = field(default_factory=list)
    """The observation numbers of each signature, ascending."""
    cases: dict[str, int] = field(default_factory=dict)
    """Each case id and its number."""
    case_of: array[int] = field(default_factory=lambda: array("l"))
    """The case number of each observation."""
    texts: dict[str, int] = field(default_factory=dict)
    """Each distinct search text (lower-cased) and its number."""
    text_of: array[int] = field(default_factory=lambda: array("l"))
    """The search text number of each observation."""

    def add(self, row: dict[str, Any], text: str) -> None:
        """Add the next observation: its row (with its ``column``) and its search text."""
        signature: Signature = (
            row["column"],
            row["mode"],
            row["category"],
            tuple(row["tags"]),
            row["decision"],
            row["result"],
            tuple(row["anomalies"]),
            row.get("failure") or "",
        )
        number = _intern(self.signatures, signature)
        if number == len(self.by_signature):
            self.by_signature.append(array("q"))
        self.by_signature[number].append(row["n"])
        self.case_of.append(_intern(self.cases, row["case_id"]))
        self.text_of.append(_intern(self.texts, text))

    def __len__(self) -> int:
        return len(self.case_of)

    def matching(self, f: dict[str, str], order: tuple[str, ...]) -> list[int]:
        """The numbers of the observations passing the filters ``f``, grouped by result in ``order``
        and by number within each group."""
        checks = [
            (_SIGNATURE_CHECKS[name], value)
            for name, value in f.items()
            if name in _SIGNATURE_CHECKS and value
        ]
        groups: dict[str, list[array[int]]] = {result: [] for result in order}
        for signature, number in self.signatures.items():
            if signature[5] in groups and all(check(signature, value) for check, value in checks):
                groups[signature[5]].append(self.by_signature[number])
        keep = self._row_filter(f)
        found: list[int] = []
        for result in order:
            numbers = sorted(n for part in groups[result] for n in part)
            found.extend(numbers if keep is None else filter(keep, numbers))
        return found

    def _row_filter(self, f: dict[str, str]) -> Callable[[int], bool] | None:
        """The check of the case and search filters on an observation number (None: no such filter)."""
        case = f.get("case")
        query = (f.get("q") or "").lower()
        if not case and not query:
            return None
        case_number = self.cases.get(case, -1) if case else None
        texts = {number for text, number in self.texts.items() if query in text} if query else None
        case_of, text_of = self.case_of, self.text_of

        def keep(n: int) -> bool:
            return (case_number is None or case_of[n] == case_number) and (
                texts is None or text_of[n] in texts
            )

        return keep

    def fresh(self, records: Path) -> bool:
        """Whether ``records.jsonl`` is still the file indexed."""
        return self.offsets.fresh(records)


__all__ = ["ObservationTable", "Signature"]
