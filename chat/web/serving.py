"""What the desk's Chainlit server serves besides Chainlit's own, installed by chat/app.py
(`Serving.install`): the history's element files (charts, reports) to the owner of their thread, the
facts public/desk.js asks the page for, and the personas' avatars; the page itself with its fonts
and KaTeX's styles from the app instead of the internet (`offline_page`); and where the server keeps
a session's files (`keep_session_files`).

The routes go in front of Chainlit's, whose catch-all UI route would answer them with the page.
"""
from __future__ import annotations

import fcntl
import logging
import os
import re
import shutil
import socket
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chainlit as cl
import chainlit.config
import chainlit.server
from chainlit.server import get_avatar
from chainlit.session import BaseSession
from chainlit.types import FileReference
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, JSONResponse
from starlette.routing import Route

from graph import DESK, Settings, phrase, private_dir

from ..history import FILES_ROUTE, LocalFileStorage, served_type
from ..languages import page_language, primary
from ..speakers import speaker_persona
from .accounts import DEFAULT_PASSWORD, local_password
from .door import history
from .logins import DeskAuth
from .page_policy import PagePolicy
from .startup import UI
from .tokens import request_token

AVATARS = UI / "public" / "avatars"
# Chainlit's Plotly chunk (3.8 MB: the chart on every decision card). Chainlit loads it when the
# first chart arrives, and evaluating it then froze the page for a moment just as the decision
# card came in; desk.js loads it while the page is idle after opening instead.
PRELOAD = sorted("/assets/" + p.name for p in (Path(cl.__file__).parent / "frontend" / "dist" / "assets")
                 .glob("react-plotly-*.js"))
# What Chainlit's page (frontend/dist/index.html) fetches from the internet, and the copies under
# chat/ui/public served instead: the desk runs air-gapped beside a local model, where those requests
# fail (KaTeX's styles from jsDelivr, Inter from Google Fonts, and the connections opened to them
# ahead). KaTeX's version is the one Chainlit's page bundles.
# The page's own words (public/desk.js) in the page's language: the catalogue's keys, as desk.js names them.
PAGE_WORDS = {"badge": "chat.badge", "badge_title": "chat.badge_title", "stop": "chat.stop_button",
              "stop_title": "chat.stop_button_title", "stages": "chat.stages", "login_title": "chat.login_title",
              "user_name": "chat.login_user", "user_name_placeholder": "chat.login_user_placeholder",
              "thread_loading": "chat.thread_loading"}
# The languages whose catalogue words a run's Stop action (prompts/words_<code>.md; Traditional converted):
# desk.js finds the action by its label and words its own Stop button as the thread does, whatever the page's.
# 停止 is the label in both Chinese scripts: the later, Simplified, words it.
STOP_LANGUAGES = ("en", "de", "es", "fr", "ja", "zh-Hant", "zh")
OFFLINE = {  # what (a pattern): with what ({root}: the page's root path)
    r'\s*<link\s+rel="preconnect"\s+href="https://fonts\.(?:googleapis|gstatic)\.com"[^>]*>': "",
    r'href="https://fonts\.googleapis\.com/css2\?family=Inter[^"]*"': 'href="{root}/public/inter/inter.css"',
    r'href="https://cdn\.jsdelivr\.net/npm/katex@[^"]*/katex\.min\.css"': 'href="{root}/public/katex/katex.min.css"',
}


class Serving:
    """The routes, for one server: its logins, its element files and whether it runs live models."""

    def __init__(self, auth: DeskAuth, files: LocalFileStorage, live: Callable[[], bool],
                 settings: Settings | None = None) -> None:
        self.auth = auth
        self.files = files
        self.live = live
        self.settings = settings or Settings()

    def install(self, server: FastAPI) -> None:
        server.router.routes.insert(0, Route(f"{FILES_ROUTE}/{{key:path}}", self.serve_file, methods=["GET"]))
        server.router.routes.insert(0, Route("/desk/ui.json", self.page_facts, methods=["GET"]))
        server.router.routes.insert(0, Route("/project/translations", translations, methods=["GET"]))
        server.router.routes.insert(0, Route("/avatars/{avatar_id:str}", avatar, methods=["GET"]))
        server.add_middleware(PagePolicy)  # what the page may load (no image from elsewhere)
        chainlit.server.get_html_template = offline_page  # looked up by Chainlit's page route on each request
        logging.getLogger("chainlit").addFilter(_no_readme_per_language)

    async def serve_file(self, request: Request) -> FileResponse:
        """A stored element file: only to the owner of the thread the file belongs to, logged in."""
        user = self.auth.user_of(request_token(request.headers.get("cookie"), request.headers.get("authorization")))
        if user is None:
            raise HTTPException(status_code=401, detail="Not authenticated")
        key = request.path_params["key"]
        path = self.files.stored(key)  # None for a key naming no file (a NUL in it was a 500)
        layer = history()
        if path is None or layer is None:
            raise HTTPException(status_code=404, detail="File not found")
        owner, mime = await layer.stored_file(key)
        if owner != user.identifier:
            raise HTTPException(status_code=404, detail="File not found")
        # Typed as stored (a chart is JSON, see served_type). Same origin as the app: never sniffed
        # into HTML, never run as a page (an SVG's scripts).
        return FileResponse(path, media_type=served_type(mime),
                            headers={"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox"})

    def login_hint(self, language: str = "en") -> str:
        """What the login page says to type: local mode's shared password only while it is the
        documented default (a password someone chose is not shown to whoever opens the page)."""
        if not self.auth.local:
            return phrase(language, "chat.login_accounts")
        if local_password() == DEFAULT_PASSWORD:
            return phrase(language, "chat.login_local_default", password=DEFAULT_PASSWORD)
        return phrase(language, "chat.login_local_set")

    async def page_facts(self, request: Request | None) -> JSONResponse:
        """Asked before login too: the mode (for the demo badge), the login hint, the page's scripts to
        load ahead and the page's own words in the browser's language (its Accept-Language), nothing more."""
        language = page_language(self.settings, request.headers.get("accept-language") if request else None)
        return JSONResponse({"mode": "live" if self.live() else "demo", "login_hint": self.login_hint(language),
                             "preload": PRELOAD, "language": language,
                             "words": {name: phrase(language, key) for name, key in PAGE_WORDS.items()},
                             "stops": stop_words()})


def stop_words() -> dict[str, dict[str, str]]:
    """Each language's Stop action label, with the words of the page's Stop button in that language: a
    Chinese thread's run shows 停止交易台 in an English browser too (issue 35, point 4)."""
    return {phrase(lang, "chat.stop"): {"stop": phrase(lang, "chat.stop_button"),
                                        "stop_title": phrase(lang, "chat.stop_button_title")}
            for lang in STOP_LANGUAGES}


_chainlit_page = chainlit.server.get_html_template
# Chainlit's words that are not true of the desk, by their place in its translations, with the catalogue's key
# that says what is: "New chat" warned "This will clear your current chat history" (issue 35, point 8), but
# the chat stays in the sidebar, whole. In the languages whose catalogue has the chat's words.
CORRECTED = {("navigation", "newChat", "dialog", "description"): "chat.new_chat_description"}
CORRECTED_LANGUAGES = ("en", "zh", "zh-Hant")


def corrected(translation: dict[str, Any], language: str) -> dict[str, Any]:
    """Chainlit's translation for `language`, with CORRECTED's words in it."""
    ours = primary(language)
    if ours not in CORRECTED_LANGUAGES:
        return translation
    for path, key in CORRECTED.items():
        node: Any = translation
        for part in path[:-1]:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and path[-1] in node:
            node[path[-1]] = phrase(ours, key)
    return translation


async def translations(request: Request) -> JSONResponse:
    """Chainlit's /project/translations (its language the page's, or the configured one), corrected."""
    language = chainlit.config.config.ui.language or request.query_params.get("language") or "en-US"
    if not re.fullmatch(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*", language):  # as Chainlit's own route checks
        raise HTTPException(status_code=422, detail="invalid language")
    return JSONResponse({"translation": corrected(chainlit.config.config.load_translation(language), language)})


def offline_page(root_path: str) -> str:
    """Chainlit's page, its links to the internet made links to the app's own copies (OFFLINE)."""
    html = _chainlit_page(root_path)
    root = root_path.rstrip("/")
    for pattern, local in OFFLINE.items():
        html = re.sub(pattern, local.format(root=root).replace("\\", r"\\"), html)  # taken literally
    return html


def _no_readme_per_language(record: logging.LogRecord) -> bool:
    """Chainlit looks for a chainlit_<language>.md for each page load's language and warns when there
    is none, on every page load; the desk has one readme (chainlit.md) for every language."""
    return not record.getMessage().startswith("Translated markdown file for ")


async def avatar(request: Request) -> Any:
    """A debate turn's avatar name carries its round ("Bull Researcher · round 2", shown by desk.js
    above the message): the picture is the persona's. A tool step is drawn with the author's
    avatar too, named after the tool: a cog, where Chainlit would show its own logo."""
    name = speaker_persona(request.path_params["avatar_id"])
    if name == "default":
        name = DESK
    stem = name.strip().lower().replace(" ", "_").replace(".", "_")  # as Chainlit names the files
    if not re.fullmatch(r"[a-z0-9_-]+", stem) or not any(AVATARS.glob(stem + ".*")):
        name = "tool"
    return await get_avatar(name)


def keep_session_files(data_dir: Path) -> Path:
    """Where Chainlit keeps a session's files (uploads, and the charts and reports being sent): a folder
    of this process under the data folder, owner-only, instead of `.files` in Chainlit's app root (the
    working directory of `chainlit run`: a checkout), which Chainlit deletes whole when the server
    stops (chainlit/server.py, its lifespan's end): the folder deleted then is this process's own.
    A process killed (kill -9, a crash) deletes nothing: its folder is deleted at the next start of
    any server on this data folder, found dead by its lock (below). Each file is owner-only (0600 in
    0700 folders): Chainlit writes them with the process's umask, readable by every local user."""
    sessions = private_dir(data_dir / "sessions")
    sessions.chmod(0o700)  # an earlier version's folder may be wider
    host = socket.gethostname()
    for old in sessions.glob(f"{host}-*-*"):
        if _left_behind(old):
            shutil.rmtree(old, ignore_errors=True)
    folder = Path(tempfile.mkdtemp(prefix=f"{host}-{os.getpid()}-", dir=sessions))  # owner-only
    _hold(folder)
    chainlit.config.FILES_DIRECTORY = folder   # read by each session (chainlit/session.py) when it writes
    chainlit.server.FILES_DIRECTORY = folder   # the folder removed at shutdown
    _private_session_files()
    return folder


LOCK = ".alive"
_held: list[int] = []  # the lock of this process's folder: held open (and locked) until the process ends


def _hold(folder: Path) -> None:
    """Lock `folder` for this process's lifetime. The kernel drops the lock when the process dies,
    however it dies: a pid alone could be taken by another process since (in a container the
    server often gets the same pid at every start, so its dead predecessor's folder looked alive)."""
    fd = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    _held.append(fd)


def _left_behind(folder: Path) -> bool:
    """Whether `folder` belongs to a process that is gone: nobody holds its lock. A folder without
    one is an earlier version's, or one a process is just making: judged by its pid."""
    try:
        fd = os.open(folder / LOCK, os.O_RDWR)
    except FileNotFoundError:
        pid = folder.name.removeprefix(f"{socket.gethostname()}-").split("-", 1)[0]
        return pid.isdigit() and (int(pid) == os.getpid() or not _alive(int(pid)))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # held: its process is running
    finally:
        os.close(fd)  # (releases the lock if we took it)
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _private_session_files() -> None:
    """Chainlit's sessions write their files owner-only: the session's folder 0700, each file 0600."""
    if getattr(BaseSession.persist_file, "desk_private", False):
        return
    chainlit_persist = BaseSession.persist_file

    async def persist_file(self: BaseSession, name: str, mime: str, path: str | None = None,
                           content: bytes | str | None = None) -> FileReference:
        self.files_dir.mkdir(mode=0o700, exist_ok=True)
        self.files_dir.chmod(0o700)  # Chainlit's upload route makes it with the umask first
        reference = await chainlit_persist(self, name, mime, path=path, content=content)
        os.chmod(self.files[reference["id"]]["path"], 0o600)
        return reference

    persist_file.desk_private = True  # type: ignore[attr-defined]
    BaseSession.persist_file = persist_file  # type: ignore[method-assign]
