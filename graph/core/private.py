"""Private files under DESK_DATA_DIR: created owner-only, never loosened then tightened.

The data folder holds every user's deliberations, checkpoints, login secret and accounts. Files
are created with `os.open(..., 0o600)` and folders with `mkdir(mode=0o700)`, so there is no moment
at which another local user could open them, whatever the process umask. SQLite creates its
`-wal`, `-shm` and `-journal` files with the mode of the database file, so pre-creating the database
privately covers those too.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600
_LOOSE = stat.S_IRWXG | stat.S_IRWXO


def private_dir(path: Path) -> Path:
    """`path` as a folder only its owner can enter (created so; an existing one is left as it is,
    except one created by this app before, see `_tighten`)."""
    if not path.is_dir():
        path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    return path


def private_file(path: Path) -> Path:
    """`path` as a file only its owner can read, created empty if missing (SQLite accepts an empty
    file as an empty database). Its folder is created private too."""
    private_dir(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        _tighten(path)
    else:
        os.close(fd)
    return path


def write_private(path: Path, data: bytes, *, exclusive: bool = False) -> None:
    """Write `data` to a file that is owner-only from its first byte. `exclusive`: fail with
    FileExistsError rather than replace an existing file (two processes racing for a secret).

    All or nothing (issue 36, a full disk): the bytes go to a private temporary file beside `path`, which
    then takes its place in one rename, so a write cut short (ENOSPC) leaves the file as it was, and no
    part of the new one."""
    private_dir(path.parent)
    fd = os.open(temp := path.with_name(f".{path.name}.{os.urandom(6).hex()}.part"),
                 os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if exclusive:
            os.link(temp, path)  # FileExistsError when another process made it first
            temp.unlink()
        else:
            os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _tighten(path: Path) -> None:
    """A database left group- or world-readable by an earlier version of the app (and its SQLite
    side files) is made owner-only: a migration of old data, not a step of creating new files."""
    for p in (path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal"))):
        try:
            mode = p.stat().st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISREG(mode) and mode & _LOOSE:
            p.chmod(stat.S_IMODE(mode) & ~_LOOSE)
