"""The shortcuts that spare the simulated models whole scans of the text find what the scans find."""

from __future__ import annotations

import json
import math
import re
import sys

from fcbench.mock.sim import lexicon as lx
from fcbench.mock.sim import numbers
from fcbench.mock.sim.schemas import schema_key
from fcbench.mock.sim.strings import countries


def test_a_country_name_any_case_matches_is_in_the_folded_lowered_text() -> None:
    letters = sorted({ch for name in lx.COUNTRY_NAMES for ch in name if ch.isalpha()})
    matcher = re.compile("[" + "".join(re.escape(ch) for ch in letters) + "]", re.I)
    for point in range(sys.maxunicode + 1):
        char = chr(point)
        if matcher.fullmatch(char):
            folded = char.translate(lx.FOLDED_BY_IGNORECASE).lower()
            assert folded in letters, (
                f"{char!r} (U+{point:04X}) matches a name letter but folds to {folded!r}"
            )


def test_countries_are_found_in_non_ascii_text_whatever_the_case() -> None:
    assert [f.value for f in countries("country", "Versand nach DEUTSCHLAND, PLZ 04109")] == ["DE"]
    assert [f.value for f in countries("country", "寄到美国和 İtaly, ſpain")] == ["US", "IT", "ES"]


def test_a_word_no_compound_piece_starts_is_not_split() -> None:
    assert all(len(piece) >= 2 for piece in numbers._COMPOUND_VOCAB)
    assert numbers._split_compound("shipping") is None
    assert numbers._split_compound("fünfundzwanzig") == ["fünf", "und", "zwanzig"]
    assert [n.value for n in numbers.find_numbers("Bitte fünfundzwanzig Stück")] == [25.0]


def test_schema_keys_give_the_schema_back_and_tell_schemas_apart() -> None:
    schemas = [
        {"type": "object", "properties": {"n": {"maximum": 1.5}}},
        {"type": "object", "properties": {"n": {"maximum": 1}}},
        {"properties": {"n": {"maximum": 1}}, "type": "object"},
        {"enum": ["a", None]},
        {"maximum": math.inf},
        {"maximum": None},
        {"minimum": 2**70, "title": "ünïcode \u2028"},
    ]
    keys = [schema_key(schema) for schema in schemas]
    assert len(set(keys)) == len(schemas)
    for schema, key in zip(schemas, keys, strict=True):
        assert json.dumps(json.loads(key)) == json.dumps(schema)
