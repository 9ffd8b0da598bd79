"""Editing the past as a person does it (issue 13): a finished analysis, Edit on the Bull
Researcher's turn, new words typed into the composer; the Bear answers them, the earlier
branch's messages fold away, the new card says what changed, and one button switches back.
Screenshots of the edited and the switched-back page go to .data/browser-edit/."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from chat.edits import CHANGED, EDIT_PROMPT_START, OTHER_BRANCH, SUPERSEDED

from .person import FAILURES, Page, ask, decision_card, persona_messages, wait_for_decision

NEW_BULL = "EDITED BULL: the data center backlog is the whole story; buy the dip while it lasts."
SHOTS = FAILURES.parent / "browser-edit"


def words(message) -> str:
    return message.locator(".message-content").first.inner_text()


SIGNAL = re.compile("^Signal$")


def pinned(page: Page, message):
    """The message itself, not whichever one matches later: its place among all messages (new
    ones are only added below)."""
    index = message.evaluate("(m) => [...document.querySelectorAll('.ai-message')].indexOf(m)")
    return page.locator(".ai-message").nth(index)


def shown_persona_turns(page: Page, persona: str) -> list[str]:
    """The persona's messages that are not folded away, by their words."""
    return [t for t in (words(m) for m in persona_messages(page, persona).all())
            if not t.startswith((SUPERSEDED, OTHER_BRANCH))]


def test_edit_the_bulls_turn_then_switch_back(page: Page):
    SHOTS.mkdir(parents=True, exist_ok=True)
    ask(page, "Should I buy NVDA today?")
    wait_for_decision(page)
    bull = persona_messages(page, "Bull Researcher").first
    bear = persona_messages(page, "Bear Researcher").first
    old_bull, old_bear = words(bull), words(bear)
    old_card = pinned(page, page.locator(".ai-message").filter(has=page.locator("td, th", has_text=SIGNAL)).last)
    old_signal = old_card.locator("h2").inner_text()

    edit = bull.get_by_role("button", name="Edit")
    expect(edit).to_be_visible(timeout=20_000)
    edit.click()
    # The desk asks for the new words, showing the current ones.
    question = page.locator(".ai-message", has_text=f"{EDIT_PROMPT_START} the Bull Researcher")
    expect(question).to_be_visible()
    expect(question).to_contain_text(old_bull.split("\n")[0][:50])
    ask(page, NEW_BULL)

    # The Bear answers the new words, after them; the earlier Bull and Bear are folded away.
    card_line = page.locator(".ai-message blockquote", has_text=CHANGED)
    expect(card_line).to_be_visible(timeout=120_000)
    expect(page.locator("#desk-stop")).to_be_hidden(timeout=30_000)
    expect(bull).to_contain_text(SUPERSEDED)
    expect(bear).to_contain_text(SUPERSEDED)
    expect(bull.get_by_role("button", name="Edit")).to_have_count(0)  # no Edit on a folded message
    bulls = shown_persona_turns(page, "Bull Researcher")
    bears = shown_persona_turns(page, "Bear Researcher")
    assert len(bulls) == 1 and bulls[0].startswith(NEW_BULL) and len(bears) == 1
    assert "EDITED BULL" in bears[0]  # the demo Bear quotes (briefly) the turn it answers
    new_bull = pinned(page, persona_messages(page, "Bull Researcher").last)
    new_bear = pinned(page, persona_messages(page, "Bear Researcher").last)
    assert new_bull.bounding_box()["y"] < new_bear.bounding_box()["y"]
    # The new card says what changed against the earlier branch, on the card itself.
    assert re.search(r"(was (BUY|SELL|HOLD)[^→]* → now (BUY|SELL|HOLD)|the decision stands, (BUY|SELL|HOLD))",
                     card_line.inner_text())
    new_card = pinned(page, page.locator(".ai-message").filter(has=page.locator("blockquote", has_text=CHANGED)))
    expect(new_card.locator("td, th", has_text=SIGNAL)).to_be_visible()
    expect(old_card).to_contain_text(SUPERSEDED)
    expect(new_card.get_by_role("button", name="Edit")).to_have_count(0)
    bull.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "after-edit-folded.png"))
    new_card.locator("h2").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "after-edit-card.png"))

    # Back to the earlier branch: its words come back in place, the edit's fold away.
    new_card.get_by_role("button", name="Back to the earlier branch").click()
    expect(page.get_by_text("Now on the original deliberation")).to_be_visible(timeout=30_000)
    expect(bear).to_have_text(re.compile(re.escape(old_bear[:60])))
    expect(bull).not_to_contain_text(SUPERSEDED)
    expect(new_bull).to_contain_text(OTHER_BRANCH)
    expect(new_card).to_contain_text(OTHER_BRANCH)
    expect(old_card.locator("h2")).to_have_text(old_signal)
    expect(bull.get_by_role("button", name="Edit")).to_be_visible()  # the original's turns are editable again
    assert shown_persona_turns(page, "Bull Researcher") == [old_bull]
    expect(decision_card(page)).to_have_count(1)
    bear.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "switched-back.png"))

    # A reload shows the same: what is folded is stored, not only sent.
    page.reload()
    expect(persona_messages(page, "Bear Researcher").first).to_have_text(re.compile(re.escape(old_bear[:60])),
                                                                           timeout=30_000)
    expect(persona_messages(page, "Bull Researcher").last).to_contain_text(OTHER_BRANCH)
    expect(persona_messages(page, "Bull Researcher").first.get_by_role("button", name="Edit")).to_be_visible()
