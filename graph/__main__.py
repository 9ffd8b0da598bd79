import sys

if sys.argv[1:2] == ["mcp"]:  # `python -m graph mcp`: the MCP server over stdio (graph/mcp/)
    from .mcp import main as serve_mcp

    raise SystemExit(serve_mcp(sys.argv[2:]))

from .cli import main

raise SystemExit(main())
