"""A key that cannot travel in a header is refused before the first request, naming its variable."""

from __future__ import annotations

import pytest

from fcbench.endpoints import Endpoint
from fcbench.errors import TargetError

LAB = Endpoint(
    name="lab", dialect="openai-chat", base_url="https://lab.example.test/v1", api_key_env="LAB_KEY"
)


@pytest.mark.parametrize("key", ["sk-abc\n", "sk-abc\r\n", "sk-\x00abc", "sk-clé-abc", "sk-abc\u2028"])
def test_unusable_keys_are_refused_with_the_variable_name(key: str) -> None:
    with pytest.raises(TargetError, match="LAB_KEY holds a non-ASCII or control character") as caught:
        LAB.api_key({"LAB_KEY": key})
    assert key.strip() not in str(caught.value)  # the key itself is never echoed


def test_a_usable_key_is_returned_as_it_is() -> None:
    assert LAB.api_key({"LAB_KEY": "sk-proj-AbC_123-xyz"}) == "sk-proj-AbC_123-xyz"
