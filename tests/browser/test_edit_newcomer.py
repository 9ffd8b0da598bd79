"""Editing a past turn as the newcomer of issue 35 (point 5) did it: an analysis, a follow-up, a book stored, then
Edit under the Bull high up in the thread. What they missed, each checked here and shot into
.data/browser-edit-newcomer/:

1. the question for the new words is brought into view at once, and the turn pressed is marked as being edited
   (1-edit-pressed.png);
2. the re-run has Stop (#desk-stop, and the run's stop action) while the stage list says it deliberates
   (2-rerun-running.png);
3. the person's own question is never folded; the folded messages are one short line each with no raw Markdown
   (3-folded.png);
4. the re-run's card has the "Your book" line, the book being stored after the analysis; and
5. the decision standing, the card says why in the words of the ruling (4-card.png).

It runs on the paced desk, slow enough to see the re-run going.
"""
from __future__ import annotations

import re

from playwright.sync_api import expect

from chat.edits import CHANGED, EDIT_PROMPT_START, SUPERSEDED

from .person import FAILURES, Browser, Page, Site, ask, page_in, persona_messages, wait_for_decision

SHOTS = FAILURES.parent / "browser-edit-newcomer"
FOLLOW_UP = "why was the judge cautious?"
NEW_BULL = ("The bull case for NVDA is strong: the MACD histogram is positive, macro news tone is positive, and RSI "
            "14 is near oversold, so a rebound is likely. I would buy.")
RAW_MARKDOWN = re.compile(r"\*\*|^#|\s#{1,6}\s|(^|\s)>\s|(^|\s)-\s[A-Z*]")


def in_view(page: Page, locator) -> bool:
    """Some of the element is inside the window (not only somewhere on the page)."""
    box = locator.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] < height - 40 and box["y"] + box["height"] > 60


def written_out(page: Page, message, timeout_s: float = 60) -> None:
    """Until the message's words stop coming (a streaming message shows no buttons, Stop included: a follow-up's
    answer is written out before an Edit may be pressed)."""
    was = None
    for _ in range(int(timeout_s / 1.5)):
        now = message.inner_text()
        if now == was:
            return
        was = now
        page.wait_for_timeout(1500)
    raise AssertionError("the answer is still being written")


def test_edit_high_up_is_seen_stoppable_folds_little_and_explains(paced_page: Page):
    page = paced_page
    SHOTS.mkdir(parents=True, exist_ok=True)
    ask(page, "Should I buy NVDA today?")
    wait_for_decision(page, 180_000)
    expect(page.locator("#desk-stop")).to_be_hidden(timeout=30_000)
    ask(page, FOLLOW_UP)
    answer = persona_messages(page, "Desk").filter(has_text="From the stored deliberation").last
    expect(answer).to_be_visible(timeout=60_000)
    written_out(page, answer)
    # The book is stored after the analysis: the re-run must read it again.
    ask(page, "I hold 200 NVDA at 95 and have $20k cash")
    page.get_by_role("button", name="Store", exact=True).click()
    expect(persona_messages(page, "Desk").filter(has_text="Stored.").last).to_be_visible(timeout=30_000)

    # 1. Edit under the Bull, far up the thread: the question comes into view, the Bull is marked.
    bull = persona_messages(page, "Bull Researcher").first
    page.mouse.move(700, 400)
    page.mouse.wheel(0, -400)  # a person scrolls up (the view stops following the newest words)...
    page.wait_for_timeout(300)
    bull.scroll_into_view_if_needed()  # ...to the Bull
    page.wait_for_timeout(500)
    assert in_view(page, bull)
    bull.get_by_role("button", name="Edit").click()
    question = page.locator(".ai-message", has_text=f"{EDIT_PROMPT_START} the Bull Researcher").last
    expect(question).to_be_visible(timeout=20_000)
    page.wait_for_function(
        """() => { const q = [...document.querySelectorAll('[data-desk-asking], [id^=step-]')]
                     .filter((s) => s.innerText.includes('Editing the Bull'));
                   const last = q[q.length - 1]; if (!last) return false;
                   const r = last.getBoundingClientRect(); return r.top < innerHeight - 100 && r.bottom > 80; }""",
        timeout=10_000)
    assert in_view(page, question)
    edited = page.locator("[data-desk-editing]")
    expect(edited).to_have_count(1)
    expect(edited.locator(".desk-edit-note")).to_contain_text("Being edited")
    expect(edited).to_contain_text(bull.locator(".message-content").first.inner_text()[:40])
    page.screenshot(path=str(SHOTS / "1-edit-pressed.png"))
    expect(page.locator("[data-desk-asking]")).to_have_count(0, timeout=10_000)  # the question's flash passes
    page.mouse.wheel(0, -300)
    edited.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "1b-turn-marked.png"))

    # 2. The re-run: Stop, and a stage list that deliberates.
    ask(page, NEW_BULL)
    expect(page.locator("[data-desk-editing]")).to_have_count(0, timeout=10_000)
    stop = page.locator("#desk-stop")
    expect(stop).to_be_visible(timeout=10_000)
    # From the re-run's start: under the edited turn ("the desk goes on from here"), the Bear still speaking.
    expect(persona_messages(page, "Bull Researcher").last.get_by_role("button", name="Stop")).to_be_visible()
    expect(page.locator("#desk-stages .desk-stages-title")).to_have_text(re.compile("Deliberating"))
    # The stage list: the Bear answers the edited Bull, what came before is done.
    expect(page.locator("#desk-stages .desk-stage-running")).to_have_text(re.compile("Bull ⇄ Bear debate"),
                                                                          timeout=10_000)
    done = page.locator("#desk-stages li.desk-stage-done")
    expect(done.first).to_be_visible()
    assert done.count() >= 4  # the analysts spoke before the edit and are done
    assert page.locator(".step button", has_text=re.compile("^Stop$")).count() >= 1  # the run's own stop action
    page.screenshot(path=str(SHOTS / "2-rerun-running.png"))

    card_line = page.locator(".ai-message blockquote", has_text=CHANGED)
    expect(card_line).to_be_visible(timeout=180_000)
    expect(stop).to_be_hidden(timeout=30_000)

    # 3. The person's own question stays as asked; every folded message is one plain line.
    mine = page.locator("[data-step-type=user_message]")
    expect(mine.filter(has_text=FOLLOW_UP)).to_have_count(1)
    assert not any(SUPERSEDED in t for t in mine.all_inner_texts())
    # Nor is what the desk said beside the deliberation: the book stored is stored on every branch.
    stored = persona_messages(page, "Desk").filter(has_text="Stored.").filter(has_text="Your book")
    expect(stored).to_have_count(1)
    assert stored.locator(".message-content").first.inner_text().startswith("Stored.")
    folded = page.locator("[data-desk-folded]")
    expect(folded.first).to_be_visible(timeout=10_000)
    count = folded.count()
    assert count >= 3
    for i in range(count):
        box = folded.nth(i)
        text = box.locator(".message-content").first.inner_text().strip()
        assert text.startswith(SUPERSEDED), text
        assert "\n" not in text and not RAW_MARKDOWN.search(text), text
        height = box.locator(".message-content").first.bounding_box()["height"]
        assert height <= 30, (text, height)  # one line
    folded.first.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "3-folded.png"))
    mine.filter(has_text=FOLLOW_UP).scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "3b-own-question-kept.png"))

    # 4 and 5. The new card: the book stored since, and why the decision stands.
    card = page.locator(".ai-message").filter(has=page.locator("blockquote", has_text=CHANGED)).last
    expect(card).to_contain_text("Your book:")
    expect(card).to_contain_text("Position:")
    line = card_line.inner_text()
    assert "the decision stands" in line, line  # the demo's Research Manager still counts more bearish signals
    assert re.search(r"The (Research Manager|Risk Judge)'s ruling says why: “[^”]{20,}”", line), line
    assert "**" not in line
    card.locator("h2").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "4-card.png"))
    card.get_by_text("Your book:").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "4b-card-book.png"))


def test_the_same_in_a_chinese_thread(browser: Browser, desk: Site):
    """The words the desk writes about an edit are the thread's language: the mark on the turn, the folded lines,
    the card's line and why the decision stands (the demo's personas write English: their words stay so)."""
    with page_in(browser, desk, "edit-newcomer-zh", locale="zh-CN") as page:
        page.locator("[data-step-type=system_message]").filter(has_text="演示模式").first.wait_for()
        ask(page, "英伟达今天能买吗？")
        page.locator(".ai-message td, .ai-message th").filter(has_text=re.compile(r"^信号$")).first.wait_for(
            timeout=120_000)
        bull = persona_messages(page, "Bull Researcher").first
        bull.get_by_role("button", name="编辑").click()
        question = page.locator(".ai-message", has_text="✏️ 正在编辑").last
        expect(question).to_be_visible(timeout=20_000)
        expect(page.locator("[data-desk-editing] .desk-edit-note")).to_contain_text("正在编辑：交易台在对话末尾")
        ask(page, NEW_BULL)
        card_line = page.locator(".ai-message blockquote", has_text="✏️ 你编辑了")
        expect(card_line).to_be_visible(timeout=120_000)
        expect(page.locator("#desk-stop")).to_be_hidden(timeout=30_000)
        line = card_line.inner_text()
        assert "决定不变" in line and re.search(r"研究经理的裁决说明了原因：“[^”]{20,}”", line), line
        folded = page.locator("[data-desk-folded]")
        expect(folded.first).to_be_visible(timeout=10_000)
        texts = [t.strip() for t in folded.locator(".message-content").all_inner_texts()]
        assert texts and all(t.startswith("已被你对多头研究员，第 1 轮的编辑取代：“") for t in texts), texts
        expect(page.locator("[data-step-type=user_message]").filter(has_text="英伟达今天能买吗")).to_have_count(1)
        card_line.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "5-zh-card.png"))
        folded.first.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "5b-zh-folded.png"))
