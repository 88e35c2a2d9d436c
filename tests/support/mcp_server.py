"""A small MCP server over stdio, for the ``--tools-from-mcp`` tests: ``python mcp_server.py``.

Three tools: a read-only weather lookup, a ticket writer marked ``destructiveHint``, and a search
marked ``readOnlyHint``. The tests start it as a subprocess through the SDK's stdio client.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

SERVER_NAME = "fcbench-test-tools"
SERVER_VERSION = "1.2.3"

server = MCPServer(SERVER_NAME, version=SERVER_VERSION)


@server.tool(description="Current weather for a city.")
def get_weather(city: str, unit: str = "celsius") -> str:
    """Current weather for a city."""
    return f"12 degrees {unit} in {city}"


@server.tool(
    description="Create a support ticket with a title and a priority.",
    annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True),
)
def create_ticket(title: str, priority: str = "normal") -> str:
    """Create a support ticket."""
    return f"ticket created: {title} ({priority})"


@server.tool(
    description="Search the knowledge base for articles.",
    annotations=ToolAnnotations(readOnlyHint=True),
)
def search_articles(query: str, limit: int = 5) -> list[str]:
    """Search the knowledge base."""
    return [query][:limit]


if __name__ == "__main__":
    server.run("stdio")
