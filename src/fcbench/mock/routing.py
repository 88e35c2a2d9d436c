"""The mock's request dispatch: a route table served as one ASGI app, without a framework.

Paths follow Starlette's syntax and matching: ``{name}`` is one path segment, ``{name:path}``
any text (slashes included), matched against the decoded path. The answer for a request no
route takes is what Starlette's router gives: a path some route has but not for this method is a
405, a path that matches once a trailing slash is added or removed is a 307 redirect to it, and
anything else a 404 (the 404 and 405 bodies are the app's, see :class:`Router`).

Per request this costs one dictionary look-up for a literal path (a few regular-expression
matches for the parameterised ones) and a :class:`~starlette.requests.Request`, where a FastAPI
app also runs four middlewares, an exception-handler wrapper and its dependency resolution.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from starlette.datastructures import URL
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.types import Receive, Scope, Send

Handler = Callable[[Request, Mapping[str, str]], Awaitable[Response]]
"""A route's handler: the request and the path's parameters -> the response."""

Unrouted = Callable[[Request, int], Response]
"""The response for a request no route takes, given its status (404 or 405)."""

_PARAMETER = re.compile(r"\{(\w+)(?::(path))?\}")


@dataclass(frozen=True)
class Rule:
    """One route: a method, a path pattern and the handler that answers it."""

    method: str
    """The HTTP method, e.g. ``POST``; only this method is routed (not HEAD for GET)."""
    path: str
    """The path, literal or with ``{name}`` / ``{name:path}`` parameters."""
    handler: Handler
    """What answers a matching request."""


def compile_path(path: str) -> re.Pattern[str]:
    """A regular expression matching ``path`` whole, one named group per parameter."""
    out, end = [], 0
    for match in _PARAMETER.finditer(path):
        out.append(re.escape(path[end : match.start()]))
        out.append(f"(?P<{match.group(1)}>{'.*' if match.group(2) else '[^/]+'})")
        end = match.end()
    out.append(re.escape(path[end:]))
    return re.compile("^" + "".join(out) + "$")


class Router:
    """An ASGI app answering ``rules``; ``unrouted`` shapes the 404 and 405 answers.

    Literal paths are looked up before parameterised ones, so a table must not give a path to
    both (the mock's does not); parameterised rules are tried in their order.
    """

    def __init__(self, rules: Sequence[Rule], unrouted: Unrouted) -> None:
        self._literal: dict[str, dict[str, Handler]] = {}
        self._patterns: list[tuple[re.Pattern[str], str, Handler]] = []
        for rule in rules:
            if _PARAMETER.search(rule.path):
                self._patterns.append((compile_path(rule.path), rule.method, rule.handler))
            else:
                self._literal.setdefault(rule.path, {})[rule.method] = rule.handler
        self._unrouted = unrouted

    def match(self, path: str, method: str) -> tuple[Handler | None, dict[str, str], bool]:
        """(handler, path parameters, whether any route has this path) for a request."""
        methods = self._literal.get(path)
        if methods is not None:
            return methods.get(method), {}, True
        known = False
        for pattern, rule_method, handler in self._patterns:
            found = pattern.match(path)
            if found is not None:
                if rule_method == method:
                    return handler, found.groupdict(), True
                known = True
        return None, {}, known

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer one HTTP request (other connection types are closed)."""
        if scope["type"] != "http":
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1000})
            return
        request = Request(scope, receive)
        path = scope["path"]
        handler, parameters, known = self.match(path, scope["method"])
        if handler is not None:
            response = await handler(request, parameters)
        elif known:
            response = self._unrouted(request, 405)
        else:
            response = self._redirect(scope) or self._unrouted(request, 404)
        await response(scope, receive, send)

    def _redirect(self, scope: Scope) -> Response | None:
        """A 307 to the same path with its trailing slash toggled, if a route has that path."""
        path = scope["path"]
        if path == "/":
            return None
        other = path.rstrip("/") if path.endswith("/") else path + "/"
        if not self.match(other, scope["method"])[2]:
            return None
        return RedirectResponse(url=str(URL(scope={**scope, "path": other})))
