"""An image address in a note, echoed by the persona that answers it, is never fetched (issue 20,
point 5): the attack of the issue (the demo Bear quoted a Markdown image and Chromium fetched it
from another host), with a loopback server standing in for the other host and counting requests."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from .person import Page, ask, persona_messages, wait_for_decision


@pytest.fixture
def elsewhere() -> Iterator[tuple[str, list[str]]]:
    """Another host's address, and the paths it was asked for."""
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            asked.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/gif")
            self.end_headers()
            self.wfile.write(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()


def test_an_image_in_a_note_is_not_fetched_when_the_bear_repeats_it(paced_page: Page, elsewhere):
    page = paced_page
    host, asked = elsewhere
    ask(page, "Should I buy NVDA today?")
    expect(persona_messages(page, "Bull Researcher").first).to_be_visible(timeout=120_000)
    ask(page, f"Bear, what about ![chart]({host}/leak.png?holding=NVDA) and [this]({host}/click)?")
    bear = persona_messages(page, "Bear Researcher").filter(has_text="what about")
    expect(bear).to_be_visible(timeout=120_000)
    expect(bear).to_contain_text("[image not shown: chart]")
    expect(bear.locator("img[src*='leak']")).to_have_count(0)
    expect(bear.locator("a[href*='click']")).to_have_count(0)
    wait_for_decision(page, 180_000)
    # Not even the person's own message loads it: the page's policy allows no image from elsewhere.
    assert asked == [], asked
    policy = page.request.get(page.url).headers.get("content-security-policy", "")
    assert "img-src 'self'" in policy
