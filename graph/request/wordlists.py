"""The parser's vocabularies, kept as plain text files under ``data/``.

One entry per line, ``#`` starts a comment. The files are kept sorted and
without duplicates (tests/request/test_request_data.py checks), so the order in a file
never means anything: code that needs an order (e.g. longest phrase first)
sorts when it loads. Files are read through :mod:`importlib.resources`, so
they are found inside an installed wheel as well as in a source checkout.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable

__all__ = ["DATA", "load_words", "read_entries"]

# The directory holding the word lists and companies.csv.
DATA: Traversable = files(__package__) / "data"


def read_entries(name: str) -> list[str]:
    """The entries of ``data/<name>`` in file order, comments and blanks dropped."""
    entries = []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        entry = line.split("#", 1)[0].strip()
        if entry:
            entries.append(entry)
    return entries


def load_words(name: str) -> frozenset[str]:
    """A word list for membership tests. Callers load each list once, at import."""
    return frozenset(read_entries(name))
