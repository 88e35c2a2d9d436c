"""The ``openai-responses`` tool-schema rules: the OpenAI rules of ``openai-chat``, unchanged.

Both OpenAI APIs take the same function ``parameters`` schema and apply the same strict-mode
restrictions, so the rules (and their table) live in :mod:`fcbench.adapters.openai_chat.schema`
and are reused here as they are.
"""

from __future__ import annotations

from fcbench.adapters.openai_chat.schema import rules, transform_schema

__all__ = ["rules", "transform_schema"]
