"""Bad input, through the real CLI: exit code 2, a message naming the file, line or key, no traceback.

The corpus lives in ``tests/support/corpus/`` (see its README): broken case files, tool files
(checked against the JSON Schema meta-schema), suite folders, configs and command lines. Every item
runs the real CLI entry point in its own process, forked from a helper that imported the CLI once
(see ``tests/support/robust_forkcli.py``); a sample also runs as ``python -m fcbench`` subprocesses
and must give the same exit code and message. Each item is then asserted by its own test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from robust_forkcli import ForkedCli
from robust_server import Answer, HostileServer, SeenRequest

from fcbench.cli.app import VERB_MODULES
from fcbench.store.records import (
    RECORDS_FILE,
    CaseRef,
    Manifest,
    Record,
    RecordWriter,
    TargetRef,
    write_manifest,
)
from fcbench.suite.loader import BUILTIN_DIR

CORPUS = Path(__file__).resolve().parents[1] / "support" / "corpus"
CLI = [sys.executable, "-m", "fcbench"]
TEXT_CASE = b'{"id":"ok-1","prompt":"Hello!","expected":{"kind":"text"}}\n'
SECRET_VARIABLES = ("MYLAB_SECRET_KEY",)
WORKERS = max(2, min(4, os.cpu_count() or 2))


@dataclass
class Item:
    """One corpus input run through the CLI."""

    id: str
    args: list[str]
    stderr: list[str]
    exit_code: int = 2
    cwd: Path | None = None
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    """What the subprocess did."""

    code: int
    stdout: str
    stderr: str


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without any API key variable (so key checks are deterministic), plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k not in SECRET_VARIABLES}
    env.update(extra)
    return env


def cli(args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 120) -> Outcome:
    """Run ``python -m fcbench ARGS`` and capture everything."""
    proc = subprocess.run(
        [*CLI, *args], cwd=cwd, env=env or clean_env(), capture_output=True, text=True, timeout=timeout
    )
    return Outcome(proc.returncode, proc.stdout, proc.stderr)


def minimal_suite(folder: Path, cases: bytes = TEXT_CASE) -> Path:
    """A suite with the core suite's identity (without its promised case counts), system prompt and
    tools, and ``cases`` as cases.jsonl."""
    folder.mkdir(parents=True)
    for name in ("system.txt", "tools.core.json"):
        shutil.copy(BUILTIN_DIR / "core" / name, folder / name)
    info = json.loads((BUILTIN_DIR / "core" / "suite.json").read_text(encoding="utf-8"))
    info.pop("minimums", None)
    (folder / "suite.json").write_text(json.dumps(info), encoding="utf-8")
    (folder / "cases.jsonl").write_bytes(cases)
    return folder


def _expectations(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CORPUS / name).read_text(encoding="utf-8"))
    return data


def _cli_entries() -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads((CORPUS / "cli.json").read_text(encoding="utf-8"))
    return entries


def _corpus_files(folder: str) -> list[str]:
    return sorted(p.name for p in (CORPUS / folder).iterdir() if p.name != "expect.json")


def _record() -> Record:
    return Record(
        run_id="corpus-run",
        seq=0,
        started_at="2026-01-01T00:00:00Z",
        dataset_version="1.0.0",
        target=TargetRef(endpoint="sim", dialect="openai-chat", model="sim-careful"),
        case_id="ok-1",
        case=CaseRef(category="normal", expected_kind="text", prompt="Hello!"),
        repeat=0,
        mode="selection",
        outcome={"kind": "text", "text": "Hi"},
        verdict={"passed": True, "decision": "correct_abstention"},
    )


def _run_with_bad_record(folder: Path) -> Path:
    """A run directory whose second record line is valid JSON but not a record."""
    folder.mkdir()
    manifest = Manifest(
        run_id="corpus-run",
        fcbench_version="0",
        suite="core",
        dataset_version="1.0.0",
        dataset_hash="0" * 64,
        config_hash="0" * 16,
        targets=[
            {"label": "sim:sim-careful", "endpoint": "sim", "dialect": "openai-chat", "model": "sim-careful"}
        ],
        modes=["selection"],
        repeats=1,
        temperature=0.0,
        seed=0,
        planned=2,
        started_at="2026-01-01T00:00:00Z",
    )
    write_manifest(folder, manifest)
    with RecordWriter(folder / RECORDS_FILE) as writer:
        writer.append(_record())
    with (folder / RECORDS_FILE).open("a", encoding="utf-8") as fh:
        fh.write("[1, 2, 3]\n")
    return folder


def _placeholders(root: Path) -> dict[str, str]:
    empty = root / "empty-dir"
    empty.mkdir()
    junk = root / "junk.txt"
    junk.write_text("just some text\n", encoding="utf-8")
    bad_manifest = root / "bad-manifest-run"
    bad_manifest.mkdir()
    (bad_manifest / "manifest.json").write_text("{", encoding="utf-8")
    junk_bfcl = root / "bfcl" / "BFCL_v4_irrelevance.json"
    junk_bfcl.parent.mkdir()
    junk_bfcl.write_text("{not json\n", encoding="utf-8")
    return {
        "{tmp}": str(root),
        "{missing}": str(root / "does-not-exist"),
        "{empty_dir}": str(empty),
        "{junk_file}": str(junk),
        "{bad_manifest_run}": str(bad_manifest),
        "{bad_record_run}": str(_run_with_bad_record(root / "bad-record-run")),
        "{junk_bfcl}": str(junk_bfcl),
    }


def _fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace(key, value)
    return text


def _registered_verbs() -> set[str]:
    return {module.rsplit(".", 1)[1] for module in VERB_MODULES}


def _items(root: Path) -> list[Item]:
    items: list[Item] = []
    for name, needles in _expectations("cases/expect.json").items():
        suite = minimal_suite(root / "cases" / name, (CORPUS / "cases" / name).read_bytes())
        items.append(Item(f"cases/{name}", ["cases", "validate", str(suite)], needles))
    for name in _corpus_files("valid"):
        suite = minimal_suite(root / "valid" / name, (CORPUS / "valid" / name).read_bytes())
        items.append(Item(f"valid/{name}", ["cases", "validate", str(suite)], [], exit_code=0))
    for name, needles in _expectations("tools/expect.json").items():
        suite = minimal_suite(root / "tools" / name)
        shutil.copy(CORPUS / "tools" / name, suite / "tools.core.json")
        items.append(Item(f"tools/{name}", ["cases", "validate", str(suite)], needles))
    for name, needles in _expectations("suites/expect.json").items():
        suite = minimal_suite(root / "suites" / name)
        for path in (CORPUS / "suites" / name).iterdir():
            if path.name == "REMOVE":
                for removed in path.read_text(encoding="utf-8").split():
                    (suite / removed).unlink()
            else:
                shutil.copy(path, suite / path.name)
        items.append(Item(f"suites/{name}", ["cases", "validate", str(suite)], needles))
    for name, spec in _expectations("configs/expect.json").items():
        cwd = root / "configs" / name
        cwd.mkdir(parents=True)
        config = str(CORPUS / "configs" / name)
        for verb in spec["verbs"]:
            args = (
                ["run", "--no-progress", "--config", config] if verb == "run" else [verb, "--config", config]
            )
            items.append(Item(f"configs/{name}/{verb}", args, spec["stderr"], cwd=cwd))
    values = _placeholders(root)
    verbs = _registered_verbs()
    for entry in _cli_entries():
        if entry.get("verb") and entry["verb"] not in verbs:
            continue
        args = [_fill(a, values) for a in entry["args"]]
        needles = [_fill(n, values) for n in entry["stderr"]]
        items.append(Item(f"cli/{entry['id']}", args, needles, cwd=root))
    return items


def _ids() -> list[str]:
    """Item ids known at collection time (the fixture builds the same list)."""
    ids = [f"cases/{n}" for n in _expectations("cases/expect.json")]
    ids += [f"valid/{n}" for n in _corpus_files("valid")]
    ids += [f"tools/{n}" for n in _expectations("tools/expect.json")]
    ids += [f"suites/{n}" for n in _expectations("suites/expect.json")]
    ids += [f"configs/{n}/{v}" for n, s in _expectations("configs/expect.json").items() for v in s["verbs"]]
    ids += [f"cli/{e['id']}" for e in _cli_entries()]
    return ids


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Item, Outcome]]:
    """Every corpus item run through the CLI entry point, each in its own forked process."""
    root = tmp_path_factory.mktemp("corpus")
    items = _items(root)
    scratch = root / "streams"
    scratch.mkdir()
    results: dict[str, tuple[Item, Outcome]] = {}
    with ForkedCli(scratch) as forked:
        for item in items:
            item.cwd = item.cwd or root
            code, stdout, stderr = forked.run(item.args, item.cwd, clean_env(**item.env))
            results[item.id] = (item, Outcome(code if isinstance(code, int) else -1, stdout, stderr))
    return results


SAMPLE = (
    "cases/not-utf8.jsonl",
    "tools/external-ref.json",
    "suites/missing-core-tools",
    "configs/unknown-dialect.yaml/run",
    "configs/missing-key-openai.yaml/run",
    "cli/report-record-not-an-object",
    "cli/run-config-is-a-folder",
    "valid/bom-crlf.jsonl",
)
"""Items also run as real ``python -m fcbench`` subprocesses, to prove the forked runs equivalent."""


def test_forked_runs_match_real_subprocesses(ran: dict[str, tuple[Item, Outcome]]) -> None:
    def real(item_id: str) -> Outcome:
        item, _ = ran[item_id]
        assert item.cwd is not None
        return cli(item.args, item.cwd, clean_env(**item.env))

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        outcomes = dict(zip(SAMPLE, pool.map(real, SAMPLE), strict=True))
    for item_id, outcome in outcomes.items():
        _, forked = ran[item_id]
        assert (outcome.code, outcome.stderr) == (forked.code, forked.stderr), item_id


def test_every_corpus_file_has_an_expectation_and_back() -> None:
    for folder in ("cases", "tools", "configs"):
        expected = set(_expectations(f"{folder}/expect.json"))
        assert set(_corpus_files(folder)) == expected, folder
    suites = {p.name for p in (CORPUS / "suites").iterdir() if p.is_dir()}
    assert suites == set(_expectations("suites/expect.json"))


@pytest.mark.parametrize("item_id", _ids())
def test_bad_input_is_refused_clearly(item_id: str, ran: dict[str, tuple[Item, Outcome]]) -> None:
    if item_id not in ran:
        pytest.skip("needs a verb that is not registered in cli/app.py")
    item, outcome = ran[item_id]
    assert "Traceback" not in outcome.stderr, outcome.stderr[-3000:]
    assert outcome.code == item.exit_code, (outcome.code, outcome.stderr[-2000:])
    if item.exit_code:
        assert outcome.stderr.strip(), "a refusal must say why"
        assert len(outcome.stderr) < 20_000, "the message must stay readable"
    for needle in item.stderr:
        assert needle in outcome.stderr, (needle, outcome.stderr[-2000:])


def test_yaml_tags_never_execute(ran: dict[str, tuple[Item, Outcome]]) -> None:
    item, outcome = ran["configs/python-tag.yaml/run"]
    assert outcome.code == 2
    assert item.cwd is not None and not (item.cwd / "pwned-by-yaml").exists()


def test_very_long_lines_are_named_without_being_echoed(tmp_path: Path) -> None:
    huge = "x" * 2_000_000
    lines = [
        TEXT_CASE.decode().strip(),
        json.dumps({"id": "long", "prompt": huge, "expected": {"kind": huge}}),
        json.dumps({"id": huge, "prompt": "p", "expected": {"kind": "text"}}),
        json.dumps({"id": huge, "prompt": "p", "expected": {"kind": "text"}}),
        json.dumps({"id": "k", "prompt": "p", "expected": {"kind": "text"}, huge: 1}),
    ]
    suite = minimal_suite(tmp_path / "long", ("\n".join(lines) + "\n").encode())
    outcome = cli(["cases", "validate", str(suite)], tmp_path)
    assert outcome.code == 2 and "Traceback" not in outcome.stderr
    for line in (2, 4, 5):
        assert f"cases.jsonl:{line}:" in outcome.stderr, outcome.stderr[:3000]
    assert len(outcome.stderr) < 20_000


def test_missing_key_for_a_real_endpoint_stops_before_any_request(tmp_path: Path) -> None:
    def answer(request: SeenRequest) -> Answer:
        return Answer(500, {"error": {"message": "must never be called"}})

    with HostileServer(answer) as server:
        config = tmp_path / "lab.yaml"
        config.write_text(
            "endpoints:\n"
            f"  lab: {{dialect: openai-chat, base_url: '{server.url}/v1', api_key_env: MYLAB_SECRET_KEY}}\n"
            "targets: ['lab:some-model', 'sim:sim-careful']\n"
            "repeats: 1\n",
            encoding="utf-8",
        )
        outcome = cli(["run", "--no-progress", "--config", str(config), "--out", "runs"], tmp_path)
        assert outcome.code == 2 and "Traceback" not in outcome.stderr
        assert "MYLAB_SECRET_KEY" in outcome.stderr and "'lab'" in outcome.stderr
        assert server.requests == [], "no request may be sent before every key is known"
        assert not (tmp_path / "runs").exists()
