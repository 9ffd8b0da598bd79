"""The chat history: Chainlit's data layer with every value bound and every read and write checked
against the thread's owner (layer.py), writing through one queue in call order (writer.py), and its
element files (files.py). The tables themselves are chat/storage.py's."""
from .files import FILES_ROUTE, LocalFileStorage, served_type
from .layer import (
    BACKTEST_DAY_THREAD,
    COMPARED_DESK,
    SCHEDULED_THREAD,
    STORED_AS,
    DeskDataLayer,
    HistoryUnavailable,
    InvalidThreadId,
    NotOwner,
    is_server_thread,
    is_uuid,
    make_data_layer,
    require_thread_id,
    valid_thread_id,
)
from .writer import HistoryWriter

__all__ = ["BACKTEST_DAY_THREAD", "COMPARED_DESK", "FILES_ROUTE", "SCHEDULED_THREAD", "STORED_AS", "DeskDataLayer",
           "HistoryUnavailable", "HistoryWriter", "InvalidThreadId", "LocalFileStorage", "NotOwner", "is_server_thread",
           "is_uuid", "make_data_layer", "require_thread_id", "served_type", "valid_thread_id"]
