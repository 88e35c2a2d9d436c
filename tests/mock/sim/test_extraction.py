"""Schema-driven extraction: numbers in several spellings, units, codes, dates and their renderings."""

from __future__ import annotations

import pytest
import simkit

from fcbench.mock.sim.extract import extract
from fcbench.mock.sim.numbers import find_numbers

QUOTE = next(t for t in simkit.tools() if t.name == "get_shipping_quote").parameters


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("750 grams", 750, "grams"),
        ("1,5 kg", 1.5, "kg"),
        ("10,000 items", 10000, None),
        ("two thousand five hundred grams", 2500, "grams"),
        ("a dozen orders", 12, None),
        ("un kilo", 1, "kilo"),
        ("zehntausend", 10000, None),
        ("fünfundzwanzig kg", 25, "kg"),
        ("查询 limit 为一万的订单", 10000, None),
        ("1万", 10000, None),
        ("$12.50 back", 12.5, "usd"),
    ],
)
def test_numbers_in_many_spellings(text: str, value: float, unit: str | None) -> None:
    found = find_numbers(text)
    assert [(n.value, n.unit) for n in found] == [(value, unit)]


def test_numbers_inside_identifiers_and_postal_codes_are_not_numbers() -> None:
    assert find_numbers("Where is ORD-104821?") == ()
    assert find_numbers("ship to M5V 3L9") == ()


def test_compound_units_add_up() -> None:
    (mention,) = find_numbers("Ship 1 lb 8 oz please")
    assert round(mention.in_base()) == 680


@pytest.mark.parametrize(
    ("text", "careful", "loose"),
    [
        (
            "Quote 750 grams to US postal code 02139.",
            {"country_code": "US", "postal_code": "02139", "weight_grams": 750},
            {"country_code": "us", "postal_code": 2139, "weight_grams": "750"},
        ),
        (
            "Shipping estimate for a 12000 gram box to GB, postcode SW1A 1AA, express.",
            {"country_code": "GB", "postal_code": "SW1A 1AA", "weight_grams": 12000, "service": "express"},
            {"country_code": "gb", "postal_code": "sw1a 1aa", "weight_grams": "12000", "service": "express"},
        ),
        (
            "Bitte 2 kg nach Deutschland, PLZ 04109, Standardversand.",
            {"country_code": "DE", "postal_code": "04109", "weight_grams": 2000, "service": "standard"},
            {"country_code": "de", "postal_code": 4109, "weight_grams": "2", "service": "standardversand"},
        ),
    ],
)
def test_careful_and_loose_renderings(
    text: str, careful: dict[str, object], loose: dict[str, object]
) -> None:
    found = extract(QUOTE, text)
    assert found.complete
    assert found.args("careful") == careful
    assert found.args("loose") == loose


def test_missing_conflicting_and_out_of_range_values() -> None:
    assert extract(QUOTE, "Express to Germany for 750 grams").missing == ("postal_code",)
    clash = extract(QUOTE, "Ship to US 10001, 2 kg or 3 kg")
    assert clash.conflicts == {"weight_grams": (2000, 3000)}
    assert not clash.complete
    heavy = extract(QUOTE, "Quote 60 kg to US 73301")
    assert heavy.values["weight_grams"].value is None
    assert heavy.values["weight_grams"].unbounded == 60000
    assert "weight_grams" in heavy.problems


def test_several_identifiers_fan_out() -> None:
    lookup = next(t for t in simkit.tools() if t.name == "lookup_order").parameters
    found = extract(lookup, "Where are ORD-104821 and ord 104822?")
    assert [f.value for f in found.fanout["order_id"]] == ["ORD-104821", "ORD-104822"]


def test_refs_nested_objects_and_dates() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "when": {"type": "string", "format": "date"},
            "who": {
                "type": "object",
                "properties": {"email": {"type": "string", "format": "email"}, "country": {"type": "string"}},
                "required": ["email"],
            },
        },
        "properties": {"day": {"$ref": "#/$defs/when"}, "contact": {"$ref": "#/$defs/who"}},
        "required": ["day", "contact"],
    }
    found = extract(schema, "Book it for 3 May 2024, contact renée@example.test in France.")
    assert found.args() == {"day": "2024-05-03", "contact": {"email": "renée@example.test", "country": "FR"}}
