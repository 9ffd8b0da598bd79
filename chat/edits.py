"""Editing the past in the chat (issue 13): an Edit action on every finished contribution.

Pressing Edit asks for the new words (the current ones are shown in a code block, whose copy
button makes small corrections easy); the desk then forks right after that turn
(graph/runtime/branches.py, LangGraph time travel) and the thread's ChatRun continues the fork like a
resumed run: only the speakers after the edited turn speak again, streaming as usual. This module
keeps the branches' tags, matches messages to steps and offers the buttons; pressing them is
chat/features/edit_actions.py.

- An edit during a run is refused; stop first. Pressing Edit (or answering its question) while
  the desk runs on the thread gets a word to the user ("stop the run first"): a fork under a
  running task would race it for the thread's next checkpoint, and stopping is one action away.
  Switching branches is refused the same way.
- The page shows the current branch. Every message is tagged, in its stored metadata, with the
  keys of the branches it is on (`Branch.key`): a message is on the branch it was said on, and a
  fork puts every message of the branch it leaves on the new one too, but the edited turn and
  what came after it there. Messages of other branches are collapsed to one line (their first
  words), the rest kept in the metadata; switching branches collapses the branch left and
  restores the words of the branch switched to. The collapse is stored (Chainlit's data layer),
  so a reloaded or reopened thread shows the same. Tags are written lazily, at each edit or
  switch: a message without tags was said on the branch current since the last one. Desk notes
  about edits and switches are on every branch.
- Collapsed messages lose their Edit buttons (a stale one pressed anyway is refused: its turn is
  not on the current branch).
- The re-run's decision card says what changed against the branch it forked from ("was SELL 1.8%
  at 0.80 → now HOLD at 0.55", `card_change`), with a button back to the earlier branch.
- Only the session's own thread: an action naming another thread is refused. Chainlit binds an
  action to the session of the user who pressed it, and the socket's thread was checked at the
  door (chat/app.py), so another user cannot edit or see a fork.

Chainlit stores no actions: a reopened thread gets its Edit buttons (and the card's way back)
from on_chat_resume.

What this module words (a folded message's line, the card's line on the edit) is in the thread's
language, from the catalogue (`chat.edit_…`). Nothing reads those words back but the card's opening
(`card_openings`): a folded message is known by its metadata, in any language.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import chainlit as cl
from chainlit.data import get_data_layer
from chainlit.logger import logger

from graph import (
    DESK,
    DeskRuntime,
    Step,
    edit_change,
    edit_stands_because,
    inert_links,
    language_of,
    persona_label,
    phrase,
    plain_line,
)

from .kit.say import ASIDE

EDIT_ACTION = "edit_turn"
SWITCH_ACTION = "switch_branch"
EDIT_TIMEOUT_S = 900       # time to write the new words
CANCEL_WORDS = frozenset({"cancel", "/cancel", "keep", "never mind"})
# The English openings of a folded message and of a re-run card's line (each language's: `chat.edit_…`). An earlier
# build folded messages without keeping their words in the metadata: those are known by SUPERSEDED, in English.
SUPERSEDED = phrase("en", "chat.edit_superseded")
OTHER_BRANCH = phrase("en", "chat.edit_other_branch")
FOLDED_WORDS = 8           # of a collapsed message's words, on its one line
CHANGED = phrase("en", "chat.edit_card_start")
SENT = "edit_actions"      # user-session key: the Edit and Switch actions sent in this session
# Step metadata (stored with each message by Chainlit's data layer):
BRANCHES = "desk_branches"      # the keys of the branches the message is on
WORDS = "desk_words"            # a collapsed message's words, put back when its branch is current again
NOTE = "desk_note"              # a Desk note about edits and branches: on every branch


def edit_action(thread_id: str, step: Step, language: str = "en") -> cl.Action:
    # The button under each finished turn, in the thread's language.
    return cl.Action(name=EDIT_ACTION, label=phrase(language, "chat.edit"), icon="pencil",
                     tooltip=phrase(language, "chat.edit_tooltip"),
                     payload={"thread_id": thread_id, "step": step.id, "checkpoint": step.checkpoint_id})


def switch_action(thread_id: str, to: str, label: str, language: str = "en") -> cl.Action:
    return cl.Action(name=SWITCH_ACTION, label=label, icon="git-branch", payload={"thread_id": thread_id, "to": to},
                     tooltip=phrase(language, "chat.switch_tooltip"))


# -- the words: a step, a folded message, the card's line (pure) ---------------------------------


def step_words(persona: str, round_: int, language: str) -> str:
    """A step as the user reads it: "Bull Researcher, round 2" ("多头研究员，第 2 轮")."""
    who = persona_label(persona, language)
    if not round_:
        return who
    return phrase(language, "chat.step_label", who=who, round=phrase(language, "chat.round", n=round_))


def folded_line(words: str, language: str, label: str | None = None, ticker: str | None = None) -> str:
    """The one line a folded message shows, with its first words: an edit of the step `label` left it on the
    earlier branch (of a comparison's desk for `ticker`, whose own thread keeps both), or (no label) it is on
    another branch. Its words are plain (no heading, emphasis, quote or bullet of theirs shows): a Markdown mark
    cut off half-way, or a heading in a line, is raw Markdown on the page."""
    first = " ".join(plain_line(words).split()[:FOLDED_WORDS])
    if label is None:
        return phrase(language, "chat.edit_folded_other", words=first)
    if ticker is not None:
        return phrase(language, "chat.edit_folded_desk", label=label, words=first, ticker=ticker)
    return phrase(language, "chat.edit_folded_superseded", label=label, words=first)


def card_openings(language: str) -> tuple[str, ...]:
    """How a re-run card's line on the edit opens, in the thread's language and in English (a thread whose
    language changed since)."""
    return tuple(dict.fromkeys(phrase(lang, "chat.edit_card_start") for lang in (language, "en")))


# "SELL 1.8% at 0.80"; "BUY 2%" when the judge stated no confidence.
_DECISION = re.compile(r"(?P<signal>BUY|SELL|HOLD)(?: (?P<size>-?\d+(?:\.\d+)?%))?"
                       r"(?: at (?P<confidence>\d+(?:\.\d+)?))?")
_FORKED_ROUND = re.compile(r", round (\d+)$")


def _decision_words(text: str, language: str) -> str:
    """"SELL 1.8% at 0.80", "no decision" (graph's edit_change words them so) in `language`."""
    if text == "no decision":
        return phrase(language, "chat.edit_no_decision")
    m = _DECISION.fullmatch(text)
    if m is None:
        return text
    size = phrase(language, "chat.edit_decision_size", size=m["size"]) if m["size"] else ""
    if m["confidence"] is None:
        return phrase(language, "chat.edit_decision_unsure", signal=m["signal"], size=size)
    return phrase(language, "chat.edit_decision", signal=m["signal"], size=size, confidence=m["confidence"])


def change_words(change: str, language: str) -> str:
    """"was SELL 1.8% at 0.80 → now HOLD at 0.55" / "unchanged: HOLD at 0.55" (graph's edit_change) in
    `language`."""
    if change.startswith("unchanged: "):
        return phrase(language, "chat.edit_card_stands",
                      now=_decision_words(change.removeprefix("unchanged: "), language))
    if (m := re.fullmatch(r"was (.+) → now (.+)", change)) is not None:
        return phrase(language, "chat.edit_card_was_now", was=_decision_words(m[1], language),
                      now=_decision_words(m[2], language))
    return change


def _forked_label(forked: Mapping[str, Any], language: str) -> str:
    """The edited step as the user reads it; the fork keeps its persona and its English label."""
    label = str(forked.get("label") or "")
    persona = str(forked.get("persona") or "")
    if not persona:
        return label
    m = _FORKED_ROUND.search(label)
    return step_words(persona, int(m[1]) if m else 0, language)


# -- which message shows which step (pure) ------------------------------------------------


OPENING = 160  # characters of a turn that identify its message


def _flat(text: str) -> str:
    return " ".join(str(text or "").split())


def _opening(text: str) -> str:
    """A turn's opening words, table rows left out (the chat shows key-figure tables apart)."""
    return _flat("\n".join(line for line in text.splitlines() if not line.lstrip().startswith("|")))[:OPENING]


def _said(messages: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if str(m.get("type", "")).endswith("_message")]


def _meta(message: Mapping[str, Any]) -> dict[str, Any]:
    meta = message.get("metadata")
    return dict(meta) if isinstance(meta, Mapping) else {}


def collapsed(message: Mapping[str, Any]) -> bool:
    """Folded away: it is not on the current branch (or an earlier build collapsed it for an edit)."""
    return WORDS in _meta(message) or str(message.get("output", "")).startswith(SUPERSEDED)


def match_messages(steps: Sequence[Step], messages: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Step id -> the id of the message that shows it. Per persona, its steps and its messages
    are paired from the newest back: a message shows a step when it holds the step's opening
    words (the stream may add paragraph breaks, and the chat shows an analyst's key-figure
    table apart), so earlier analyses and collapsed turns never match."""
    out: dict[str, str] = {}
    said = [m for m in _said(messages) if not collapsed(m)]
    for persona in dict.fromkeys(s.persona for s in steps):
        mine = [m for m in said if m.get("name") == persona and m.get("type") == "assistant_message"]
        j = len(mine) - 1
        for step in reversed([s for s in steps if s.persona == persona]):
            words = _opening(inert_links(step.text))  # as the chat showed it (render.py)
            while j >= 0 and words not in _flat(mine[j].get("output", "")):
                j -= 1
            if j < 0:
                break
            out[step.id] = str(mine[j]["id"])
            j -= 1
    return out


def _note(message: Mapping[str, Any]) -> bool:
    """A Desk note about edits and branches (the question for the new words among them), or a Desk message beside
    the deliberation (a feature's: the book stored, a watch set; chat/kit/say.py ASIDE): on every branch."""
    meta = _meta(message)
    return bool(meta.get(NOTE) or meta.get(ASIDE) or message.get("waitForAnswer")
                or str(message.get("output", "")).startswith(EDIT_PROMPT_MARK))


def _own(message: Mapping[str, Any]) -> bool:
    """The person's own words (a question, a follow-up, an edit's new words): never folded, on every branch."""
    return message.get("type") == "user_message"


def superseded_after(messages: Sequence[dict[str, Any]], edited: str, kept: Iterable[str]) -> list[dict[str, Any]]:
    """The messages an edit of the message `edited` leaves on the earlier branch: it and every
    message after it, but those of turns before the edited one (parallel analysts that finished
    later), Desk notes, the person's own messages, and what is already collapsed."""
    said = _said(messages)
    ids = [str(m["id"]) for m in said]
    if edited not in ids:
        return []
    keep = set(kept)
    return [m for m in said[ids.index(edited):]
            if str(m["id"]) not in keep and not _note(m) and not _own(m) and not collapsed(m)]


@dataclass
class Change:
    """A message whose tags or visibility a branch change alters."""
    message: dict[str, Any]   # the stored step, its metadata carrying the new tags
    show: bool | None         # True: its words come back; False: it is collapsed; None: only the tags


def branch_change(messages: Sequence[dict[str, Any]], leaving: str, entering: str,
                  superseded: Iterable[str] | None = None) -> list[Change]:
    """What making branch `entering` current changes on the page, the branch `leaving` having
    been current. `superseded` (the ids of messages an edit leaves behind) says `entering` is a
    new fork of `leaving`: every message on `leaving` is on it too, but those."""
    left = set(superseded) if superseded is not None else None
    out = []
    for m in _said(messages):
        meta = _meta(m)
        if _own(m):  # on every branch; folded by an earlier build, its words come back
            if WORDS in meta:
                out.append(Change({**m, "metadata": meta}, True))
            continue
        if _note(m) or (BRANCHES not in meta and collapsed(m)):
            continue  # on every branch; or collapsed before messages were tagged: left as it is
        tags = list(meta.get(BRANCHES) or [leaving])  # untagged: said since the last branch change
        if left is not None and leaving in tags and str(m["id"]) not in left and entering not in tags:
            tags.append(entering)
        show = entering in tags
        visibility_changes = show == collapsed(m)
        if not visibility_changes and tags == meta.get(BRANCHES):
            continue
        out.append(Change({**m, "metadata": {**meta, BRANCHES: tags}}, show if visibility_changes else None))
    return out


# -- the thread's messages, as stored -------------------------------------------------------------


async def thread_messages(thread_id: str) -> list[dict[str, Any]]:
    """The thread's stored steps in order (the history writer flushes before the read); [] without a data layer."""
    layer = get_data_layer()
    if layer is None:
        return []
    thread = await layer.get_thread(thread_id)
    steps = list((thread or {}).get("steps") or [])
    for step in steps:
        if isinstance(step.get("metadata"), str):  # SQLite hands metadata back as JSON text
            try:
                step["metadata"] = json.loads(step["metadata"] or "{}")
            except json.JSONDecodeError:
                step["metadata"] = {}
    return steps


class _Sent:
    """The Edit and Switch actions sent in this session. Chainlit keeps the user session in the
    thread's metadata and hands it back on resume: an object JSON cannot write comes back as
    None, so a reopened thread starts with none sent (which is true: actions are not stored)."""

    def __init__(self) -> None:
        self.actions: list[cl.Action] = []


def _sent() -> list[cl.Action]:
    sent = cl.user_session.get(SENT)
    if not isinstance(sent, _Sent):
        sent = _Sent()
        cl.user_session.set(SENT, sent)
    return sent.actions


async def _send(action: cl.Action, message_id: str) -> None:
    _sent().append(action)
    await action.send(for_id=message_id)


async def drop_actions(message_id: str) -> None:
    """A collapsed message keeps no Edit or Switch button."""
    sent = _sent()
    for action in [a for a in sent if a.forId == message_id]:
        sent.remove(action)
        await action.remove()


async def offer(desk: DeskRuntime, thread_id: str, messages: Sequence[dict[str, Any]]) -> None:
    """Edit buttons on the current branch's finished turns that have none in this session yet."""
    steps = await desk.history(thread_id)
    offered = {a.forId for a in _sent() if a.name == EDIT_ACTION}
    by_id = {s.id: s for s in steps}
    language = language_of(await desk.state(thread_id))
    for step_id, message_id in match_messages(steps, messages).items():
        if message_id not in offered:
            await _send(edit_action(thread_id, by_id[step_id], language), message_id)


async def offer_way_back(desk: DeskRuntime, thread_id: str, messages: Sequence[dict[str, Any]]) -> None:
    """The card of a re-run decision gets its button back to the earlier branch (a reopened
    thread, or the card's branch current again)."""
    state = await desk.state(thread_id)
    openings = card_openings(language_of(state))
    cards = [m for m in _said(messages) if m.get("name") == DESK and not collapsed(m)
             and any(opening in str(m.get("output", "")) for opening in openings)]
    if not cards or not (actions := card_actions(thread_id, state, register=False)):
        return
    card = str(cards[-1]["id"])
    if not any(a.forId == card and a.name == SWITCH_ACTION for a in _sent()):
        for action in actions:
            await _send(action, card)


async def offer_edits(desk: DeskRuntime, thread_id: str) -> None:
    """After a run (chat/runs.py): Edit buttons on its finished turns."""
    try:
        await offer(desk, thread_id, await thread_messages(thread_id))
    except Exception:  # a convenience after the run: logged, never in the user's way
        logger.exception("Could not offer edits on thread %s", thread_id)


async def offer_on_resume(desk: DeskRuntime, thread_id: str, steps: Sequence[Any]) -> None:
    """A reopened thread (its stored steps, as Chainlit read them): its turns get their Edit
    buttons back (Chainlit stores no actions), and the re-run decision's card its way back."""
    messages = cast(list[dict[str, Any]], list(steps))
    try:
        await offer(desk, thread_id, messages)
        await offer_way_back(desk, thread_id, messages)
    except Exception:  # the buttons are a convenience: reopening the thread must not fail on them
        logger.exception("Could not offer edits on thread %s", thread_id)


# -- the decision card of a re-run (chat/runs.py sends it) ------------------------------------------


def card_change(state: Mapping[str, Any]) -> str | None:
    """The card's line on what the edit changed, once the fork's run has its decision, in the thread's language."""
    forked = state.get("forked")
    if not forked or (change := edit_change(state)) is None:
        return None
    lang = language_of(state)
    return phrase(lang, "chat.edit_card", start=phrase(lang, "chat.edit_card_start"),
                  label=_forked_label(forked, lang), change=change_words(change, lang), why=stands_why(state, lang))


def stands_why(state: Mapping[str, Any], language: str) -> str:
    """When the edit left the decision as it was: why, in the words of the ruling after the edited turn (graph's
    edit_stands_because: quoted from the record, never made up), framed in `language`; "" otherwise."""
    if (stands := edit_stands_because(state)) is None:
        return ""
    who, why = stands
    return phrase(language, "chat.edit_card_why", who=persona_label(who, language), why=inert_links(why))


def card_actions(thread_id: str, state: Mapping[str, Any], *, register: bool = True) -> list[cl.Action]:
    """The card's button back to the branch the edit forked from (none on an unedited branch)."""
    forked = state.get("forked")
    if not forked or edit_change(state) is None:
        return []
    lang = language_of(state)
    actions = [switch_action(thread_id, str(forked["parent_head"]), phrase(lang, "chat.back_to_earlier"), lang)]
    if register:  # sent with the card: kept, so collapsing the card removes it
        _sent().extend(actions)
    return actions


# The question for the new words opens with this in English (chat/features/edit_actions.py asks it), and with
# the mark in every language; a Desk note on every branch.
EDIT_PROMPT_START = phrase("en", "chat.edit_prompt_start")
EDIT_PROMPT_MARK = "✏️"
