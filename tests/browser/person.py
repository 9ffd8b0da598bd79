"""What a person does and sees in the chat, for the browser tests (fixtures are in conftest.py)."""
from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.chat_server import ROOT, Server

playwright_sync = pytest.importorskip("playwright.sync_api")
Browser, BrowserContext, Locator, Page = (playwright_sync.Browser, playwright_sync.BrowserContext,
                                          playwright_sync.Locator, playwright_sync.Page)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Playwright's own browser download does not work here: Debian's chromium, without the sandbox
# (CI runs as root) and without anything that reaches out to the network.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
FAILURES = ROOT / ".data" / "browser-failures"
VIEWPORT = {"width": 1440, "height": 900}
PASSWORD = "desk"

# A busy server, as the page sees it reopening a thread: Chainlit's server says which thread it is (a
# first_interaction, "resume"), runs the app's on_chat_resume, and only then sends the thread (resume_thread);
# meanwhile the page draws an empty chat with a composer of its own (the welcome screen's). On a loaded machine
# that takes a second or more. A page that loads with sessionStorage "desk-test-hold" set (the flag goes once
# a page has held) hands its socket's messages from that first_interaction on to the page only once
# window.deskTestRelease() is called, in order; it runs before desk.js, so this is where the messages arrive late
# (hold_next_resume adds it to the context each time: a page holds once).
HOLD_AFTER_RESUME = """(() => {
  if (!sessionStorage.getItem('desk-test-hold') || window.deskTestRelease) return;  // once a page
  const property = Object.getOwnPropertyDescriptor(WebSocket.prototype, 'onmessage');
  let held = null, release = null;
  window.deskTestRelease = () => { if (release) release(); else held = undefined; };
  Object.defineProperty(WebSocket.prototype, 'onmessage', {
    configurable: true,
    enumerable: property.enumerable,
    get() { return property.get.call(this); },
    set(handler) {
      if (typeof handler !== 'function') { property.set.call(this, handler); return; }
      property.set.call(this, (event) => {
        if (held) { held.push(event); return; }
        handler.call(this, event);
        if (held === null && typeof event.data === 'string'
            && event.data.startsWith('42["first_interaction",{"interaction":"resume"')) {
          held = [];
          sessionStorage.removeItem('desk-test-hold');
          window.deskTestHolding = true;
          release = () => { const events = held; held = undefined; events.forEach((e) => handler.call(this, e)); };
        }
      });
    },
  });
})();"""


@dataclass
class Site:
    """A running chat server and a logged-in browser state for it."""
    server: Server
    state: Path

    @property
    def base(self) -> str:
        return self.server.base


def login(page: Page, base: str, name: str = "tester", password: str = PASSWORD) -> None:
    """As a person does: the login page, a name and the password, then the chat."""
    page.goto(f"{base}/login")
    page.locator("#email").fill(name)
    page.locator("#password").fill(password)
    page.locator("button[type=submit]").click()
    page.locator("#chat-input").wait_for(timeout=30_000)


@contextmanager
def page_in(browser: Browser, site: Site, failure: str, locale: str | None = None) -> Iterator[Page]:
    """A logged-in page on a new chat, in a browser set to `locale` (its navigator.language and
    Accept-Language) when given; if the test fails, what it showed is kept in .data/browser-failures/<failure>.png."""
    where = {"locale": locale} if locale else {}
    context = browser.new_context(viewport=VIEWPORT, storage_state=str(site.state), **where)
    context.set_default_timeout(30_000)
    page = context.new_page()
    try:
        page.goto(site.base)
        wait_until_connected(page)
        yield page
    except Exception:
        FAILURES.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(FAILURES / f"{failure}.png"))
        raise
    finally:
        context.close()


@contextmanager
def logged_in_page(request: pytest.FixtureRequest, browser: Browser, base: str, name: str,
                   locale: str | None = None) -> Iterator[Page]:
    """A page of a browser of its own (set to `locale` when given), logged in as `name` on a new chat; screenshotted
    into .data/browser-failures/ if the test fails. For a user nobody else is, or one whose data a test seeded."""
    where = {"locale": locale} if locale else {}
    context = browser.new_context(viewport=VIEWPORT, **where)
    context.set_default_timeout(30_000)
    try:
        page = context.new_page()
        login(page, base, name=name)
        wait_until_connected(page)
        yield page
        screenshot_if_failed(request, page)
    finally:
        context.close()


def open_page(browser: Browser, site: Site) -> tuple[BrowserContext, Page]:
    """A logged-in page on a new chat."""
    context = browser.new_context(viewport=VIEWPORT, storage_state=str(site.state))
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto(site.base)
    wait_until_connected(page)
    return context, page


def hold_next_resume(page: Page) -> None:
    """The page's next load meets a server slow to send the thread back (HOLD_AFTER_RESUME)."""
    page.context.add_init_script(HOLD_AFTER_RESUME)
    page.evaluate("sessionStorage.setItem('desk-test-hold', '1')")


def wait_while_held(page: Page) -> None:
    """Until the reloaded page has been told its thread and waits for it."""
    page.wait_for_function("() => window.deskTestHolding === true", timeout=60_000)


def release_resume(page: Page) -> None:
    """The thread, and everything after it, comes."""
    page.evaluate("window.deskTestRelease()")


def wait_until_connected(page: Page) -> None:
    """Until the chat has started: the mode notice (on_chat_start's last message) is in and the
    starters are enabled. Chainlit disables the composer while on_chat_start runs, and a message
    sent then is dropped (the starters are briefly enabled before it begins, as the socket opens)."""
    page.locator("[data-step-type=system_message]").first.wait_for()
    page.wait_for_function("() => { const s = document.querySelector('#starters button'); return s && !s.disabled; }")


def screenshot_if_failed(request: pytest.FixtureRequest, page: Page) -> None:
    """After the test: if it failed, what its page showed, in .data/browser-failures/<test>.png."""
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        FAILURES.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid)
        page.screenshot(path=str(FAILURES / f"{name}.png"))


def ask(page: Page, text: str) -> None:
    """Type into the composer and press Enter once."""
    box = page.locator("#chat-input")
    box.fill(text)
    box.press("Enter")


def speaker_labels(page: Page) -> Locator:
    """The names written above assistant messages (public/desk.js)."""
    return page.locator(".desk-speaker")


def persona_messages(page: Page, persona: str) -> Locator:
    """Assistant messages whose avatar is `persona`'s (Chainlit names the image after the author)."""
    return page.locator(f".ai-message:has(img[alt^='Avatar for {persona}'])")


def decision_card(page: Page) -> Locator:
    """The decision card's Signal row."""
    return page.locator(".ai-message th, .ai-message td").filter(has_text=re.compile(r"^Signal$"))


def wait_for_decision(page: Page, timeout_ms: int = 120_000) -> None:
    decision_card(page).first.wait_for(timeout=timeout_ms)
