"""The history's reads of threads (the data layer's get_all_user_threads, chat/history/layer.py): their
queries, with Chainlit's column aliases, and their rows as Chainlit's dicts (ThreadDict, StepDict,
ElementDict). The thread ids of the second and third query are bound as an expanding parameter
(`IN :ids`), never pasted into the SQL.

A stored value is not trusted to be what Chainlit wrote: an element's `props` that is empty, NULL,
not JSON or not an object reads as `{}` (Chainlit's own reader parsed it as JSON whatever it was,
and an empty one answered the element's request with a 500).

A thread's steps are read in time order, but each comes after its parent (`parents_first`): the page
puts a step under its parent as it reads them, and one read before its parent is dropped. A tool
call is created before the persona message it goes under is shown (and stamped), so a reopened
thread lost every analyst's tool calls (issue 21)."""
from __future__ import annotations

import json
from typing import Any, cast

from chainlit.element import ElementDict
from chainlit.step import StepDict
from chainlit.types import FeedbackDict, ThreadDict

# A user's threads (or one thread), most recently active first. A thread the server made without a page (a
# scheduled run, chat/features/headless.py) has no message until it is opened: it is as recent as its making.
THREADS = """
    SELECT t."id" AS thread_id, t."createdAt" AS thread_createdat, t."name" AS thread_name,
           t."userId" AS user_id, t."userIdentifier" AS user_identifier, t."tags" AS thread_tags,
           t."metadata" AS thread_metadata, COALESCE(MAX(s."createdAt"), t."createdAt") AS updatedAt
    FROM threads t LEFT JOIN steps s ON t."id" = s."threadId"
    WHERE t."userId" = :user_id OR t."id" = :thread_id
    GROUP BY t."id", t."createdAt", t."name", t."userId", t."userIdentifier", t."tags", t."metadata"
    ORDER BY updatedAt DESC NULLS LAST
    LIMIT :limit
"""
# The steps of those threads (`:ids`), with their feedback.
STEPS = """
    SELECT s."id" AS step_id, s."name" AS step_name, s."type" AS step_type, s."threadId" AS step_threadid,
           s."parentId" AS step_parentid, s."streaming" AS step_streaming,
           s."waitForAnswer" AS step_waitforanswer, s."isError" AS step_iserror,
           s."metadata" AS step_metadata, s."tags" AS step_tags, s."input" AS step_input,
           s."output" AS step_output, s."createdAt" AS step_createdat, s."start" AS step_start,
           s."end" AS step_end, s."generation" AS step_generation, s."showInput" AS step_showinput,
           s."language" AS step_language, f."value" AS feedback_value, f."comment" AS feedback_comment,
           f."id" AS feedback_id
    FROM steps s LEFT JOIN feedbacks f ON s."id" = f."forId"
    WHERE s."threadId" IN :ids
    ORDER BY s."createdAt" ASC
"""
# Their elements.
ELEMENTS = """
    SELECT e."id" AS element_id, e."threadId" AS element_threadid, e."type" AS element_type,
           e."chainlitKey" AS element_chainlitkey, e."url" AS element_url,
           e."objectKey" AS element_objectkey, e."name" AS element_name, e."display" AS element_display,
           e."size" AS element_size, e."language" AS element_language, e."page" AS element_page,
           e."forId" AS element_forid, e."mime" AS element_mime, e."props" AS props
    FROM elements e
    WHERE e."threadId" IN :ids
"""


def props_of(raw: Any) -> dict[str, Any]:
    """An element's stored props as a dict; {} for anything that is not a JSON object."""
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if isinstance(raw, str | bytes) and raw.strip() else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def thread_dict(t: dict[str, Any]) -> ThreadDict:
    return ThreadDict(id=t["thread_id"], createdAt=t["thread_createdat"], name=t["thread_name"], userId=t["user_id"],
                      userIdentifier=t["user_identifier"], tags=t["thread_tags"], metadata=t["thread_metadata"],
                      steps=[], elements=[])


def step_dict(s: dict[str, Any]) -> StepDict:
    feedback = None
    if s["feedback_value"] is not None:
        feedback = FeedbackDict(forId=s["step_id"], id=s.get("feedback_id"), value=s["feedback_value"],
                                comment=s.get("feedback_comment"))
    return StepDict(
        id=s["step_id"], name=s["step_name"], type=s["step_type"], threadId=s["step_threadid"],
        parentId=s.get("step_parentid"), streaming=s.get("step_streaming", False),
        waitForAnswer=s.get("step_waitforanswer"), isError=s.get("step_iserror"),
        metadata=s["step_metadata"] if s.get("step_metadata") is not None else {},
        tags=s.get("step_tags"),
        input=s.get("step_input", "") if s.get("step_showinput") not in [None, "false"] else "",
        output=s.get("step_output", ""), createdAt=s.get("step_createdat"), start=s.get("step_start"),
        end=s.get("step_end"), generation=s.get("step_generation"), showInput=s.get("step_showinput"),
        language=s.get("step_language"), feedback=feedback)


def parents_first(steps: list[StepDict]) -> list[StepDict]:
    """The steps in their order, but a step whose parent is among them and comes later waits for
    it (with its own children), right after it. A parent that is not there leaves its step where it is."""
    ids = {s["id"] for s in steps}
    waiting: dict[str, list[StepDict]] = {}
    placed: set[str] = set()
    out: list[StepDict] = []

    def place(step: StepDict) -> None:
        out.append(step)
        placed.add(step["id"])
        for child in waiting.pop(step["id"], []):
            place(child)

    for step in steps:
        parent = step.get("parentId")
        if parent and parent in ids and parent not in placed and parent != step["id"]:
            waiting.setdefault(parent, []).append(step)
        else:
            place(step)
    for children in waiting.values():  # a loop of parents (not written by Chainlit): kept, in order
        out.extend(c for c in children if c["id"] not in placed)
    return out


def thread_element_dict(e: dict[str, Any], url: str | None) -> ElementDict:
    """An element of a thread read whole (props as JSON text, as Chainlit's thread reads give it)."""
    return cast(ElementDict, {
        "id": e["element_id"], "threadId": e["element_threadid"], "type": e["element_type"],
        "chainlitKey": e.get("element_chainlitkey"), "url": url, "objectKey": e.get("element_objectkey"),
        "name": e["element_name"], "display": e["element_display"], "size": e.get("element_size"),
        "language": e.get("element_language"), "autoPlay": None, "playerConfig": None,
        "page": e.get("element_page"), "props": json.dumps(props_of(e.get("props"))), "forId": e.get("element_forid"),
        "mime": e.get("element_mime")})


def element_dict(row: dict[str, Any]) -> ElementDict:
    """One element's row (`SELECT *`), as Chainlit's get_element gives it (props as a dict)."""
    return ElementDict(
        id=row["id"], threadId=row.get("threadId"), type=row["type"], chainlitKey=row.get("chainlitKey"),
        url=row.get("url"), objectKey=row.get("objectKey"), name=row["name"], props=props_of(row.get("props")),
        display=row["display"], size=row.get("size"), language=row.get("language"), page=row.get("page"),
        autoPlay=row.get("autoPlay"), playerConfig=row.get("playerConfig"), forId=row.get("forId"),
        mime=row.get("mime"))
