"""Whose each headless thread is (graph/persistence/threads.py): claimed once by the user it first ran for; another
user's claim is refused, and each user lists only their own threads, newest first."""
from __future__ import annotations

from langgraph.store.memory import InMemoryStore

from graph.persistence.threads import ThreadOwners


async def test_a_thread_is_its_first_users_and_listed_for_them_only() -> None:
    owners = ThreadOwners(InMemoryStore())
    assert await owners.claim("ana@example.com", "t1", source="mcp", title="should I buy NVDA today?")
    assert await owners.claim("ana@example.com", "t1", source="cli")  # hers already: still hers
    assert not await owners.claim("bo", "t1", source="mcp")  # another's
    assert await owners.claim("bo", "t2", source="cli", title="  AMD \n 2024-05-03 ")
    assert await owners.owner("t1") == "ana@example.com" and await owners.owns("bo", "t2")
    assert not await owners.owns("bo", "t1") and await owners.owner("nobody's") is None
    ana = await owners.threads("ana@example.com")
    assert [(t.thread_id, t.source, t.title) for t in ana] == [("t1", "mcp", "should I buy NVDA today?")]
    assert [(t.thread_id, t.title) for t in await owners.threads("bo")] == [("t2", "AMD 2024-05-03")]


async def test_threads_are_listed_newest_first() -> None:
    owners = ThreadOwners(InMemoryStore())
    for n in range(3):
        await owners.claim("ana", f"t{n}", source="mcp")
    assert [t.thread_id for t in await owners.threads("ana")] == ["t2", "t1", "t0"]
