"""An MCP server built on the reference Python SDK (`pip install mcp`), for the interop test.

Usage: python_server.py PORT json|sse
Serves Streamable HTTP on 127.0.0.1:PORT/mcp with one tool, one prompt and one resource.
Works with mcp 2.x (`MCPServer`) and 1.x (`FastMCP`).
"""

import sys

port = int(sys.argv[1])
json_response = sys.argv[2] == "json"

try:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("interop")
    run_options = {"host": "127.0.0.1", "port": port, "json_response": json_response}
except ImportError:
    from mcp.server.fastmcp import FastMCP

    server = FastMCP("interop", host="127.0.0.1", port=port, json_response=json_response)
    run_options = {}


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.prompt()
def greet(who: str) -> str:
    """Greets someone."""
    return f"Say hello to {who}."


@server.resource("mem://readme")
def readme() -> str:
    """A short text."""
    return "Read me."


server.run(transport="streamable-http", **run_options)
