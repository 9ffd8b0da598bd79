"""The desk's SQLite store answers a plain search in one round trip (graph/persistence/store.py): the same
items as the library's own search, for prefixes, filters, limits and offsets; a label the Store refuses is
refused the same way."""
from __future__ import annotations

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
        with pytest.raises(InvalidNamespaceError):
            await desk.asearch(("inbox", "a.b"))
