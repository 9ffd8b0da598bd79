"""The user's book over the real server's socket (issue 26, points 1, 5, 6): holdings told in words or
uploaded as a broker's CSV are shown before → after with Store and Cancel, and stored only on Store;
`/book` shows them, `/book remove` forgets them; bad words and bad rows are answered and store nothing;
another user never sees the book and cannot press its Store."""
from __future__ import annotations

import uuid
from datetime import UTC, datetime

import httpx
import pytest

from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, actions, answer, desk_texts, press, user

pytestmark = pytest.mark.e2e

EMPTY = "You have no book yet"


@pytest.fixture(scope="module")
def server(shared_chat_server) -> Server:
    # Shared with the other modules on these settings (tests/conftest.py): each test has its own users.
    return shared_chat_server(DESK_DEMO_DELAY_MS="0")


OFFER = "Nothing is stored until you press"


async def offered(client: DeskClient, text: str, pattern: str = OFFER) -> tuple[str, dict]:
    """Tell the desk something about the book: the offer's text and its Store button."""
    before, cancels = len(actions(client, "book_store")), len(actions(client, "book_cancel"))
    said = await answer(client, text, pattern)
    # Chainlit sends a message's actions one event each, after the message: wait for both buttons.
    await client.wait_for(lambda: len(actions(client, "book_store")) > before
                          and len(actions(client, "book_cancel")) > cancels, 10, "Store and Cancel")
    return said, actions(client, "book_store")[-1]


async def shown_book(client: DeskClient) -> str:
    return await answer(client, "/book", rf"{EMPTY}|\*\*Your book\*\*")


async def upload(client: DeskClient, name: str, data: bytes, mime: str = "text/csv") -> httpx.Response:
    """Attach a file as the page does: Chainlit's upload route, bound to the client's session."""
    async with httpx.AsyncClient(base_url=client.base, headers={"Cookie": client.cookie}) as http:
        return await http.post("/project/file", params={"session_id": client.session_id},
                               files={"file": (name, data, mime)})


async def send_file(client: DeskClient, name: str, data: bytes, text: str = "") -> None:
    """A message with the file attached (its reference from the upload)."""
    uploaded = await upload(client, name, data)
    uploaded.raise_for_status()
    assert client.sio is not None
    message = {"id": str(uuid.uuid4()), "threadId": client.thread_id or "", "name": client.username,
               "type": "user_message", "output": text, "createdAt": datetime.now(UTC).isoformat()}
    await client.sio.emit("client_message", {"message": message, "fileReferences": [{"id": uploaded.json()["id"]}]})


async def test_tell_store_show_then_sell_half(server):
    alice = await user(server, "alice")
    try:
        said, store = await offered(alice, "I hold 200 NVDA at 95 and have $20k cash")
        assert "- set NVDA to 200 @ 95.00" in said and "- set cash to 20,000.00 USD" in said
        assert "| NVDA | — | 200 @ 95.00 |" in said and "| Cash | 0.00 | 20,000.00 |" in said
        assert actions(alice, "book_cancel"), "Cancel beside Store"
        assert EMPTY in await shown_book(alice), "nothing is stored before Store"

        stored = await press(alice, store, "Stored")
        assert "| NVDA | 200 | 95.00 |" in stored
        book = await shown_book(alice)
        assert "| NVDA | 200 | 95.00 |" in book and "**Cash:** 20,000.00 USD" in book
        assert "tell me in words" in book and "/book remove" in book  # how to edit it

        await press(alice, store, "no longer open")  # an offer works once

        _, store = await offered(alice, "I bought 200 AAPL at 150")
        await press(alice, store, "Stored")
        said, store = await offered(alice, "sold half my AAPL")
        assert "sell half of AAPL: 100 of 200, leaving 100" in said
        assert "| AAPL | 200 @ 150.00 | 100 @ 150.00 |" in said and "NVDA" not in said.split("|", 1)[1]
        await press(alice, store, "Stored")
        book = await shown_book(alice)
        assert "| AAPL | 100 | 150.00 |" in book and "| NVDA | 200 | 95.00 |" in book
        assert "**Cash:** 20,000.00 USD" in book  # a trade told in words leaves the cash as told

        # Dropping a position: "/book clear", or "I hold 0".
        _, store = await offered(alice, "/book clear aapl")
        assert "| AAPL | 100 @ 150.00 | — |" in actions_text(alice)
        await press(alice, store, "Stored")
        assert "| AAPL |" not in await shown_book(alice)
        assert "not in your book" in await answer(alice, "/book clear TSLA", "not in your book")
    finally:
        await alice.close()


def actions_text(client: DeskClient) -> str:
    return [t for t in desk_texts(client) if OFFER in t][-1]


async def test_cancel_and_a_stale_offer_store_nothing(server):
    carol = await user(server, "carol")
    try:
        await offered(carol, "I hold 10 MSFT at 400")
        await press(carol, actions(carol, "book_cancel")[-1], "Cancelled: your book is unchanged")
        assert EMPTY in await shown_book(carol)

        # Two offers worked out against the same book: once one is stored, the other would write back
        # a book without it, so it is refused.
        _, first = await offered(carol, "I hold 10 MSFT at 400")
        _, second = await offered(carol, "cash is 5,000")
        await press(carol, second, "Stored")
        await press(carol, first, "Your book changed since this was offered")
        book = await shown_book(carol)
        assert "| MSFT |" not in book and "**Cash:** 5,000.00 USD" in book
    finally:
        await carol.close()


BAD = [
    ("I hold 100 XYZQ at 5", "unknown symbol XYZQ"),
    ("I hold -50 TSLA", "a negative quantity"),
    ("I hold 5 billion AAPL", "more than the 1,000,000,000 a book allows"),
    ("I hold lots of NVDA", "how many NVDA"),
    ("I own a dog", "no holding or cash read"),
    ("sold 300 NVDA", "more than the 200 held"),
    ("I hold 200 AMD at 120 and 10 XYZQ", "unknown symbol XYZQ"),  # one bad part: none of it is stored
]


async def test_bad_inputs_are_answered_and_the_book_kept(server):
    dave = await user(server, "dave")
    try:
        _, store = await offered(dave, "I hold 200 NVDA at 95 and have $20k cash")
        await press(dave, store, "Stored")
        kept = await shown_book(dave)
        for text, reason in BAD:
            offers = len(actions(dave, "book_store"))
            said = await answer(dave, text, "nothing is stored")
            assert reason in said, (text, said)
            assert len(actions(dave, "book_store")) == offers, f"nothing offered for {text!r}"
        assert "What I could read: set AMD to 200 @ 120.00" in desk_texts(dave)[-1]
        assert await shown_book(dave) == kept
    finally:
        await dave.close()


GOOD_CSV = b"Symbol,Quantity,Avg Cost\nNVDA,200,95\nAAPL,50,\"$170.50\"\nMSFT,10,400\nMSFT,10,410\n"
BAD_CSV = b"symbol,quantity,cost\nNVDA,200,95\nAAPL,-5,170\nnot a symbol!,5,1\nMSFT,lots,400\n"


async def test_csv_good_rows_stored_bad_rows_listed(server):
    erin = await user(server, "erin")
    try:
        _, store = await offered(erin, "cash is 1,000")
        await press(erin, store, "Stored")

        before = len(actions(erin, "book_store"))
        await send_file(erin, "positions.csv", GOOD_CSV)
        said = await answer(erin, None, "From \\*\\*positions.csv\\*\\*")
        await erin.wait_for(lambda: len(actions(erin, "book_store")) > before, 10, "the Store button")
        # MSFT's two lots: 20 @ (10*400 + 10*410) / 20 = 405
        for row in ("| AAPL | — | 50 @ 170.50 |", "| MSFT | — | 20 @ 405.00 |", "| NVDA | — | 200 @ 95.00 |"):
            assert row in said
        assert "no cash row: your cash stays" in said and "| Cash |" not in said
        assert "MSFT: 2 rows added into one position" in said
        assert not [t for t in desk_texts(erin) if "was empty" in t], "a file sent alone is not an empty message"
        await press(erin, actions(erin, "book_store")[-1], "Stored")
        book = await shown_book(erin)
        assert "| NVDA | 200 | 95.00 |" in book and "| MSFT | 20 | 405.00 |" in book
        assert "**Cash:** 1,000.00 USD" in book

        offers = len(actions(erin, "book_store"))
        await send_file(erin, "broken.csv", BAD_CSV)
        said = await answer(erin, None, "I could not read \\*\\*broken.csv\\*\\*")
        assert "row 3: a negative quantity (-5) for AAPL" in said
        assert "row 4: 'not a symbol!' is not a symbol" in said
        assert "row 5: the quantity 'lots' is not a number" in said
        assert "nothing is imported" in said and len(actions(erin, "book_store")) == offers
        assert await shown_book(erin) == book
    finally:
        await erin.close()


async def test_uploads_are_small_csv_files(server):
    frank = await user(server, "frank")
    try:
        assert (await upload(frank, "big.csv", b"symbol,qty\n" + b"x" * 2_000_000)).status_code == 413
        assert (await upload(frank, "notes.txt", b"hello", "text/plain")).status_code == 400
        assert (await upload(frank, "book.csv", b"symbol,qty\nNVDA,1\n")).status_code == 200
    finally:
        await frank.close()


async def test_remove_the_book(server):
    gina = await user(server, "gina")
    try:
        assert "no book to remove" in await answer(gina, "/book remove", "no book to remove")
        _, store = await offered(gina, "I hold 5 TSLA")
        await press(gina, store, "Stored")
        said, remove = await offered(gina, "/book remove", "Forget your whole book")
        assert remove["label"] == "Remove" and "1 positions, cash 0.00 USD" in said
        await press(gina, remove, "Your book is removed")
        assert EMPTY in await shown_book(gina)
    finally:
        await gina.close()


async def test_another_user_never_sees_nor_stores_it(server):
    alice = await user(server, "alice")
    bob = await user(server, "bob")
    try:
        _, store = await offered(alice, "I hold 300 NVDA at 90")
        assert EMPTY in await shown_book(bob)

        # Bob sends Alice's Store from his own page: refused, and the offer stays Alice's.
        await bob.click(store)
        await answer(bob, None, "That offer was made to someone else")
        # Bob names Alice's session: Chainlit refuses a session that is not the caller's.
        async with httpx.AsyncClient(base_url=server.base, headers={"Cookie": bob.cookie}) as http:
            r = await http.post("/project/action", json={"sessionId": alice.session_id, "action": store})
        assert r.status_code == 401
        assert EMPTY in await shown_book(alice) and EMPTY in await shown_book(bob)

        await press(alice, store, "Stored")
        assert "| NVDA | 300 | 90.00 |" in await shown_book(alice)
        assert EMPTY in await shown_book(bob)
        # Nor can Bob attach a file to Alice's session.
        async with httpx.AsyncClient(base_url=server.base, headers={"Cookie": bob.cookie}) as http:
            r = await http.post("/project/file", params={"session_id": alice.session_id},
                                files={"file": ("a.csv", b"symbol,qty\nNVDA,1\n", "text/csv")})
        assert r.status_code == 401
    finally:
        await alice.close()
        await bob.close()


async def test_chinese_words_get_chinese_answers(server):
    hua = await user(server, "hua")
    try:
        said, store = await offered(hua, "我持有200股英伟达，成本95，现金2万", "按下 \\*\\*保存\\*\\* 才会存")
        assert "| | 之前 | 之后 |" in said and "| NVDA | — | 200 @ 95.00 |" in said
        assert "| 现金 | 0.00 | 20,000.00 |" in said
        assert store["label"] == "保存"
        stored = await press(hua, store, "已保存")
        assert "**你的持仓**（USD）" in stored and "| NVDA | 200 | 95.00 |" in stored
        said, store = await offered(hua, "卖了一半英伟达", "按下 \\*\\*保存\\*\\* 才会存")
        assert "| NVDA | 200 @ 95.00 | 100 @ 95.00 |" in said
        await press(hua, actions(hua, "book_cancel")[-1], "已取消")
        assert "所以什么都没存" in await answer(hua, "我持有-5股苹果", "所以什么都没存")
    finally:
        await hua.close()


async def test_the_book_outlives_a_restart(tmp_path):
    server = Server(tmp_path, DESK_DEMO_DELAY_MS="0")
    server.start()
    try:
        ivy = DeskClient(server.base, username="ivy")
        await ivy.connect()
        _, store = await offered(ivy, "I hold 200 NVDA at 95 and have $20k cash")
        await press(ivy, store, "Stored")
        await ivy.close()
        server.stop()
        server.start()  # the same data folder: the desk's store (SQLite) keeps the book
        ivy = DeskClient(server.base, username="ivy")
        await ivy.connect()
        book = await shown_book(ivy)
        assert "| NVDA | 200 | 95.00 |" in book and "**Cash:** 20,000.00 USD" in book
        await ivy.close()
    finally:
        server.stop()
