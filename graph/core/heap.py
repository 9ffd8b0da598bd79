"""The process's long-lived objects kept out of the garbage collector's way.

A chat server holds ~335,000 objects, once set up, that live as long as it does: the modules of pandas,
LangChain, LangGraph, Chainlit and Plotly, the graph, the tables. CPython's full collection walks every
one of them, and it runs whenever the objects that survived younger collections reach a quarter of that
count: with 25 analyses starting on one chat server, 5 full passes of 0.23–0.41 s in 8 s, each one
stopping every chat of the process, and freeing almost nothing (0–277 objects; benchmarks/RESULTS.md).

`gc.freeze()` moves what exists once the process is set up to a generation no collection walks, and a
full pass is then left for every 50 younger ones (not 10): an analysis makes many objects that live
for its run (messages, checkpoints, frames), and a full pass over them frees few. Reference cycles
made later are still collected.
"""
from __future__ import annotations

import gc

# Young objects between collections (CPython 3.12's default; 3.11's is 700), middle-aged passes
# between young ones (the default), and middle-aged passes between full ones (the default is 10).
THRESHOLDS = (2000, 10, 50)


def settle_heap() -> int:
    """Collect what start-up left as garbage, freeze the rest, and space out the full passes; the
    number of objects frozen."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    return gc.get_freeze_count()
