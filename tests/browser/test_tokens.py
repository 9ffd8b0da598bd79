"""Personal tokens as a person sees them (issue 39): `/token` in a Chinese page lists the tokens with 新建令牌 (New
token); pressing it shows the token once, with the MCP client configuration for this page's own origin; a reload
of the thread shows only its last four characters; 撤销 (Revoke) stops it. Screenshots: .data/browser-shots/tokens/
(the new token, the thread reloaded, the list with its Revoke button)."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from graph import PersonalTokens

from .person import FAILURES, Browser, Page, Site, ask, page_in, persona_messages

SHOTS = FAILURES.parent / "browser-shots" / "tokens"
SECRET = re.compile(r"desk_pat_[A-Za-z0-9_-]{43}")


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_a_token_made_with_slash_token_in_chinese_is_shown_once(browser: Browser, desk: Site):
    tokens = PersonalTokens(desk.server.data_dir)
    with page_in(browser, desk, "test_tokens_zh", locale="zh-CN") as page:
        ask(page, "/token")
        listing = persona_messages(page, "Desk").filter(has_text="你的个人令牌").last
        expect(listing).to_be_visible()
        expect(listing).to_contain_text(f"{desk.base}/mcp")
        page.get_by_role("button", name="新建令牌", exact=True).click()
        made = persona_messages(page, "Desk").filter(has_text="你的新令牌").last
        expect(made).to_be_visible()
        expect(made).to_contain_text("只显示这一次")
        expect(made).to_contain_text(f'"url": "{desk.base}/mcp"')
        text = made.inner_text()
        [secret] = set(SECRET.findall(text))
        assert f'"Authorization": "Bearer {secret}"' in text
        assert tokens.verify(secret) == "tester"
        made.locator("pre").last.scroll_into_view_if_needed()
        shot(page, "new-token")

        # The thread reloaded: the message is there, the token is not.
        page.reload()
        again = persona_messages(page, "Desk").filter(has_text="你的新令牌").last
        expect(again).to_be_visible()
        expect(again).to_contain_text(f"desk_pat_…{secret[-4:]}")
        assert secret not in page.content()
        shot(page, "reloaded")

        ask(page, "我的令牌")
        listing = persona_messages(page, "Desk").filter(has_text="你的个人令牌").last
        [token] = tokens.list("tester")  # the one token of the shared desk's tester: this test's
        expect(listing).to_contain_text(token.id)
        revoke = page.get_by_role("button", name=f"撤销 {token.id}", exact=True)
        expect(revoke).to_be_visible()
        shot(page, "listed")
        revoke.click()
        expect(persona_messages(page, "Desk").filter(has_text="已撤销").last).to_contain_text("立即失效")
        assert tokens.verify(secret) is None
