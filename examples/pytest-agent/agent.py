"""A small shop assistant: one turn of the OpenAI Chat Completions API with two tools."""

from __future__ import annotations

from typing import Any

from openai import OpenAI, RateLimitError

SYSTEM = "You are the assistant of an online shop. Use the tools to answer."

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "description": "Look up an order by its id.",
            "parameters": {
                "type": "object",
                "properties": {
                    "order_id": {
                        "type": "string",
                        "pattern": "^ORD-[0-9]{6}$",
                        "description": "Order id, e.g. ORD-104821",
                    }
                },
                "required": ["order_id"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_shipping_quote",
            "description": "Quote shipping for a parcel.",
            "parameters": {
                "type": "object",
                "properties": {
                    "country_code": {"type": "string", "description": "ISO 3166-1 alpha-2 country code"},
                    "postal_code": {"type": "string", "description": "Destination postal code"},
                    "weight_grams": {"type": "integer", "description": "Parcel weight in grams"},
                },
                "required": ["country_code", "postal_code", "weight_grams"],
                "additionalProperties": False,
            },
        },
    },
]


def ask(client: OpenAI, model: str, question: str) -> Any:
    """The model's reply to one question (a ChatCompletion), or None when the provider is busy."""
    try:
        return client.chat.completions.create(
            model=model,
            messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}],
            tools=TOOLS,
        )
    except RateLimitError:
        return None
