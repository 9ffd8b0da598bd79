"""The history's element files (charts, reports): Chainlit's storage provider, on local disk under
DESK_DATA_DIR/files, owner-only, served under FILES_ROUTE to the owner of the thread they belong to
(chat/serving.py). Processes on several machines need that folder shared (or a cloud storage client
instead)."""
from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from chainlit.data.storage_clients.base import BaseStorageClient

from graph import private_dir, write_private

FILES_ROUTE = "/desk-files"


class LocalFileStorage(BaseStorageClient):
    """Element files on local disk, owner-only, served by the app under FILES_ROUTE to the owner
    of the thread they belong to (see chat/serving.py)."""

    def __init__(self, root: Path):
        self.root = root.resolve()

    def path_of(self, object_key: str) -> Path | None:
        path = (self.root / object_key).resolve()
        return path if path.is_relative_to(self.root) else None

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
        path = self.path_of(object_key)
        if path is None or not path.is_file():
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
