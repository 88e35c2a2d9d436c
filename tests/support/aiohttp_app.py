"""An aiohttp application served on a free port of 127.0.0.1 for the length of an ``async with``,
in the test's own event loop (for tests that must see requests as they arrive)::

    async with served(app) as base_url:
        ...  # base_url is http://127.0.0.1:PORT
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from aiohttp import web


@contextlib.asynccontextmanager
async def served(app: web.Application) -> AsyncIterator[str]:
    """Serve ``app`` until the block ends; its base URL."""
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()
