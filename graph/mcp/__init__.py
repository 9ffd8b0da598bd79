"""The desk as a tool for other agents: a Model Context Protocol server (`python -m graph mcp`, over stdio; the chat's
server serves it over HTTP at /mcp, chat/features/mcp.py).

stdio.py starts it for a local user, server.py binds the desk's tools and resources to the protocol, service.py is
what they do (through the headless runtime the CLI uses), replies.py what they return.
"""
from .server import build_server
from .service import DeskService, Owners
from .stdio import main

# The names the chat imports them by (graph's public face, graph/__init__.pyi).
build_mcp_server = build_server
McpService = DeskService
McpOwners = Owners

__all__ = ["McpOwners", "McpService", "build_mcp_server", "main"]
