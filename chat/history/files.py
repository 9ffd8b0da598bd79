"""The history's element files (charts, reports): Chainlit's storage provider, on local disk under
DESK_DATA_DIR/files, owner-only, served under FILES_ROUTE to the owner of the thread they belong to
(chat/web/serving.py). Processes on several machines need that folder shared (or a cloud storage client
instead)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from chainlit.data.storage_clients.base import BaseStorageClient

from graph import private_dir, write_private

FILES_ROUTE = "/desk-files"
# A file is served as the type its element was stored with: Chainlit's page draws a chart only from
# a response typed application/json, and a chart's file has no extension, so it went out as
# text/plain and a reopened thread showed every chart as an empty plot (issue 21). A type a browser
# could run as a page (HTML, SVG, XML, scripts) is not taken from the row: the name's guess decides.
_MIME = re.compile(r"[a-z0-9][a-z0-9.+-]*/[a-z0-9][a-z0-9.+-]*")
_ACTIVE = re.compile(r"html|xml|svg|script")


def served_type(stored: object) -> str | None:
    """The Content-Type to serve a stored element's file with, from the element's stored mime; None
    to let the file's name decide."""
    mime = stored.strip().lower() if isinstance(stored, str) else ""
    return mime if _MIME.fullmatch(mime) and not _ACTIVE.search(mime) else None


class LocalFileStorage(BaseStorageClient):
    """Element files on local disk, owner-only, served by the app under FILES_ROUTE to the owner
    of the thread they belong to (see chat/web/serving.py)."""

    def __init__(self, root: Path):
        self.root = root.resolve()

    def path_of(self, object_key: str) -> Path | None:
        """Where a key's file goes, or None for a key that names no place under the root (outside
        it, or no path at all: a NUL in it)."""
        try:
            path = (self.root / object_key).resolve()
        except ValueError:  # an embedded NUL: a 500 with a traceback when /desk-files/ served it
            return None
        return path if path.is_relative_to(self.root) else None

    def stored(self, object_key: str) -> Path | None:
        """The key's file, if one is stored (a name too long for the file system is none)."""
        path = self.path_of(object_key)
        try:
            return path if path is not None and path.is_file() else None
        except OSError:  # ENAMETOOLONG, which is_file does not swallow
            return None

    async def upload_file(self, object_key: str, data: bytes | str, mime: str = "application/octet-stream",
                          overwrite: bool = True, content_disposition: str | None = None) -> dict[str, Any]:
        path = self.path_of(object_key)
        if path is None or path == self.root:
            return {}
        private_dir(self.root)
        for folder in reversed(path.relative_to(self.root).parents[:-1]):  # each level owner-only
            private_dir(self.root / folder)
        if overwrite or not path.exists():
            write_private(path, data.encode() if isinstance(data, str) else data)
        return {"object_key": object_key, "url": await self.get_read_url(object_key)}

    async def delete_file(self, object_key: str) -> bool:
        path = self.stored(object_key)
        if path is None:
            return False
        path.unlink()
        for folder in path.parents:  # the element's (and user's) folder, once empty
            if folder == self.root or not folder.is_relative_to(self.root):
                break
            try:
                folder.rmdir()
            except OSError:
                break
        return True

    async def get_read_url(self, object_key: str) -> str:
        return f"{FILES_ROUTE}/{quote(object_key)}"

    async def close(self) -> None:
        return None
