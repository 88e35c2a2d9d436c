"""Runs go on uvloop's event loop where it is installed, on asyncio's own where it is not, and a
real request over HTTP works on both (the transport's client against an aiohttp server)."""

from __future__ import annotations

import asyncio
import sys

import aiohttp
import pytest
import uvloop  # a dependency wherever it has a build (not Windows)
from aiohttp import web
from aiohttp_app import served

from fcbench.transport.event_loop import loop_factory, run_async


async def loop_kind_and_reply() -> tuple[type[asyncio.AbstractEventLoop], dict[str, str]]:
    app = web.Application()

    async def answer(request: web.Request) -> web.Response:
        return web.json_response({"echo": (await request.json())["say"]})

    app.router.add_post("/", answer)
    async with (
        served(app) as url,
        aiohttp.ClientSession() as session,
        session.post(f"{url}/", json={"say": "hi"}) as reply,
    ):
        body = await reply.json()
    return type(asyncio.get_running_loop()), body


def test_a_run_uses_uvloop_where_it_is_installed() -> None:
    kind, body = run_async(loop_kind_and_reply())
    assert issubclass(kind, uvloop.Loop)
    assert body == {"echo": "hi"}


def test_without_uvloop_asyncio_s_own_loop_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop now raises ImportError
    assert loop_factory() is None
    kind, body = run_async(loop_kind_and_reply())
    assert not issubclass(kind, uvloop.Loop)
    assert issubclass(kind, asyncio.BaseEventLoop)
    assert body == {"echo": "hi"}
