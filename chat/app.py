"""Trading Desk in Chainlit: the Chainlit handlers. `python -m chat` runs it (chat/__main__.py), and
`chainlit run chat/app.py` from the repository root.

Handlers stay thin: a message either starts a run (a background task, see runs.py), goes to the
running desk as an interjection, or stops it. Around them, installed here by a call each: the
process's set-up (startup.py: the history's tables, the login secret, the refusal of a public
address in local mode), the door (door.py: tokens, thread ids and owners checked before Chainlit sees
a request) and the desk's own routes (serving.py). Threads and the history sidebar come from
history/ (the data layer, its owner checks), logins from logins.py; the settings panel from
panel.py; rendering from render.py; the decision card and chart from card.py; Edit and Switch from
edits.py and edit_actions.py; backtests asked in words ("backtest NVDA from January to March 2024")
from backtests.py, each day's thread opened from backtest_days.py; watches ("watch NVDA every trading
day after the close", /watch), their scheduler and notices from watches.py; the language the chat words itself
in (the thread's, else the browser's) from languages.py, its words from graph's catalogue
(prompts/words_<code>.md, [chat]).
"""
from __future__ import annotations

import json

import chainlit as cl
from chainlit.config import config as chainlit_config
from chainlit.server import app as server
from chainlit.server import sio
from chainlit.types import ThreadDict

from chat.edits import EDIT_ACTION, SWITCH_ACTION, offer_on_resume
from chat.features import edit_actions
from chat.features.backtest_days import DayLinks, render_day
from chat.features.backtests import Backtests
from chat.features.book import Books
from chat.features.compare import Compares, render_desk
from chat.features.mcp import McpEndpoint, render_mcp
from chat.features.paper import PaperBooks
from chat.features.tokens import Tokens
from chat.features.watches import Watches, render_scheduled
from chat.history import LocalFileStorage, is_server_thread, make_data_layer
from chat.kit.commands import declare, typed
from chat.kit.feature import Feature
from chat.kit.feature import Message as Heard
from chat.kit.say import said
from chat.languages import page_language, session_language
from chat.panel import check_settings, describe, next_analysis, settings_widgets
from chat.runs import RESUME_ACTION, STOP_ACTION, ChatRun, DeskService, asks_to_resume
from chat.speakers import label_metadata
from chat.web.accounts import is_loopback
from chat.web.door import Door
from chat.web.event_loop import native_tasks, no_constructor_sleep
from chat.web.logins import DeskAuth
from chat.web.programs import ProgramAuth
from chat.web.serving import Serving, keep_session_files
from chat.web.startup import prepare
from chat.web.tokens import CLIENT_ADDRESS
from graph import (
    DESK,
    DatabaseUnavailable,
    PersonalTokens,
    Settings,
    Situation,
    clock,
    route,
    settle_heap,
    word_list,
)

# Before the loop starts: Chainlit's nest_asyncio left asyncio's Python tasks, and its Message and Step
# constructors sleep 1 ms on the loop (chat/web/event_loop.py says why neither is needed).
native_tasks()
no_constructor_sleep()
SETTINGS = Settings()
prepare(SETTINGS, chainlit_config.run.host)  # exits (2) on a public address in local mode
keep_session_files(SETTINGS.data_dir)  # not .files in the working directory, which Chainlit deletes at the stop
SERVICE = DeskService(SETTINGS)
FILES = LocalFileStorage(SETTINGS.data_dir / "files")
# Who may log in (accounts or local mode), throttling, and the check of each token's epoch.
AUTH = DeskAuth(SETTINGS.data_dir, public=not is_loopback(chainlit_config.run.host))
DOOR = Door(AUTH, lambda: SERVICE.runtime(), SETTINGS)
DOOR.install(server, sio)
SERVING = Serving(AUTH, FILES, lambda: SERVICE.models.live, SETTINGS)
SERVING.install(server)
BOOKS = Books(SERVICE)  # the user's holdings (book.py): told in words, /book, a CSV; stored on Store
BOOKS.guard_uploads(server)  # the cap on uploads (uploads.py)
BACKTESTS = Backtests(SERVICE)  # "backtest NVDA from January to March 2024": a plan, Run, progress, Table 1
WATCHES = Watches(SERVICE)  # watches asked in words, /watch, the scheduler and its notices
TOKENS = Tokens(SERVICE)  # the user's personal tokens for MCP clients (tokens.py): /token, New token, Revoke
COMPARES = Compares(lambda: SERVICE)  # several tickers at once ("NVDA or AMD?"): a desk each, then a comparison
# The desk over MCP at /mcp for programs (Basic with an account, or a personal token): takes no page's message.
MCP = McpEndpoint(server, ProgramAuth(AUTH, PersonalTokens(SETTINGS.data_dir)), lambda: SERVICE.runtime())
# The chat's features (chat/kit/feature.py), in the order a message is offered to them: the tokens' words, a file
# or the book's words, then a backtest, a watch, a comparison (or a note to one running); what none takes goes to
# the desk's run (MCP takes none).
PAPER = PaperBooks(SERVICE)  # the user's paper book (paper.py): /paper, Start, Cancel
FEATURES: tuple[Feature, ...] = (TOKENS, PAPER, BOOKS, BACKTESTS, WATCHES, COMPARES, MCP)
for feature in FEATURES:
    feature.install()  # its buttons
DayLinks(AUTH, lambda: SERVICE.runtime()).install(server)  # a backtest's day opened as its owner's thread



async def _forget_thread(thread_id: str) -> None:
    await SERVICE.delete_thread(thread_id)  # stops a run in flight, deletes checkpoints and notes


@cl.data_layer
def data_layer():
    return make_data_layer(SETTINGS.data_dir, on_delete_thread=_forget_thread, database_url=SETTINGS.database_url)


@cl.password_auth_callback
async def login(username: str, password: str) -> cl.User | None:
    """Accounts (or local mode's shared password), throttled per user name and client address
    (while locked out the answer is 429 with Retry-After, set by tokens.TokenGuard)."""
    return await AUTH.login(username, password, CLIENT_ADDRESS.get())


@cl.on_app_startup
async def startup():
    # Open the runtime (checkpointer, graph, the coordinator's tables) before the first user waits,
    # and score the track record's calls whose window is over, in the background.
    (await SERVICE.runtime()).start_settling()
    await WATCHES.start()  # scheduled runs in this server (DESK_WATCH=off: not in this process)
    await MCP.start()  # MCP sessions at /mcp
    settle_heap()  # what the process has loaded by now is out of every full garbage collection (graph/core/heap.py)


@cl.on_app_shutdown
async def shutdown():
    # Finished backtest days and each compared desk's checkpoints are kept: "resume" goes on after a restart.
    for feature in FEATURES:
        await feature.close()
    await SERVICE.close()


@cl.set_starters
async def starters(user=None, language=None):
    # Chainlit passes the browser's language ("zh-CN"): a Chinese page is offered Chinese requests.
    return [cl.Starter(label=text, message=text)
            for text in word_list(page_language(SETTINGS, language), "chat.starters")]


async def _open_chat(values: dict | None, *, reopened: bool) -> ChatRun:
    chat = cl.user_session.get("chat")
    if chat is None:
        chat = await SERVICE.chat(cl.context.session.thread_id)
        # A first message can race on_chat_start (both await above): keep whichever opened first.
        chat = cl.user_session.get("chat") or chat
        cl.user_session.set("chat", chat)
    page = session_language(SETTINGS, cl.context.session)
    if reopened:
        await chat.speak_as(page)
    else:  # a new chat has no language yet: the page's (DESK_LANGUAGE, else the browser's) until its first request
        chat.language = page
    # A value stored before the door checked settings (rounds "abc" made the thread fail at each
    # reopening) is left out: its default stands, the panel and the session get only what is kept.
    checked = check_settings(values or {}, SETTINGS)
    await cl.ChatSettings(settings_widgets(checked.values, SETTINGS, chat.language)).send()
    if ignored := checked.refusal(chat.language, stored=True):
        await cl.Message(content=ignored, author=DESK, metadata=label_metadata(DESK, language=chat.language)).send()
    await declare(chat.language)  # the composer's "/" menu (kit/commands.py), described in the chat's language
    return chat


@cl.on_chat_start
async def start():
    chat = await _open_chat(cl.user_session.get("chat_settings"), reopened=False)
    await WATCHES.show_notices(chat.language)  # what scheduled runs changed since the last visit, at the top
    # A system message: Chainlit keeps showing the starters under it (an assistant message
    # counts as a conversation and hides them); desk.js keeps a demo badge in the header.
    await cl.Message(content=SERVICE.models.notice_in(chat.language), author=DESK, type="system_message",
                     metadata=label_metadata(DESK, language=chat.language)).send()


@cl.on_chat_resume
async def resume(thread: ThreadDict) -> None:
    metadata = thread.get("metadata") or {}
    if isinstance(metadata, str):  # SQLite hands metadata back as a JSON string
        try:
            metadata = json.loads(metadata)
        except json.JSONDecodeError:
            metadata = {}
    chat = await _open_chat(metadata.get("chat_settings") or cl.user_session.get("chat_settings"), reopened=True)
    steps = thread.get("steps")
    if steps is None:
        steps = thread["steps"] = []
    for step in steps:  # SQLite hands step metadata back as JSON text; the page reads its avatarName
        if isinstance(raw := step.get("metadata"), str):
            try:
                step["metadata"] = json.loads(raw or "{}")
            except json.JSONDecodeError:
                step["metadata"] = {}
    await chat.join(steps)  # a run in flight on the thread: this page joins it (chat/kit/tasks.py)
    # Offers still open get their buttons back; a backtest or a comparison in flight, this page joins it.
    for feature in FEATURES:
        await feature.reopened(chat.thread_id, steps)
    # A backtest's day opened for the first time: told from its checkpoint (backtest_days.py).
    render_day(await SERVICE.runtime(), chat.thread_id, metadata, steps)
    render_scheduled(await SERVICE.runtime(), chat.thread_id, metadata, steps)  # a watch's run, likewise
    render_desk(await SERVICE.runtime(), chat.thread_id, metadata, steps)  # one desk of a comparison, likewise
    await render_mcp(await SERVICE.runtime(), chat.thread_id, metadata, steps, chat.language)  # asked over MCP
    await chat.close_cut_off_turns(steps)
    # Chainlit stores no actions: the Edit buttons come back.
    await offer_on_resume(await SERVICE.runtime(), chat.thread_id, steps)
    # A backtest's day or a scheduled run stopped half-way is the server's to resume (with its date), not the chat's.
    if not is_server_thread(chat.thread_id) and (stopped := await chat.interrupted()) is not None:
        await chat.offer_resume(stopped, steps)  # the same list Chainlit then sends as resume_thread


@cl.on_settings_update
async def settings_updated(values: dict):
    # The door passed Chainlit only the values check_settings keeps (chat/web/door.py), merged into the
    # session's; what it refused is named, and the panel is set back to what is kept.
    kept = {**(cl.user_session.get("chat_settings") or {}), **values}
    chat = cl.user_session.get("chat")
    lang = chat.language if chat is not None else session_language(SETTINGS, cl.context.session)
    if refusal := DOOR.settings_refusal(cl.context.session.id, lang):
        await cl.Message(content=refusal, author=DESK).send()
        await cl.ChatSettings(settings_widgets(kept, SETTINGS, lang)).send()
    await cl.Message(content=describe(next_analysis(kept, SETTINGS), lang), author=DESK).send()


async def _chat() -> ChatRun:
    chat = cl.user_session.get("chat")
    if chat is None:
        chat = await _open_chat(cl.user_session.get("chat_settings"), reopened=False)
    return SERVICE.current(chat)  # the thread's run here, if another tab of it started one


async def _stop(chat: ChatRun) -> None:
    # The desk's run on the thread, else what a feature runs from it (a backtest, a comparison).
    if await chat.stop():
        return
    for feature in FEATURES:
        if await feature.stop(chat.thread_id):
            return
    await said("nothing_running", language=chat.language).send()


@cl.on_message
async def on_message(message: cl.Message):
    chat = await _chat()
    text = typed(message)  # "/book …" picked from the composer's menu reads as if typed (kit/commands.py)
    file_alone = bool(message.elements) and not text  # a CSV sent with no words is not an empty message
    if (problem := DOOR.input_problem(cl.context.session.id)) and not file_alone:
        await cl.Message(content=problem, author=DESK).send()
    if text.lower() == "/stop":
        await _stop(chat)
        return
    if not text and not message.elements:
        return
    if chat.db_out is not None and text:  # its run waits for the database: the message is kept for it (runs.py)
        await chat.interject(text)
        return
    try:
        await _answer(message, text, chat)
    except DatabaseUnavailable:  # no run of this thread waits to take it: said plainly, nothing acted on
        await said("db_not_acted", language=chat.language).send()


async def _answer(message: cl.Message, text: str, chat: ChatRun) -> None:
    """A message, read once and offered to the features, then to the desk's run."""
    nxt = next_analysis(cl.user_session.get("chat_settings"), SETTINGS)
    # What the words are for, read once (graph/routing.py: the order is declared there, the CLI's too).
    values = await SERVICE.state(chat.thread_id)
    analysed = bool(values.get("ticker"))  # then two names compare only when asked
    heard = Heard(message, text, chat, nxt, route(text, Situation(clock.today(), analysed, SETTINGS.language)))
    for feature in FEATURES:  # a CSV, the book's words, a backtest, a watch, a comparison: each feature's own
        if await feature.answer(heard):
            return
    if not text:
        return
    if await chat.busy():
        await chat.interject(text)
        return
    if asks_to_resume(text) and await chat.interrupted() is not None:
        chat.start(None, nxt)  # continue the interrupted run from its last checkpoint
        return
    chat.start(text, nxt, values=values)  # the run reads the thread's language from the state read here


@cl.on_stop
async def chainlit_stop():
    # Chainlit's own stop button (shown only while a handler runs) stops the desk too.
    chat = cl.user_session.get("chat")
    if chat is not None:
        await SERVICE.current(chat).stop()


@cl.action_callback(STOP_ACTION)
async def stop_action(action: cl.Action):
    await _stop(await _chat())


@cl.action_callback(RESUME_ACTION)
async def resume_action(action: cl.Action):
    chat = await _chat()
    if chat.active:
        await said("already_running", language=chat.language).send()
    elif await chat.interrupted() is None:
        await said("nothing_to_resume", language=chat.language).send()
    else:
        chat.start(None, next_analysis(cl.user_session.get("chat_settings"), SETTINGS))


@cl.action_callback(EDIT_ACTION)
async def edit_pressed(action: cl.Action):
    await edit_actions.edit_pressed(action)


@cl.action_callback(SWITCH_ACTION)
async def switch_pressed(action: cl.Action):
    await edit_actions.switch_pressed(action)

