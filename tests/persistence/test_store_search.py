"""The desk's SQLite store answers a plain search and a get in one read (graph/persistence/store.py): the same
items as the library's own search, for prefixes, filters, limits and offsets; a label the Store refuses is
refused the same way."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from langgraph.store.base import InvalidNamespaceError
from langgraph.store.sqlite.aio import AsyncSqliteStore

from graph.persistence.store import open_sqlite_store


async def test_a_plain_search_gives_what_the_library_gives(tmp_path: Path) -> None:
    async with open_sqlite_store(tmp_path / "store.sqlite") as desk:
        for i in range(12):
            await desk.aput(("inbox", f"t{i % 3}"), f"n{i:02d}", {"seq": i, "by": "ana" if i % 2 else "bob"})
        await desk.aput(("track", "ana%2Ecom"), "c1", {"signal": "BUY"})
        async with AsyncSqliteStore.from_conn_string(str(tmp_path / "store.sqlite")) as library:
            for prefix, kwargs in [(("inbox",), {}), (("inbox", "t1"), {}), (("inbox",), {"limit": 3, "offset": 2}),
                                   (("inbox",), {"filter": {"by": "ana"}, "limit": 100}), (("track",), {}),
                                   (("nothing",), {}), ((), {"limit": 50})]:
                ours = await desk.asearch(prefix, **kwargs)
                theirs = await library.asearch(prefix, **kwargs)
                assert [(i.namespace, i.key, i.value) for i in ours] == [(i.namespace, i.key, i.value)
                                                                        for i in theirs], (prefix, kwargs)
            for namespace, key in [(("inbox", "t1"), "n01"), (("track", "ana%2Ecom"), "c1"), (("inbox", "t1"), "n00"),
                                   (("inbox",), "n01"), (("nothing",), "x")]:
                ours_one, theirs_one = await desk.aget(namespace, key), await library.aget(namespace, key)
                assert (ours_one and (ours_one.namespace, ours_one.key, ours_one.value)) == (
                    theirs_one and (theirs_one.namespace, theirs_one.key, theirs_one.value)), (namespace, key)
        with pytest.raises(InvalidNamespaceError):
            await desk.asearch(("inbox", "a.b"))
        with pytest.raises(InvalidNamespaceError):
            await desk.aget(("inbox", "a.b"), "k")


async def test_a_plain_search_reads_on_the_loop_and_a_refused_read_goes_the_stores_way(tmp_path: Path,
                                                                                      monkeypatch) -> None:
    async with open_sqlite_store(tmp_path / "store.sqlite") as desk:
        await desk.aput(("inbox", "t1"), "n1", {"seq": 1})
        # Written through the store's own connection, read at once through the loop's.
        assert [i.key for i in await desk.asearch(("inbox", "t1"))] == ["n1"]
        reads = []
        monkeypatch.setattr(desk.conn, "execute_fetchall", _counted(desk.conn.execute_fetchall, reads))
        await desk.aput(("inbox", "t1"), "n2", {"seq": 2})
        assert sorted(i.key for i in await desk.asearch(("inbox", "t1"))) == ["n1", "n2"] and reads == []

        class Busy:  # the file locked by another process (a crashed one's WAL being recovered)
            def execute(self, *_):
                raise sqlite3.OperationalError("database is locked")

            def close(self):
                pass

        monkeypatch.setattr(desk, "_reader", Busy())
        assert sorted(i.key for i in await desk.asearch(("inbox", "t1"))) == ["n1", "n2"] and len(reads) == 1


def _counted(fetch, reads):
    async def counted(*args, **kwargs):
        reads.append(args)
        return await fetch(*args, **kwargs)
    return counted
