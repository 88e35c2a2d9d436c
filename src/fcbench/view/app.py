"""The ``fcbench view`` ASGI app: the list of runs, each run's report page fed by JSON endpoints,
and the run-versus-run page.

==============================================  ==================================================
route                                            answer
==============================================  ==================================================
``GET /``                                        the runs (one run: its page)
``GET /runs/{key}``                              the run's report page (the static report's page)
``GET /runs/{key}/observations/{n}``             redirect to the page with observation ``n`` open
``GET /compare?base=KEY&new=KEY[&pair=B=N]``     run versus run: changes, real flips, output diffs
``GET /compare``                                 redirect to the newest two comparable runs
``GET /history[?target=NAME]``                   pass rate per named target over runs, catalogue
``GET /api/runs``                                the runs as JSON
``GET /api/history[?target=NAME]``               the history as ``fcbench history --format json``
``GET /api/runs/{key}/report``                   the page's summary data (matrix, counts)
``GET /api/runs/{key}/observations``             a page of observations: the page's filters as query
                                                 parameters, ``offset``, ``limit``
``GET /api/runs/{key}/observations/{n}``         one observation and its case (no raw bodies)
``GET /api/runs/{key}/observations/{n}/raw``     its raw request and response, from the blob store
==============================================  ==================================================

Only ``GET`` is served (the viewer never changes a run). A request whose ``Host`` is not one of the
addresses the viewer listens on, or whose ``Origin`` (when sent) is not one of them, is refused with
403 before any route runs: a page of another site in the user's browser cannot read the runs, not
even through DNS rebinding (its name resolved to 127.0.0.1 still arrives as its own ``Host``). A run
that cannot be read answers 503 (an HTML page, or JSON under ``/api``) and the others are unaffected.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import FastAPI, HTTPException, Query, Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from fcbench.errors import ConfigError, FcbenchError
from fcbench.report.gate import has_unsafe_writes, run_unsafe_writes
from fcbench.report.html import render_page
from fcbench.report.pairing import parse_pair
from fcbench.view import query
from fcbench.view.history import HistoryPage, history_page
from fcbench.view.pages import render_compare, render_history, render_runs
from fcbench.view.runs import READ_TIMEOUT_S, RunCatalog, RunEntry, RunSummary, UnreadableRun, default_pair

NO_STORE = {"Cache-Control": "no-store"}


class AddressGuard:
    """ASGI middleware answering only requests addressed to the viewer itself: ``Host`` one of
    ``hosts`` and ``Origin``, when present, ``http://`` one of them; anything else gets 403."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = frozenset(h.lower() for h in hosts)
        """The ``host:port`` names the viewer answers to."""
        self.origins = frozenset(f"http://{h}" for h in self.hosts)
        """The origins of its own pages."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
            host, origin = headers.get("host", "").lower(), headers.get("origin")
            if host not in self.hosts or (origin is not None and origin.lower() not in self.origins):
                own = ", ".join(sorted(self.origins))
                refused = PlainTextResponse(f"fcbench view answers only requests to {own}", status_code=403)
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(root: Path, hosts: Iterable[str], read_timeout_s: float = READ_TIMEOUT_S) -> FastAPI:
    """The viewer of the runs at or below ``root`` (a runs folder or one run directory), answering
    requests addressed to one of ``hosts`` (``host:port``) only; each read of a run is waited for at
    most ``read_timeout_s`` seconds."""
    catalog = RunCatalog(root, read_timeout_s=read_timeout_s)
    app = FastAPI(title="fcbench view", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(AddressGuard, hosts=hosts)
    app.state.catalog = catalog
    _add_error_handlers(app)
    _add_run_routes(app, catalog, root)
    _add_history_routes(app, catalog, root)
    return app


def _add_error_handlers(app: FastAPI) -> None:
    """A run that cannot be read answers 503 (a page, or JSON under ``/api``); bad input 422."""

    @app.exception_handler(UnreadableRun)
    def unreadable(request: Request, exc: UnreadableRun) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": str(exc)}, status_code=503, headers=NO_STORE)
        return HTMLResponse(error_page(str(exc)), status_code=503, headers=NO_STORE)

    @app.exception_handler(FcbenchError)
    def fcbench_error(request: Request, exc: FcbenchError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)


def _entry(catalog: RunCatalog, key: str) -> RunEntry:
    """The run ``key`` names, or 404."""
    try:
        return catalog.entry(key)
    except FcbenchError as exc:
        raise HTTPException(status_code=404, detail=str(exc)) from None


def _add_run_routes(app: FastAPI, catalog: RunCatalog, root: Path) -> None:
    """The run list, each run's page and its JSON endpoints (report, observations, raw bodies)."""

    def entry(key: str) -> RunEntry:
        return _entry(catalog, key)

    @app.get("/", response_model=None)
    def index() -> Response:
        """The runs; a single run opens directly."""
        runs = catalog.runs()
        if len(runs) == 1 and runs[0].path == root:
            return RedirectResponse(f"/runs/{quote(runs[0].key)}", status_code=307)
        rows = run_rows(catalog, runs)
        return HTMLResponse(render_runs(root, rows, default_pair(runs)), headers=NO_STORE)

    @app.get("/api/runs")
    def api_runs() -> list[dict[str, Any]]:
        """Every run with its suite, targets, start time and pass rate (or why it cannot be read)."""
        return run_rows(catalog, catalog.runs())

    @app.get("/runs/{key:path}/observations/{n}")
    def observation_link(key: str, n: int) -> RedirectResponse:
        """A path for one observation: the run's page with it open."""
        return RedirectResponse(f"/runs/{quote(entry(key).key)}#obs={n}", status_code=307)

    @app.get("/runs/{key:path}")
    def run_page(key: str) -> HTMLResponse:
        """The run's report page, reading its data from the JSON endpoints."""
        e = entry(key)
        s = catalog.summary(e)
        html = catalog.page(
            e,
            s,
            lambda: render_page(
                s.metrics,
                s.collector,
                api=f"/api/runs/{quote(e.key)}",
                blocks=[],
                unsafe=run_unsafe_writes(e.path) if has_unsafe_writes(s.metrics) else (),
            ),
        )
        return HTMLResponse(html, headers=NO_STORE)

    @app.get("/api/runs/{key:path}/report")
    def api_report(key: str) -> JSONResponse:
        """Matrix, observation count and notes of the run's page."""
        return JSONResponse(catalog.summary(entry(key)).report, headers=NO_STORE)

    @app.get("/api/runs/{key:path}/observations/{n}/raw")
    def api_raw(key: str, n: int) -> dict[str, Any]:
        """The raw exchange of one observation, expanded from the blob store."""
        e = entry(key)
        table = catalog.summary(e).table
        raw = catalog.read(e, lambda: query.raw_of(e.path, table, catalog.blob_index(e), n))
        if raw is None:
            raise HTTPException(status_code=404, detail=f"no observation {n}")
        return raw

    @app.get("/api/runs/{key:path}/observations/{n}")
    def api_observation(key: str, n: int) -> dict[str, Any]:
        """One observation (raw bodies left out) and its case: prompt and expected behaviour."""
        e = entry(key)
        s = catalog.summary(e)
        obs = catalog.read(e, query.observation, e.path, s.table, n, s.several_modes)
        if obs is None:
            raise HTTPException(status_code=404, detail=f"no observation {n}")
        return {"obs": obs, "case": s.collector.cases.get(obs["case_id"])}

    @app.get("/api/runs/{key:path}/observations")
    def api_observations(
        request: Request,
        key: str,
        offset: int = Query(0, ge=0),
        limit: int = Query(200, ge=0, le=query.MAX_LIMIT),
    ) -> dict[str, Any]:
        """A page of the observations matching the filters (query parameters named as the page's)."""
        e = entry(key)
        s = catalog.summary(e)
        f = {name: request.query_params[name] for name in query.FILTERS if request.query_params.get(name)}
        page = catalog.read(e, query.query, e.path, s.table, f, offset, limit, s.several_modes)
        return {"total": page.total, "offset": page.offset, "rows": page.rows}

    @app.get("/compare", response_model=None)
    def compare(
        base: str = "", new: str = "", only: str = "", pair: list[str] = Query(default=[])
    ) -> Response:
        """Two runs compared: per-metric changes, real flips (noise counted), outputs of the flipped
        cases side by side, one matrix of both (``only=flips``: the flipped cases only); ``pair``
        (repeatable, ``BASE=NEW``) pairs targets; without ``base`` and ``new``, the newest two
        comparable runs (:func:`~fcbench.view.runs.default_pair`)."""
        if not base or not new:
            found = default_pair(catalog.runs())
            if found is None:
                return HTMLResponse(error_page("no two runs of the same suite and modes to compare"), 404)
            return RedirectResponse("/compare?" + urlencode({"base": found[0], "new": found[1]}), 307)
        b, n = entry(base), entry(new)
        try:
            pairs = [parse_pair(p) for p in pair if p] if pair else None  # the page's choices, if sent
            html = render_compare(
                (b, catalog.summary(b)), (n, catalog.summary(n)), pairs=pairs, only_flips=only == "flips"
            )
        except ConfigError as exc:
            return HTMLResponse(error_page(str(exc)), status_code=422, headers=NO_STORE)
        return HTMLResponse(html, headers=NO_STORE)


def _add_history_routes(app: FastAPI, catalog: RunCatalog, root: Path) -> None:
    """The history page of every run and its JSON."""

    def history(target: str | None) -> HistoryPage:
        keys = {str(e.path): e.key for e in catalog.runs()}
        return catalog.read_all(lambda: history_page(root, keys, target or None))

    @app.get("/history")
    def history_html(target: str = "") -> HTMLResponse:
        """Each named target's pass rate over the runs, model changes marked, and the catalogue."""
        return HTMLResponse(render_history(history(target)), headers=NO_STORE)

    @app.get("/api/history")
    def api_history(target: str = "") -> JSONResponse:
        """The history as JSON (the format of ``fcbench history RUNS --format json``)."""
        return JSONResponse(history(target).history.model_dump(mode="json"), headers=NO_STORE)


def error_page(message: str) -> str:
    """The page answered when a run (or, for the history, one of the runs) cannot be read."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>fcbench view: cannot read</title></head>"
        f'<body><h1>Cannot read</h1><p id="error">{escape(message)}</p>'
        '<p><a href="/">All runs</a></p></body></html>\n'
    )


def run_rows(catalog: RunCatalog, runs: list[RunEntry]) -> list[dict[str, Any]]:
    """The runs as the list shows them, read side by side."""
    summaries = catalog.summaries(runs)
    return [run_row(e, summaries[e.key]) for e in runs]


def run_row(e: RunEntry, summary: RunSummary | UnreadableRun) -> dict[str, Any]:
    """One run as the list shows it; ``error`` says why it cannot be read (None when it can)."""
    m = e.manifest
    error = str(summary) if isinstance(summary, UnreadableRun) else None
    passed, scorable = summary.pass_rate() if isinstance(summary, RunSummary) else (0, 0)
    return {
        "key": e.key,
        "run_id": m.run_id,
        "suite": m.suite,
        "targets": [t.label or t.name or t.ident for t in m.targets],
        "modes": m.modes,
        "started_at": m.started_at,
        "finished_at": m.finished_at,
        "passed": passed,
        "scorable": scorable,
        "pass_rate": passed / scorable if scorable else None,
        "error": error,
    }
