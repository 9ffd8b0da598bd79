"""The Chainlit handlers, the login, the file route and the SQLite data layer, without a server."""
from __future__ import annotations

import importlib
import json
import os
import uuid
from pathlib import Path

import chainlit as cl
import httpx
import pytest
from chainlit.auth import create_jwt
from chainlit.data import get_data_layer
from chainlit.types import Pagination, ThreadFilter
from chainlit.utils import utc_now

from chat import history, storage
from chat.web import serving, startup
from tests.support.waiting import wait_until


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """chat.app imported once, on a throwaway data folder (it creates its schema at import)."""
    data = tmp_path_factory.mktemp("app-data")
    saved = {k: os.environ.get(k) for k in ("DESK_DATA_DIR", "CHAINLIT_AUTH_SECRET", "DESK_MODE")}
    os.environ.update(DESK_DATA_DIR=str(data), DESK_MODE="demo")
    os.environ.pop("CHAINLIT_AUTH_SECRET", None)
    try:
        module = importlib.import_module("chat.app")
        yield module
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_import_creates_schema_and_a_stored_secret(app):
    data = app.SETTINGS.data_dir
    assert (data / "chat.sqlite").exists()
    secret = (data / "auth_secret").read_text()
    assert len(secret) > 40 and os.environ["CHAINLIT_AUTH_SECRET"] == secret
    assert startup.ensure_auth_secret(data) == secret  # stable across restarts


async def test_login_takes_any_name_with_the_desk_password(app, monkeypatch):
    monkeypatch.delenv("DESK_PASSWORD", raising=False)
    user = await app.login("alice", "desk")
    assert user.identifier == "alice"
    assert await app.login("alice", "wrong") is None
    assert await app.login("  ", "desk") is None
    monkeypatch.setenv("DESK_PASSWORD", "s3cret")
    assert await app.login("bob", "s3cret") and await app.login("bob", "desk") is None


async def test_chat_start_says_the_mode_and_offers_settings_and_starters(app, emitter, service, monkeypatch):
    monkeypatch.setattr(app, "SERVICE", service)
    await app.start()
    # a system message: the page keeps the starters (an assistant message would hide them)
    [notice] = [m for m in emitter.messages.values() if m["type"] == "system_message"]
    assert "Demo mode" in notice["output"] and notice["name"] == "Desk" and not emitter.by_author("Desk")
    # The composer offers the chat's commands on "/" (chat/kit/commands.py); typed out, one Enter still sends one
    # (public/desk.js; tests/browser/test_commands.py).
    [commands] = emitter.named("set_commands")
    assert [c["id"] for c in commands] == ["stop", "book", "watch", "record", "paper", "token"]
    [widgets] = emitter.named("chat_settings")
    ids = [w["id"] for w in widgets]
    assert ids == ["analyst_market", "analyst_social", "analyst_news", "analyst_fundamentals", "analyst_macro",
                   "debate_rounds", "risk_rounds"]
    starters = await app.starters()
    assert starters[0].message == "Should I buy NVDA today?" and len(starters) == 4


async def test_messages_start_one_run_interject_and_stop(app, emitter, service, monkeypatch):
    monkeypatch.setattr(app, "SERVICE", service)
    service.models.get('').delay_ms = 3
    await app.on_message(cl.Message(content="/stop"))
    assert emitter.by_author("Desk")[-1]["output"] == "Nothing is running."

    await app.on_message(cl.Message(content="Should I buy NVDA today?"))
    chat = cl.user_session.get("chat")
    assert chat.active
    await wait_until(lambda: emitter.by_author("Bull Researcher"), what="the bull")
    run = chat.task
    await app.on_message(cl.Message(content="what about margins?"))
    assert chat.task is run  # an interjection, never a second analysis
    assert "will answer this next" in emitter.by_author("Desk")[-1]["output"]
    await app.on_message(cl.Message(content="", command="stop"))
    assert run.done() and not chat.active
    desk = [m["output"] for m in emitter.by_author("Desk")]
    assert desk[-2].startswith("Stopped")
    assert "“what about margins?”" in desk[-1]  # not read before the stop: the user is told, not ignored


async def test_settings_shape_the_next_analysis(app, emitter, service, monkeypatch):
    monkeypatch.setattr(app, "SERVICE", service)
    values = {"analyst_market": True, "analyst_social": False, "analyst_news": False,
              "analyst_fundamentals": False, "debate_rounds": 2, "risk_rounds": 1}
    await app.settings_updated(values)
    assert "Market Analyst; 2 debate round(s)" in emitter.by_author("Desk")[-1]["output"]
    cl.context.session.chat_settings = values
    await app.on_message(cl.Message(content="Should I buy NVDA today?"))
    chat = cl.user_session.get("chat")
    await chat.task
    personas = [a for a in emitter.authors() if a != "Desk"]
    assert personas[0] == "Market Analyst" and "News Analyst" not in personas
    assert len(emitter.by_author("Bull Researcher")) == 2


async def test_stored_element_files_are_served_before_the_ui_route(app):
    """Ours, not the UI's catch-all (which would answer 200 with the page): a login is asked for,
    and a logged-in user gets only files of their own threads (tests/chat/test_security.py)."""
    await app.FILES.upload_file("u1/e1/chart.svg", b"<svg/>", "image/svg+xml")
    url = await app.FILES.get_read_url("u1/e1/chart.svg")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app.server), base_url="http://t") as http:
        assert (await http.get(url)).status_code == 401
        http.cookies.set("access_token", create_jwt(await app.login("alice", "desk")))
        try:
            assert (await http.get(url)).status_code == 404  # no thread of alice's holds it
            assert (await http.get(f"{history.FILES_ROUTE}/%2e%2e/auth_secret")).status_code == 404
            assert (await http.get(f"{history.FILES_ROUTE}/nope")).status_code == 404
        finally:
            await get_data_layer().engine.dispose()


async def test_sqlite_data_layer_keeps_messages_tool_steps_and_elements(tmp_path, emitter):
    storage.create_schema(storage.chat_db_path(tmp_path))
    layer = history.make_data_layer(tmp_path)
    user = await layer.create_user(cl.User(identifier="alice"))
    thread_id = emitter.session.thread_id
    await layer.update_thread(thread_id, name="NVDA", user_id=user.id, metadata={"chat_settings": {"risk_rounds": 2}})
    msg = cl.Message(content="Signal: BUY", author="Risk Judge")
    msg.created_at = utc_now()
    await layer.create_step(msg.to_dict())
    step = cl.Step(name="get_indicators", type="tool", parent_id=msg.id, default_open=True, auto_collapse=True)
    step.input, step.output = {"x": 1}, "RSI 14 at 55"
    await layer.create_step(step.to_dict())
    image = cl.Image(name="chart.svg", content=b"<svg/>", mime="image/svg+xml", for_id=msg.id)
    await layer.create_element(image)

    thread = await layer.get_thread(thread_id)
    by_name = {s["name"]: s for s in thread["steps"]}
    assert by_name["Risk Judge"]["output"] == "Signal: BUY"
    assert by_name["get_indicators"]["output"] == "RSI 14 at 55"
    assert by_name["get_indicators"]["parentId"] == msg.id
    [element] = thread["elements"]
    assert element["url"].startswith(history.FILES_ROUTE) and element["forId"] == msg.id
    assert isinstance(thread["metadata"], str)  # the SQLite quirk the resume handler copes with
    assert [t["id"] for t in (await layer.get_all_user_threads(user_id=user.id))] == [thread_id]
    await layer.engine.dispose()


async def test_a_comparison_is_one_thread_in_the_sidebar(tmp_path, emitter):
    """"NVDA vs AMD" added three threads to the list (issue 35, point 8): its desks' threads are opened from
    its card, not listed beside it."""
    storage.create_schema(storage.chat_db_path(tmp_path))
    layer = history.make_data_layer(tmp_path)
    user = await layer.create_user(cl.User(identifier="alice"))
    parent, desk = str(uuid.uuid4()), str(uuid.uuid4())
    await layer.update_thread(parent, name="NVDA vs AMD · 2026-11-27", user_id=user.id)
    await layer.update_thread(desk, name="AMD · 2026-11-27 (NVDA vs AMD)", user_id=user.id,
                              metadata={history.COMPARED_DESK: {"parent": parent, "ticker": "AMD"}})
    await layer.flush()
    page = await layer.list_threads(Pagination(first=20), ThreadFilter(userId=user.id))
    assert [t["id"] for t in page.data] == [parent]
    opened = await layer.get_thread(desk)  # still its owner's to open, from the comparison's card
    assert opened is not None and opened["userIdentifier"] == "alice"
    await layer.engine.dispose()


def _avatar_request(name: str):
    from starlette.requests import Request
    return Request({"type": "http", "method": "GET", "path": f"/avatars/{name}", "headers": [],
                    "path_params": {"avatar_id": name}})


@pytest.mark.parametrize("name, picture", [
    ("Bull Researcher", "bull_researcher.svg"), ("Bull Researcher · round 2", "bull_researcher.svg"),
    ("Risk Judge", "risk_judge.svg"), ("Macro Analyst", "macro_analyst.svg"), ("Desk", "desk.svg"),
    ("default", "desk.svg"),
    ("get_price_history", "tool.svg"), ("*", "tool.svg"), ("..", "tool.svg")])
async def test_avatars_are_the_personas_and_a_cog_for_tools(app, name, picture):
    response = await serving.avatar(_avatar_request(name))
    assert str(response.path).endswith(f"public/avatars/{picture}")


async def test_the_page_is_told_the_mode_and_what_to_type_at_the_login(app, monkeypatch):
    monkeypatch.delenv("DESK_PASSWORD", raising=False)
    facts = json.loads((await app.SERVING.page_facts(None)).body)
    preload = facts.pop("preload")
    words = facts.pop("words")  # the page's own words in the browser's language (test_language.py)
    # each language's Stop action label, and the Stop button's words in it (a 中文 thread in any browser)
    stops = facts.pop("stops")
    assert stops["Stop"]["stop"] == "Stop the desk" and stops["停止"]["stop"] == "停止交易台"
    assert facts == {"mode": "demo", "login_hint": "Local mode: any user name, password “desk”.", "language": "en"}
    assert words["badge"] == "Demo mode · synthetic data, no real figures"
    # Chainlit's Plotly chunk, for desk.js to load while the page is idle (one file, which exists).
    assert len(preload) == 1 and preload[0].startswith("/assets/react-plotly-")
    assert (Path(cl.__file__).parent / "frontend" / "dist" / preload[0].lstrip("/")).is_file()
    monkeypatch.setenv("DESK_PASSWORD", "s3cret")  # a password someone chose is not shown
    assert app.SERVING.login_hint() == "Local mode: any user name, and the password set in DESK_PASSWORD."
    monkeypatch.setattr(type(app.AUTH), "local", property(lambda self: False))
    assert app.SERVING.login_hint() == "Log in with your account name and password."
