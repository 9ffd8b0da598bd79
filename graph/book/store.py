"""The confirmed book in the desk's Store (SQLite/Postgres, or LangGraph Server's own), one namespace
per user: ("book", <user>), key "book". Only `put` writes, and only a confirmed book; nothing lists
books across users, so one user's book never reaches another's reads.
"""
from __future__ import annotations

from langgraph.store.base import BaseStore

from ..persistence.namespaces import user_label
from .holdings import Book

BOOK = "book"
_KEY = "book"


class BookStore:
    def __init__(self, store: BaseStore):
        self.store = store

    @staticmethod
    def namespace(user: str) -> tuple[str, str]:
        if not user:
            raise ValueError("a book belongs to a user: no user given")
        return (BOOK, user_label(user))

    async def get(self, user: str) -> Book | None:
        item = await self.store.aget(self.namespace(user), _KEY)
        return Book.from_json(item.value) if item is not None else None

    async def put(self, user: str, book: Book) -> None:
        """Store the user's confirmed book, in place of the one before."""
        await self.store.aput(self.namespace(user), _KEY, book.to_json(), index=False)

    async def remove(self, user: str) -> bool:
        """Forget the user's book; whether there was one."""
        namespace = self.namespace(user)
        existed = await self.store.aget(namespace, _KEY) is not None
        await self.store.adelete(namespace, _KEY)
        return existed
