"""The desk as a tool for other agents: a Model Context Protocol server (`python -m graph mcp`, over stdio).

stdio.py starts it for a local user, server.py binds the desk's tools and resources to the protocol, service.py is
what they do (through the headless runtime the CLI uses), replies.py what they return.
"""
from .stdio import main

__all__ = ["main"]
