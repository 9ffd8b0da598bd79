"""The view follows the run (issue 21, point 3): left alone after asking, the page keeps the newest
words in view, speaker after speaker, and shows the decision card's top when the run ends; a
person who scrolls up to read is left there while the desk goes on, and followed again once back at
the bottom. A page reloaded mid-run follows too: test_live_reload.py checks it in the run its reload test
waits for anyway (a paced run of its own cost half a minute)."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from .person import Page, ask, decision_card, persona_messages, wait_for_decision

# What a person sees of the chat, measured in the page: the scrolling box around the messages, how
# far its bottom is from the end, and where the newest message and the card sit in its window.
VIEW = """() => {
  const step = document.querySelector('.step');
  let box = step && step.parentElement;
  const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowY)
    && el.scrollHeight > el.clientHeight;
  while (box && !scrolls(box)) {
    box = box.parentElement;
  }
  if (!box) return null;
  const view = box.getBoundingClientRect();
  const steps = document.querySelectorAll('.step');
  const last = steps[steps.length - 1].getBoundingClientRect();
  const signal = [...document.querySelectorAll('.ai-message th, .ai-message td')]
    .find((cell) => cell.textContent.trim() === 'Signal');
  const card = signal ? signal.closest('.step').getBoundingClientRect() : null;
  return {top: box.scrollTop, height: box.scrollHeight, gap: box.scrollHeight - box.clientHeight - box.scrollTop,
          newestInView: last.top < view.bottom && last.bottom > view.top && last.bottom <= view.bottom + 2,
          cardTop: card ? card.top - view.top : null, window: view.height};
}"""


def newest_in_view(page: Page) -> None:
    """Within a second (a batch of words may be on its way to the next frame)."""
    page.wait_for_function(f"() => {{ const v = ({VIEW})(); return v && v.newestInView; }}", timeout=2_000)


def test_the_view_follows_the_run_lets_a_reader_be_and_ends_on_the_card(paced_page: Page):
    page = paced_page
    ask(page, "Should I buy NVDA today?")
    for persona in ("Market Analyst", "Bull Researcher", "Bear Researcher"):
        message = persona_messages(page, persona).first
        expect(message).to_contain_text(re.compile(r"\w+ \w+ \w+"), timeout=120_000)
        newest_in_view(page)  # the newest words on screen as they come (not each speaker's: the
        # four analysts write at once, and the one below pushes the one above out of the window)

    # The person scrolls up to read: the desk goes on, the view stays where they put it.
    box = page.locator("#chat-input").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] - 300)
    page.mouse.wheel(0, -700)
    page.wait_for_timeout(500)
    read = page.evaluate(VIEW)
    assert read["gap"] > 300, read
    expect(persona_messages(page, "Research Manager").first).to_be_attached(timeout=120_000)
    page.wait_for_function(f"() => ({VIEW})().height > {read['height'] + 100}", timeout=60_000)
    still = page.evaluate(VIEW)
    assert abs(still["top"] - read["top"]) < 5, (read, still)
    assert not still["newestInView"], still

    # Back at the bottom, the view follows again, to the card at the end.
    page.mouse.wheel(0, 100_000)
    page.wait_for_function(f"() => ({VIEW})().gap < 40", timeout=15_000)  # a busy machine scrolls late
    if not decision_card(page).count():
        newest_in_view(page)
    wait_for_decision(page, 180_000)
    expect(page.locator(".js-plotly-plot .main-svg").first).to_be_attached(timeout=30_000)
    page.wait_for_timeout(1_000)  # the chart drawn, the tokens folded under the card
    end = page.evaluate(VIEW)
    assert -1 <= end["cardTop"] < 100, end  # the card's top, where its signal is, is in view (to the pixel)
    expect(decision_card(page).first).to_be_in_viewport()
