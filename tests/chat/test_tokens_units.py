"""Personal tokens in the chat, without a server (chat/features/tokens.py): where the MCP client is pointed, the
configuration it is given, and the history's STORED_AS (chat/history/layer.py), which keeps a secret shown once out
of the stored rows whichever database holds them (the step's columns are worked out once for SQLite and Postgres)."""
from __future__ import annotations

import json

from chat.features.tokens import client_config, masked, mcp_url, tokens_table
from chat.history import STORED_AS, DeskDataLayer
from graph import PersonalToken

SECRET = "desk_pat_" + "A" * 39 + "x9Qz"


def test_the_mcp_url_is_the_page_s_own_origin_else_the_host_the_socket_used():
    assert mcp_url({"HTTP_ORIGIN": "https://desk.example.com", "HTTP_HOST": "10.0.0.5:8000"}) == \
        "https://desk.example.com/mcp"
    assert mcp_url({"HTTP_ORIGIN": "https://desk.example.com/"}, "/desk/") == "https://desk.example.com/desk/mcp"
    assert mcp_url({"HTTP_HOST": "127.0.0.1:8000", "asgi.scope": {"scheme": "ws"}}) == "http://127.0.0.1:8000/mcp"
    assert mcp_url({"HTTP_HOST": "desk.lan", "asgi.scope": {"scheme": "wss"}}, "/d") == "https://desk.lan/d/mcp"
    assert mcp_url({"HTTP_HOST": "10.0.0.5", "HTTP_X_FORWARDED_HOST": "desk.example.com",
                    "HTTP_X_FORWARDED_PROTO": "https"}) == "https://desk.example.com/mcp"
    assert mcp_url({"HTTP_HOST": "[::1]:8000"}) == "http://[::1]:8000/mcp"
    # Nothing usable (an opaque origin, a made-up host): said as a placeholder, never pasted in.
    assert mcp_url({"HTTP_ORIGIN": "null", "HTTP_HOST": "evil`](x)"}) == "http://<this server>/mcp"
    assert mcp_url({}) == "http://<this server>/mcp"


def test_the_client_configuration_is_streamable_http_with_the_bearer_header():
    config = json.loads(client_config("https://desk.example.com/mcp", SECRET))
    assert config == {"mcpServers": {"trading-desk": {"type": "http", "url": "https://desk.example.com/mcp",
                                                      "headers": {"Authorization": f"Bearer {SECRET}"}}}}
    assert masked(SECRET) == "desk_pat_…x9Qz"


def test_the_table_names_a_token_by_its_label_with_no_markup():
    table = tokens_table([PersonalToken("ab12cd34", "alice", "my | *laptop*", "2026-11-25T14:03:09+00:00", None),
                          PersonalToken("ef56ab78", "alice", "", "2026-11-24T09:00:00+00:00",
                                        "2026-11-25T08:00:00+00:00")], "zh")
    assert "| 名称 | 编号 | 创建于 | 上次使用 |" in table
    assert "| my laptop | `ab12cd34` | 2026-11-25 14:03 UTC | 从未 |" in table
    assert "| （无名称） | `ef56ab78` | 2026-11-24 09:00 UTC | 2026-11-25 08:00 UTC |" in table


def test_a_step_stored_as_its_masked_text_never_holds_the_secret():
    layer = object.__new__(DeskDataLayer)  # _step_columns reads the step alone: no database needed
    text = f"Your new token\n\n```\n{SECRET}\n```"
    stored = text.replace(SECRET, masked(SECRET))
    step = {"id": "5f0c6a1e-0000-4000-8000-000000000001", "threadId": "5f0c6a1e-0000-4000-8000-000000000002",
            "type": "assistant_message", "output": text, "metadata": {STORED_AS: stored, "desk_aside": True}}
    columns = layer._step_columns(step)  # type: ignore[arg-type]
    assert columns is not None
    assert columns["output"] == stored and SECRET not in json.dumps(columns)
    # An update of the same message (Chainlit writes the whole step again) is masked the same way.
    columns = layer._step_columns({**step, "output": text + "\n\nmore"})  # type: ignore[arg-type]
    assert columns is not None and SECRET not in json.dumps(columns)
    # Any other step is stored as it is.
    plain = layer._step_columns({**step, "metadata": {}})  # type: ignore[arg-type]
    assert plain is not None and plain["output"] == text
