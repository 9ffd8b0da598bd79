"""The chat's features beside the desk's own run (chat/runs.py): the book, backtests, watches, comparisons
and editing the past, each built on the kit (chat/kit/)."""
