"""Run configuration: a YAML or JSON file, validated with pydantic, overridden by flags.

The seed's ``benchmark.config.json`` keys are accepted (``datasetVersion``, ``repeats``,
``temperature``, ``timeoutMs``, ``concurrency``, ``models: [{provider, model}]``), beside
fcbench's own (``suite``, ``targets``, ``endpoints``, ``modes``, ``prices``, ``seed``, ...).
Errors name the file and the key, e.g. ``fcbench.yaml: endpoints.mylab.dialect: unknown dialect``.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import yaml
from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError, field_validator

from fcbench.adapters import dialects
from fcbench.contract import Continuation, ModeName
from fcbench.endpoints import (
    DEFAULT_TARGETS,
    MOCK_PLACEHOLDER,
    QUERY_VALUE_PATTERN,
    AuthScheme,
    Endpoint,
    target_label,
)
from fcbench.errors import ConfigError
from fcbench.files import open_user_file
from fcbench.pricing import ModelPrice, PriceTable
from fcbench.suggest import did_you_mean

CREDENTIAL_HEADER = re.compile(
    r"auth|api[-_]?key|token|secret|cookie|password|session|subscription[-_]key|signature", re.IGNORECASE
)
"""Header names that suggest a credential: refused in a config, since configs are written to disk."""

ToolFault = Literal["duplicate_delivery", "reorder_results", "lost_result"]
"""A fault the harness injects between the model and the fake tools (``tool_faults``; see
:mod:`fcbench.run.recovery`).

* ``duplicate_delivery``: every tool call is delivered to the fake tools twice (same conversation,
  call id and arguments, as an at-least-once queue would); the model sees the second delivery's
  result;
* ``reorder_results``: the results of a turn with several calls are sent back in reverse order,
  each still under its own call id (a model must attribute them by id, not by position);
* ``lost_result``: the first write of the conversation that changes the store commits, but the
  model is answered with a timeout instead of its result; a retry under a new call id with the
  same arguments is a duplicate side effect, a status check first is right."""


TOOL_ORDER_PATTERN = r"reverse|shuffle:(?:[2-9]|[1-4][0-9]|50)"
"""``tool_order``: ``reverse``, or ``shuffle:K`` with K from 2 to 50."""


class EndpointConfig(BaseModel):
    """A user-defined endpoint (any server speaking a known dialect)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    dialect: str
    base_url: str | list[str]
    api_key_env: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    key_required: bool = True
    local: bool = False
    max_concurrency: int | None = Field(default=None, ge=1)
    auth: AuthScheme = "dialect"
    auth_query_param: str = Field(default="key", pattern=QUERY_VALUE_PATTERN)
    api_version: str | None = Field(default=None, pattern=QUERY_VALUE_PATTERN)

    @field_validator("dialect")
    @classmethod
    def _known_dialect(cls, value: str) -> str:
        if value not in dialects():
            raise ValueError(f"unknown dialect {value!r}; known: {', '.join(dialects())}")
        return value

    @field_validator("base_url")
    @classmethod
    def _http_urls(cls, value: str | list[str]) -> str | list[str]:
        urls = [value] if isinstance(value, str) else value
        if not urls or any(not u.strip() for u in urls):
            raise ValueError("must be a non-empty URL or list of URLs")
        for url in urls:
            parts = urlsplit(url.strip().replace(MOCK_PLACEHOLDER, "http://127.0.0.1", 1))
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(
                    f"{url!r} is not an http:// or https:// URL with a host (or {MOCK_PLACEHOLDER}/...)"
                )
        return value

    @field_validator("headers")
    @classmethod
    def _safe_headers(cls, value: dict[str, str]) -> dict[str, str]:
        return _check_headers(value)


class ModelEntry(BaseModel):
    """The seed's ``models`` entry: an endpoint (``provider``) and a pinned model id."""

    model_config = ConfigDict(extra="forbid", strict=True)

    provider: str
    model: str


def _check_headers(value: dict[str, str]) -> dict[str, str]:
    """Refuse credential-like header names and line breaks (configs are written beside every run)."""
    for name, text in value.items():
        if CREDENTIAL_HEADER.search(name):
            raise ValueError(
                f"header {name!r} looks like a credential: put it in an environment variable named "
                "by api_key_env, not in the config (config.json is written beside every run)"
            )
        if any(ch in f"{name}{text}" for ch in "\r\n\x00"):
            raise ValueError(f"header {name!r}: names and values may not hold line breaks")
    return value


class TargetSettings(BaseModel):
    """Request settings of one target, on top of the run's (a ``targets:`` entry may carry them)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, use_attribute_docstrings=True)

    params: dict[str, Any] = Field(default_factory=dict)
    """Merged into every request body of the target, in the dialect's own spelling, after fcbench
    built it (objects merged key by key): ``reasoning_effort``, ``reasoning``, ``thinking``,
    ``top_p``, ``stop``, ``generationConfig``, anything else verbatim."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Extra headers for the target's requests (never secrets: those go in ``api_key_env``)."""
    strict: bool | None = None
    """True asks for strict (constrained) tool arguments in every mode where the dialect can;
    None leaves each mode's own choice."""
    parallel_tool_calls: bool | None = None
    """False asks for at most one call per turn where the dialect can; None leaves each mode's."""

    @field_validator("headers")
    @classmethod
    def _safe_headers(cls, value: dict[str, str]) -> dict[str, str]:
        return _check_headers(value)


class NamedTarget(TargetSettings):
    """A ``targets:`` entry written as an object: the target, optionally a name of the user's (so runs
    compare by role, ``prod``, across model upgrades), and its own request settings."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, use_attribute_docstrings=True)

    name: str | None = Field(default=None, min_length=1)
    """The role of this target (``prod``, ``candidate``); ``fcbench compare`` pairs targets by it."""
    target: str = Field(min_length=1)
    """``ENDPOINT:MODEL``."""

    def settings(self) -> TargetSettings:
        """Just the request settings."""
        return TargetSettings(**self.model_dump(include=set(TargetSettings.model_fields)))


TargetEntry = Annotated[
    Annotated[str, Tag("label")] | Annotated[NamedTarget, Tag("entry")],
    Discriminator(lambda value: "label" if isinstance(value, str) else "entry"),
]
"""A ``targets:`` item: ``ENDPOINT:MODEL``, or an object (errors then name the object's keys)."""


def _unset(value: float | None) -> bool:
    return value is None


class Price(BaseModel):
    """USD per million tokens (each input part priced apart: :meth:`fcbench.pricing.PriceTable.cost`)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    input: float = Field(ge=0)
    """Input tokens neither read from nor written to a prompt cache."""
    output: float = Field(ge=0)
    """Output tokens."""
    cache_read: float | None = Field(default=None, ge=0, exclude_if=_unset)
    """Input tokens read from a prompt cache; unset: the ``input`` price."""
    cache_write: float | None = Field(default=None, ge=0, exclude_if=_unset)
    """Input tokens written to a prompt cache; unset: the ``input`` price."""


class Gate(BaseModel):
    """Thresholds a run must meet, per target and mode, or ``fcbench run`` exits 1 (fractions 0..1)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True)

    min_coverage: float = Field(default=0.9, ge=0, le=1, alias="minCoverage")
    """Scorable / planned observations; below it the run measured too little to be trusted (0 disables)."""
    min_pass_rate: float | None = Field(default=None, ge=0, le=1, alias="minPassRate")
    """Pass rate every target must reach."""
    min_pass_rate_by_category: dict[str, float] = Field(default_factory=dict, alias="minPassRateByCategory")
    """Category -> pass rate its cases must reach (e.g. ``normal: 0.9``)."""
    min_pass_rate_by_tag: dict[str, float] = Field(default_factory=dict, alias="minPassRateByTag")
    """Tag -> pass rate its cases must reach."""
    fail_fast: int | None = Field(default=None, ge=1, alias="failFast")
    """Stop a target after this many consecutive identical auth, not_found or schema_rejected errors."""
    max_unsafe_writes: int | None = Field(default=0, ge=0, alias="maxUnsafeWrites")
    """Calls of write tools a case did not expect (``verdict.unexpected_writes``) allowed per target and
    mode; more fails the run whatever its pass rate (None disables)."""

    @field_validator("min_pass_rate_by_category", "min_pass_rate_by_tag")
    @classmethod
    def _fractions(cls, value: dict[str, float]) -> dict[str, float]:
        for key, rate in value.items():
            if not 0 <= rate <= 1:
                raise ValueError(f"{key}: {rate} is not a fraction between 0 and 1")
        return value


class RunConfig(BaseModel):
    """Everything a run needs besides the suite's content."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True)

    suite: str = "core"
    tools_from_mcp: list[str] = Field(default_factory=list)
    """MCP server commands (``[SET=]COMMAND ARGS``) whose ``tools/list`` becomes a tool set of the
    suite (``core`` unless ``SET=`` names another), replacing the suite's own set of that name."""
    dataset_version: str | None = Field(default=None, alias="datasetVersion")
    """When set, the suite's dataset_version must match (a guard against running the wrong data)."""
    targets: list[TargetEntry] = Field(default_factory=list)
    """``ENDPOINT:MODEL`` strings, or ``{name, target}`` objects naming a target's role."""
    models: list[ModelEntry] = Field(default_factory=list)
    endpoints: dict[str, EndpointConfig] = Field(default_factory=dict)
    repeats: int = Field(default=3, ge=1, le=1000)
    temperature: float | None = Field(default=0.0, ge=0, le=2)
    timeout_ms: int = Field(default=30000, ge=1, alias="timeoutMs")
    concurrency: int = Field(default=8, ge=1, le=10000)
    workers: Annotated[int, Field(ge=1, le=256)] | Literal["auto"] = 1
    """Processes that share the run (``--workers``; :mod:`fcbench.run.workers`): a number, or
    ``auto`` for the cores available; bounded by the plan and the concurrency. Not measured."""
    modes: list[ModeName] = Field(default_factory=lambda: ["selection"])
    categories: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    cases: list[str] = Field(default_factory=list)
    seed: int = 0
    max_retries: int = Field(default=3, ge=0, le=20)
    retry_budget: int | None = Field(default=None, ge=0)
    """Retries allowed for the whole run; default: 10% of planned observations + 20."""
    max_response_bytes: int = Field(default=16 * 1024 * 1024, ge=1024)
    """Largest response body (decoded) or stream accepted; beyond it the observation is ``too_large``."""
    max_stream_events: int = Field(default=100_000, ge=1)
    """Most events one streamed response may send."""
    max_tokens: int = Field(default=1024, ge=1)
    max_turns: int = Field(default=4, ge=1, le=20)
    """Recovery mode: model turns per conversation before ``turn_limit``."""
    prices: dict[str, Price] = Field(default_factory=dict)
    """Model id -> price per million tokens; overrides the built-in table."""
    exclude_tags: list[str] = Field(default_factory=list)
    """Leave out cases carrying any of these tags."""
    exclude_cases: list[str] = Field(default_factory=list, exclude_if=lambda ids: not ids)
    """Leave out the cases with these ids or matching these shell-style globs (``select-*``)."""
    sample: int | None = Field(default=None, ge=1)
    """Run a sample of this many cases in total, in proportion per category, drawn only from the cases
    the run's ``modes`` observe (the same for the same ``seed``)."""
    include_pending: bool = Field(default=False, exclude_if=lambda included: not included)
    """Run and score the suite's pending cases too (``label: pending``: an expectation prefilled from
    a log that no person has confirmed); by default they are left out and counted as "pending, not
    scored" (both pinned in the manifest's ``filters``)."""
    gate: Gate = Field(default_factory=lambda: Gate())
    """What makes ``fcbench run`` exit 1 (coverage, pass rates); never part of what is measured."""
    continuation: Continuation = "stateless"
    """Multi-turn modes: replay every turn statelessly, or continue the provider's stored
    conversation by id where the dialect can (see :data:`Continuation`); pinned in the manifest."""
    judge: str | None = Field(default=None, min_length=1, exclude_if=lambda target: target is None)
    """``ENDPOINT:MODEL`` of an optional judge that rates the text replies the rules decided
    (clarifications, abstentions, answers) with a fixed rubric, beside the verdict and never
    changing it (``--judge``; see :mod:`fcbench.grading.judge`); pinned in the manifest."""
    tool_faults: list[ToolFault] = Field(default_factory=list)
    """Multi-turn modes: faults injected between the model and the fake tools (:data:`ToolFault`):
    ``duplicate_delivery`` (each tool call delivered twice: a write must still make one side
    effect), ``reorder_results`` (a turn's results sent back in reverse order, ids kept) and
    ``lost_result`` (a write commits, the model is answered with a timeout); pinned in the manifest."""
    tool_order: str | None = Field(default=None, exclude_if=lambda order: order is None)
    """``reverse`` (the suite's order, then reversed) or ``shuffle:K`` (K seeded permutations per
    case, the same for the same ``seed``): each case is observed in every order, ``repeats``
    times each (``fcbench.run.tool_order``); pinned in the manifest."""

    @field_validator("tool_order")
    @classmethod
    def _known_tool_order(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(TOOL_ORDER_PATTERN, value):
            raise ValueError(f"{value!r} is not 'reverse' or 'shuffle:K' with K from 2 to 50")
        return value

    def target_specs(self) -> list[str]:
        """``ENDPOINT:MODEL`` strings from ``targets`` and ``models``, defaulting to the simulated models."""
        specs = [t if isinstance(t, str) else t.target for t in self.targets]
        specs += [target_label(m.provider, m.model) for m in self.models]
        return specs or list(DEFAULT_TARGETS)

    def target_names(self) -> dict[str, str]:
        """``ENDPOINT:MODEL`` -> the name the config gives it (only for named targets)."""
        return {t.target: t.name for t in self.targets if isinstance(t, NamedTarget) and t.name}

    def target_settings(self) -> dict[str, TargetSettings]:
        """``ENDPOINT:MODEL`` -> its own request settings (only for entries that carry some)."""
        return {t.target: t.settings() for t in self.targets if isinstance(t, NamedTarget)}

    def price_table(self) -> PriceTable:
        """The built-in prices with the config's ``prices`` over them."""
        return PriceTable(
            {m: ModelPrice(p.input, p.output, p.cache_read, p.cache_write) for m, p in self.prices.items()}
        )

    def user_endpoints(self) -> dict[str, Endpoint]:
        """The config's endpoints as :class:`Endpoint` objects."""
        return {name: Endpoint(name=name, **cfg.model_dump()) for name, cfg in self.endpoints.items()}

    def hash(self) -> str:
        """Stable hash of the settings that change what is measured (not of concurrency or output)."""
        measured = self.model_dump(
            mode="json",
            exclude={
                "concurrency",
                "workers",
                "timeout_ms",
                "max_retries",
                "retry_budget",
                "gate",
                "max_response_bytes",
                "max_stream_events",
            },
        )
        if not measured.get("tool_faults"):  # unset: the hash of a config from before the key existed
            measured.pop("tool_faults", None)
        if measured.get("continuation") == "stateless":  # the default: as before the key existed
            measured.pop("continuation", None)
        if not measured.get("tools_from_mcp"):  # unset: as before the key existed
            measured.pop("tools_from_mcp", None)
        text = json.dumps(measured, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


MAX_CONFIG_BYTES = 1_000_000
"""A config file larger than this is refused (configs are a few KB)."""
MAX_YAML_ALIASES = 100
"""YAML aliases allowed in a config: enough for anchors."""
MAX_CONFIG_VALUES = 100_000
"""Values a config may hold once its aliases are expanded (an alias bomb holds billions)."""


def _too_many_values(value: Any, budget: int = MAX_CONFIG_VALUES) -> bool:
    """Whether ``value``, aliases expanded, holds more than ``budget`` values (stops counting there)."""
    stack = [value]
    count = 0
    while stack:
        item = stack.pop()
        count += 1
        if count > budget:
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


class _StrictYamlLoader(yaml.SafeLoader):
    """A safe YAML loader that refuses duplicate keys and more than :data:`MAX_YAML_ALIASES` aliases."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                mark = self.peek_event().start_mark
                raise yaml.constructor.ConstructorError(
                    None, None, f"more than {MAX_YAML_ALIASES} aliases (an alias bomb?)", mark
                )
        return super().compose_node(parent, index)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_StrictYamlLoader.add_implicit_resolver(  # JSON's exponent form (1e-6), which YAML 1.1 reads as a string
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)


def _key_path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc) or "(root)"


def _read_config_text(path: Path) -> str:
    """The text of the config file ``path``: a regular file (a FIFO or a device is refused, never
    waited on) of at most :data:`MAX_CONFIG_BYTES`, in UTF-8."""
    try:
        with open_user_file(path) as fh:
            data = fh.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError as exc:
        raise ConfigError("config file not found", path=str(path)) from exc
    except OSError as exc:
        raise ConfigError(f"cannot be read: {exc.strerror or exc}", path=str(path)) from exc
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"larger than {MAX_CONFIG_BYTES} bytes; not a config", path=str(path))
    try:
        return str(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path=str(path)) from exc


class _Flags(BaseModel):
    """Options given on the command line: those that are set win over the config file's keys."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def set_options(self) -> list[tuple[str, Any]]:
        """``(key, value)`` of every option that is set (not None, not empty); sections left out."""
        pairs = [(name, getattr(self, name)) for name in type(self).model_fields]
        return [(k, v) for k, v in pairs if not isinstance(v, _Flags) and v not in (None, [], {})]


class GateFlags(_Flags):
    """Gate thresholds given as command-line flags; one that is set wins over the config's ``gate:``
    block (a mapping merges entry by entry), one left None keeps the config's."""

    min_coverage: float | None = None
    """``--min-coverage``."""
    min_pass_rate: float | None = None
    """``--min-pass-rate``."""
    min_pass_rate_by_category: dict[str, float] | None = None
    """``--min-category-pass-rate CATEGORY=RATE`` (repeatable)."""
    min_pass_rate_by_tag: dict[str, float] | None = None
    """``--min-tag-pass-rate TAG=RATE`` (repeatable)."""
    fail_fast: int | None = None
    """``--fail-fast``."""
    max_unsafe_writes: int | None = None
    """``--max-unsafe-writes``."""


class CommandLine(_Flags):
    """Run options given on the command line, typed: each one that is set (not None, not empty) wins
    over the config file's value of the same key; :func:`load_config` applies them."""

    suite: str | None = None
    """``--suite``."""
    tools_from_mcp: list[str] | None = None
    """``--tools-from-mcp`` (repeatable)."""
    tool_faults: list[str] | None = None
    """``--tool-fault`` (repeatable)."""
    tool_order: str | None = None
    """``--tool-order``."""
    continuation: str | None = None
    """``--continuation``."""
    targets: list[str] | None = None
    """``--target`` (repeatable)."""
    repeats: int | None = None
    """``--repeats``."""
    concurrency: int | None = None
    """``--concurrency``."""
    workers: int | Literal["auto"] | None = None
    """``--workers``."""
    categories: list[str] | None = None
    """``--category`` (repeatable)."""
    tags: list[str] | None = None
    """``--tag`` (repeatable)."""
    cases: list[str] | None = None
    """``--case`` (repeatable)."""
    modes: list[str] | None = None
    """``--mode`` (repeatable)."""
    seed: int | None = None
    """``--seed``."""
    exclude_tags: list[str] | None = None
    """``--exclude-tag`` (repeatable)."""
    exclude_cases: list[str] | None = None
    """``--exclude-case`` (repeatable)."""
    sample: int | None = None
    """``--sample``."""
    judge: str | None = None
    """``--judge``."""
    include_pending: bool | None = None
    """``--include-pending``."""
    gate: GateFlags = GateFlags()
    """The gate flags."""


def _spellings(model: type[BaseModel], name: str) -> set[str]:
    """``name`` and its camelCase alias, when ``model`` has a field of that name."""
    field = model.model_fields.get(name)
    return {name} | ({field.alias} if field is not None and field.alias else set())


def _set_option(target: dict[str, Any], model: type[BaseModel], name: str, value: Any) -> None:
    """Set option ``name`` of ``model`` in ``target`` (the loaded config or one of its sections) to a
    flag's ``value``: the file's own spelling of that key (``minCoverage``) is replaced, not kept
    beside it, and a mapping value (``min_pass_rate_by_category``) is merged entry by entry."""
    previous: Any = None
    for spelling in _spellings(model, name):
        previous = target.pop(spelling, previous)
    if isinstance(value, dict) and isinstance(previous, dict):
        value = {**previous, **value}
    target[name] = value


def _apply_flags(data: dict[str, Any], flags: CommandLine) -> None:
    """Apply the set ``flags`` to the loaded config ``data`` (the flag wins over the file); the gate
    flags set keys of its ``gate`` section, the rest of the section kept."""
    for name, value in flags.set_options():
        _set_option(data, RunConfig, name, value)
    gate_options = flags.gate.set_options()
    if gate_options:
        section = data.get("gate")
        gate = dict(section) if isinstance(section, dict) else {}
        for name, value in gate_options:
            _set_option(gate, Gate, name, value)
        data["gate"] = gate


def load_config(
    path: Path | None, flags: CommandLine | None = None, *, base: dict[str, Any] | None = None
) -> RunConfig:
    """Load ``path`` (YAML or JSON; None means ``base``, else defaults) and apply the command line's
    ``flags`` that are set (each wins over the file's value of its key)."""
    data: dict[str, Any] = dict(base or {})
    where = str(path) if path else "command line"
    if path is not None:
        text = _read_config_text(path)
        try:
            loaded = yaml.load(text, Loader=_StrictYamlLoader) if text.strip() else None  # noqa: S506
            if _too_many_values(loaded):
                raise ConfigError(
                    f"holds more than {MAX_CONFIG_VALUES} values once its aliases are expanded",
                    path=str(path),
                )
            json.dumps(loaded, ensure_ascii=False, default=str, skipkeys=True).encode("utf-8")
        except UnicodeEncodeError as exc:
            escape = f"\\u{ord(exc.object[exc.start]):04x}"
            raise ConfigError(
                f"holds a lone surrogate {escape}, which is not valid Unicode", path=str(path)
            ) from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = f"line {mark.line + 1}: " if mark is not None else ""
            raise ConfigError(
                f"{line}invalid YAML/JSON: {getattr(exc, 'problem', exc)}", path=str(path)
            ) from exc
        except RecursionError:
            raise ConfigError("invalid YAML/JSON: nested too deeply to read", path=str(path)) from None
        if loaded is None:
            raise ConfigError("config file is empty", path=str(path))
        if not isinstance(loaded, dict):
            raise ConfigError("config must be a mapping of keys to values", path=str(path))
        data = loaded
    if flags is not None:
        _apply_flags(data, flags)
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = _key_path(first["loc"])
        message = first["msg"]
        if first["type"] == "extra_forbidden" and first["loc"]:
            schemas = (RunConfig.model_json_schema(by_alias=by_alias) for by_alias in (False, True))
            known = [key for schema in schemas for key in known_keys(schema, first["loc"][:-1])]
            message += did_you_mean(str(first["loc"][-1]), known)
        raise ConfigError(message, path=where, key=key) from exc


def known_keys(schema: dict[str, Any], loc: tuple[Any, ...]) -> list[str]:
    """The keys the object at ``loc`` (a validation error's location, e.g. ``("gate",)``) may
    have, read from ``schema`` (a model's JSON Schema): what a misspelt key is compared with. A
    step that names no key (a tagged union's tag, e.g. ``targets.0.entry``) is passed over."""
    defs = schema.get("$defs", {})
    nodes: list[Any] = [schema]
    for step in loc:
        nodes = [nxt for node in nodes for nxt in _schema_children(node, step, defs)] or nodes
    return [
        key for node in nodes for key in _schema_branches(node, defs) for key in key.get("properties", {})
    ]


def _schema_branches(node: Any, defs: dict[str, Any]) -> list[dict[str, Any]]:
    """``node`` with its ``$ref`` resolved and its ``anyOf``/``oneOf``/``allOf`` branches spread."""
    if not isinstance(node, dict):
        return []
    if "$ref" in node:
        return _schema_branches(defs.get(str(node["$ref"]).rsplit("/", 1)[-1]), defs)
    branches = [b for key in ("anyOf", "oneOf", "allOf") for b in node.get(key, [])]
    return [node, *(found for branch in branches for found in _schema_branches(branch, defs))]


def _schema_children(node: Any, step: Any, defs: dict[str, Any]) -> list[Any]:
    """The schemas of the value at ``step`` (a key or an index) inside a value of schema ``node``."""
    found: list[Any] = []
    for branch in _schema_branches(node, defs):
        if isinstance(step, int) and "items" in branch:
            found.append(branch["items"])
        elif step in branch.get("properties", {}):
            found.append(branch["properties"][step])
        elif isinstance(branch.get("additionalProperties"), dict):
            found.append(branch["additionalProperties"])
    return found
