"""The fake shipping-quote tool.

``get_shipping_quote(country_code, postal_code, weight_grams, service?)`` prices a parcel from
the data set's zones: a base price plus a price per started 500 g, times the express factor for
``express``. A country outside the zones is ``NOT_FOUND``; a postal code that does not fit the
country's format (for example a US ZIP code that lost its leading zero) is ``INVALID_ARGUMENTS``
even though the schema (a plain string) accepted it.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

from fcbench.fake_tools.results import ToolFailure, fail, ok
from fcbench.fake_tools.store import CallContext, FakeStore

GRAMS_PER_STEP = 500


def _zone(store: FakeStore, country: str) -> dict[str, Any]:
    zone = store.zones.get(country)
    if zone is None:
        served = ", ".join(sorted(store.zones))
        raise ToolFailure(
            fail(
                "NOT_FOUND",
                f"No shipping service to country {country}. Served countries: {served}.",
                [f"country_code: {country!r} is not served"],
            )
        )
    return zone


def _check_postal_code(zone: dict[str, Any], country: str, postal_code: str) -> None:
    pattern = zone.get("postal_pattern")
    if pattern and not re.fullmatch(str(pattern), postal_code):
        hint = zone.get("postal_hint", "see the country's postal format")
        raise ToolFailure(
            fail(
                "INVALID_ARGUMENTS",
                f"{postal_code!r} is not a valid {country} postal code.",
                [f"postal_code: {postal_code!r} is not a valid {country} postal code ({hint})"],
            )
        )


def get_shipping_quote(store: FakeStore, args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Price and delivery window for one parcel."""
    country = str(args.get("country_code", ""))
    postal_code = str(args.get("postal_code", ""))
    weight = args.get("weight_grams")
    if not isinstance(weight, int) or isinstance(weight, bool) or weight < 1:
        raise ToolFailure(
            fail(
                "INVALID_ARGUMENTS", "weight_grams must be a positive integer.", [f"weight_grams: {weight!r}"]
            )
        )
    service = str(args.get("service", "standard"))
    zone = _zone(store, country)
    _check_postal_code(zone, country, postal_code)
    cents = int(zone["base_cents"]) + int(zone["per_500g_cents"]) * math.ceil(weight / GRAMS_PER_STEP)
    low, high = zone["days"]
    if service == "express":
        cents = round(cents * float(store.express.get("price_factor", 2.0)))
        low, high = store.express.get("days", [1, 2])
    canonical = json.dumps([country, postal_code, weight, service], separators=(",", ":"))
    quote_id = "Q-" + hashlib.sha256(canonical.encode()).hexdigest()[:10].upper()
    return ok(
        {
            "quote_id": quote_id,
            "country_code": country,
            "postal_code": postal_code,
            "weight_grams": weight,
            "service": service,
            "price": {"amount": round(cents / 100, 2), "currency": zone["currency"]},
            "delivery_days": {"min": low, "max": high},
        }
    )
