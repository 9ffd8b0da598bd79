"""A page of another origin, open in the same browser as a logged-in user, can neither read the
user's threads nor open their socket (issue 20, point 3): the attack of the issue, a page on
another loopback port (the same site to a cookie, so the login cookie goes with its requests)."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from .person import VIEWPORT, Browser, Site, ask, wait_for_decision, wait_until_connected

# The attacker's page: reads the sidebar's thread list with the visitor's cookie, and opens the
# app's socket, then says what it got in window.stolen.
ATTACK = """<!doctype html><title>elsewhere</title><script>
window.stolen = {};
fetch(APP + "/project/threads", {method: "POST", credentials: "include",
  headers: {"Content-Type": "application/json"},
  body: JSON.stringify({pagination: {first: 20, cursor: null}, filter: {}})})
  .then((r) => r.text()).then((t) => { window.stolen.threads = t; })
  .catch((e) => { window.stolen.threads = "refused: " + e; });
const ws = new WebSocket(APP.replace("http", "ws") + "/ws/socket.io/?EIO=4&transport=websocket");
ws.onopen = () => { window.stolen.socket = "open"; };
ws.onclose = (e) => { window.stolen.socket = window.stolen.socket || "refused " + e.code; };
</script>"""


@pytest.fixture
def elsewhere(desk: Site) -> Iterator[str]:
    """The attacker's page, served from another port of this host."""
    page = ATTACK.replace("APP", f'"{desk.base}"').encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_a_page_of_another_origin_reads_no_thread_and_opens_no_socket(browser: Browser, desk: Site, elsewhere: str):
    context = browser.new_context(viewport=VIEWPORT, storage_state=str(desk.state))
    try:
        page = context.new_page()
        page.goto(desk.base)
        wait_until_connected(page)
        ask(page, "Should I buy NVDA today?")
        wait_for_decision(page)  # the user has a thread with a decision in it

        other = context.new_page()
        other.goto(elsewhere)
        other.wait_for_function("() => window.stolen.threads !== undefined && window.stolen.socket !== undefined",
                                timeout=15_000)
        stolen = other.evaluate("window.stolen")
        assert stolen["threads"].startswith("refused"), stolen
        assert stolen["socket"].startswith("refused"), stolen
        # ...while the app's own page still reads them.
        assert "NVDA" in page.evaluate("""() => fetch('/project/threads', {method: 'POST', credentials: 'include',
            headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({pagination: {first: 20, cursor: null}, filter: {}})}).then((r) => r.text())""")
    finally:
        context.close()
