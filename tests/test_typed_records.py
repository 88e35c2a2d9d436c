"""Records are read as typed views above the store: no dict read of a record field outside ``store/``.

Scans ``src/fcbench`` with :mod:`ast` for ``NAME["field"]`` and ``NAME.get("field")`` where NAME is a
name records are held under (``rec``, ``record``, ``r``, ``line``) and ``field`` a field of
:class:`fcbench.store.records.Record`.
"""

from __future__ import annotations

import ast
from pathlib import Path

from fcbench.store.records import Record

SRC = Path(__file__).resolve().parents[1] / "src" / "fcbench"
RECORD_NAMES = frozenset({"rec", "record", "r", "line"})
"""Names a record is held under."""
FIELDS = frozenset(Record.model_fields)


def dict_reads(source: str) -> list[tuple[int, str]]:
    """(line, text) of each dict read of a record field in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        target, key = None, None
        if isinstance(node, ast.Subscript):
            target, key = node.value, node.slice
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
        ):
            target, key = node.func.value, node.args[0]
        if (
            isinstance(target, ast.Name)
            and target.id in RECORD_NAMES
            and isinstance(key, ast.Constant)
            and key.value in FIELDS
        ):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_scan_finds_dict_reads_of_record_fields() -> None:
    source = 'a = rec["verdict"]\nb = record.get("outcome")\nc = r.get("nothing")\n'
    source += 'd = view.verdict\ne = x["case_id"]\n'
    assert dict_reads(source) == [(1, "rec['verdict']"), (2, "record.get('outcome')")]


def test_no_dict_reads_of_records_outside_the_store() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("store/"):
            continue
        found += [f"{rel}:{line}: {text}" for line, text in dict_reads(path.read_text(encoding="utf-8"))]
    assert not found, "records read as dicts (read a fcbench.store.view.RecordView instead):\n" + "\n".join(
        found
    )
