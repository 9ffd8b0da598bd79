"""A person whose browser reads Chinese asks in Chinese (issue 24, point 2, chat side): Chainlit's own
interface in Chinese (its zh-CN translation), the desk's badge and starters in Chinese, the personas
named in Chinese above their messages, and the decision card's labels in Chinese. The screenshot of
the page at the end is kept in .data/browser-shots/ for a person to look at."""
from __future__ import annotations

import re

from graph.core.personas import DESK, PERSONAS, persona_label

from .person import FAILURES, Browser, Page, Site, ask, page_in, speaker_labels

SHOTS = FAILURES.parent / "browser-shots"


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def card_labelled(page: Page, signal: str, labels: tuple[str, ...], chain: str) -> None:
    """Waits for the decision card (its `signal` row's label), then finds each other row's label once and the heading
    of its chain of decisions, `chain`, all in the page's language."""
    card = page.locator(".ai-message th, .ai-message td").filter(has_text=re.compile(f"^{signal}$"))
    card.first.wait_for(timeout=120_000)
    for label in labels:
        assert page.locator(".ai-message td").filter(has_text=re.compile(f"^{label}$")).count() == 1, label
    page.get_by_text(chain).first.wait_for()


def test_a_chinese_request_in_a_chinese_browser(browser: Browser, desk: Site):
    # A browser set to Chinese: navigator.language and every request's Accept-Language say zh-CN.
    with page_in(browser, desk, "test_chinese", locale="zh-CN") as page:
        # Chainlit's words from its zh-CN translation, the desk's own from its Chinese catalogue.
        assert page.locator("#chat-input").get_attribute("placeholder") == "在此输入您的消息..."
        page.locator("#desk-mode").filter(has_text="演示模式 · 合成数据，没有真实数字").wait_for()
        page.locator("#starters button").filter(has_text="英伟达今天能买吗？").wait_for()
        page.locator("[data-step-type=system_message]").filter(has_text="演示模式").first.wait_for()

        ask(page, "英伟达今天能买吗？")
        card_labelled(page, "信号", ("仓位", "入场", "止损", "期限", "置信度"), "决策链：")

        names = set(speaker_labels(page).all_inner_texts())
        chinese = {persona_label(p, "zh") for p in [*PERSONAS, DESK]}
        shown = {n.split(" · ")[0] for n in names}
        assert chinese <= shown, sorted(chinese - shown)
        assert not shown & set(PERSONAS), "an English persona name is shown"
        assert "多头研究员 · 第 1 轮" in names
        bull = page.locator(".ai-message").filter(has=page.locator(".desk-speaker", has_text="多头研究员"))
        bull.first.get_by_role("button", name="编辑").wait_for()  # its Edit button
        shot(page, "chinese-card")  # the view stays on the card at the end
        speaker_labels(page).filter(has_text="多头研究员").first.scroll_into_view_if_needed()
        shot(page, "chinese-speakers")

        # The thread opened again: the labels were stored with the messages.
        page.reload()
        speaker_labels(page).filter(has_text="多头研究员 · 第 1 轮").first.wait_for()
        speaker_labels(page).filter(has_text="风险裁判").first.wait_for()  # the labels drawn down to the last turn
        again = {n.split(" · ")[0] for n in speaker_labels(page).all_inner_texts()}
        assert chinese <= again and not again & set(PERSONAS), sorted(again)


def test_a_request_in_traditional_characters_in_a_taiwanese_browser(browser: Browser, desk: Site):
    """zh-TW: Chainlit's zh-TW translation, the desk's badge, starters, personas and card in traditional
    characters (the simplified catalogue converted), for a request written in them."""
    with page_in(browser, desk, "test_traditional", locale="zh-TW") as page:
        assert page.locator("#chat-input").get_attribute("placeholder") == "在此輸入您的訊息..."
        page.locator("#desk-mode").filter(has_text="演示模式 · 合成數據，沒有真實數字").wait_for()
        page.locator("#starters button").filter(has_text="英偉達今天能買嗎？").wait_for()

        ask(page, "輝達今天能買嗎？")
        card_labelled(page, "信號", ("倉位", "入場", "止損", "期限", "置信度"), "決策鏈：")
        shown = {n.split(" · ")[0] for n in speaker_labels(page).all_inner_texts()}
        traditional = {persona_label(p, "zh-Hant") for p in [*PERSONAS, DESK]}
        assert traditional <= shown, sorted(traditional - shown)
        assert "風險裁判" in shown and "风险裁判" not in shown
        shot(page, "traditional-card")
