"""The user's book: positions and cash as data, read from words or a broker's CSV, kept per user in
the Store, and what a ruling's size means against it (sizing). Pure code plus the Store: no nodes,
no chat. Nothing here applies a change the user has not confirmed: the readers propose, the caller
applies (`apply_changes`) and stores (`BookStore.put`)."""
from .csv_import import CsvImport, read_csv
from .holdings import MAX_CASH, MAX_SHARES, Book, BookError, Position
from .sizing import Sizing, size_against, size_decision
from .store import BookStore
from .words import Change, Problem, Reading, apply_changes, read_holdings, tells_holdings

__all__ = [
    "MAX_CASH", "MAX_SHARES", "Book", "BookError", "BookStore", "Change", "CsvImport", "Position",
    "Problem", "Reading", "Sizing", "apply_changes", "read_csv", "read_holdings", "size_against", "size_decision",
    "tells_holdings",
]
