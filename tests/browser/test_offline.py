"""Offline and log noise (issue 21, item 9): the page asks nothing of the internet (the desk runs
air-gapped beside a local model) — Inter and KaTeX's styles come from the app itself — and a page
load logs no "Translated markdown file … not found" warning."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import Response, WebSocket

from .person import VIEWPORT, Browser, Site, login, screenshot_if_failed, wait_for_decision, wait_until_connected

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
SCREENSHOT = Path(__file__).resolve().parents[2] / ".data" / "browser-offline.png"  # git-ignored with .data/


def test_the_page_asks_nothing_of_the_internet(request, browser: Browser, desk: Site):
    requested: list[str] = []
    status: dict[str, int] = {}
    context = browser.new_context(viewport=VIEWPORT)  # from the login page on
    context.set_default_timeout(30_000)
    context.on("request", lambda r: requested.append(r.url))

    def answered(response: Response) -> None:
        status[urlsplit(response.url).path] = response.status
    context.on("response", answered)
    page = context.new_page()

    def socket(ws: WebSocket) -> None:
        requested.append(ws.url)
    page.on("websocket", socket)
    try:
        login(page, desk.base, name="offline")
        wait_until_connected(page)
        page.locator("#starters button", has_text="$TSLA 2024-05-01").click()
        wait_for_decision(page)
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT))
        # KaTeX's styles with their fonts: a formula's letter drawn as the page draws math.
        page.evaluate("""async () => {
            const probe = document.createElement('span');
            probe.className = 'katex';
            probe.id = 'katex-probe';
            probe.style.cssText = 'position:fixed;top:8px;left:8px;z-index:9999;font-size:48px;padding:8px;'
                + 'background:white;color:black';
            probe.innerHTML = '<span class="mathnormal">x</span><span class="mord">=</span>'
                + '<span class="mathnormal">y</span>';
            document.body.appendChild(probe);
            await document.fonts.load('italic 20px KaTeX_Math', 'x');
        }""")
        fonts = page.evaluate("""() => ({
            body: getComputedStyle(document.body).fontFamily,
            inter: [...document.fonts].some(f => f.family.replace(/['"]/g, '') === 'Inter' && f.status === 'loaded'),
            katex: [...document.fonts].some(f => f.family === 'KaTeX_Math' && f.status === 'loaded'),
        })""")
        page.locator("#katex-probe").screenshot(path=str(SCREENSHOT.with_name("browser-offline-katex.png")))
        screenshot_if_failed(request, page)
    finally:
        context.close()

    elsewhere = [url for url in requested
                 if urlsplit(url).scheme not in ("data", "blob") and urlsplit(url).hostname not in LOCAL_HOSTS]
    assert not elsewhere, f"the page asked other hosts: {elsewhere}"
    for path in ("/public/inter/inter.css", "/public/inter/files/inter-latin-wght-normal.woff2",
                 "/public/katex/katex.min.css", "/public/katex/fonts/KaTeX_Math-Italic.woff2"):
        assert status.get(path) == 200, f"{path}: {status.get(path)}"
    assert "Inter" in fonts["body"] and fonts["inter"], fonts
    assert fonts["katex"], fonts


def test_page_loads_log_no_missing_translation(browser: Browser, desk: Site):
    settings: list[int] = []
    context = browser.new_context(viewport=VIEWPORT, storage_state=str(desk.state))
    context.set_default_timeout(30_000)
    context.on("response", lambda r: settings.append(r.status) if "/project/settings" in r.url else None)
    page = context.new_page()
    try:
        for _ in range(3):
            page.goto(desk.base)
            wait_until_connected(page)
    finally:
        context.close()
    assert len(settings) >= 3 and set(settings) == {200}  # each load asked for the readme in its language
    assert "Translated markdown file" not in desk.server.log_text()
