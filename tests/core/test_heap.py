"""A set-up process's objects are out of the full collections' way, and cycles made later are still
collected (graph/core/heap.py). In a child process: the test process's own collector is left alone."""
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import gc, weakref
import pandas  # a large module's objects, as a server's imports leave them
from graph.core.heap import THRESHOLDS, settle_heap

kept = [[i] for i in range(1000)]  # lists: always tracked by the collector
assert {id(k) for k in kept} <= {id(o) for o in gc.get_objects()}
frozen = settle_heap()
assert frozen > 10_000, frozen
assert gc.get_freeze_count() == frozen and gc.get_threshold() == THRESHOLDS
ids = {id(o) for o in gc.get_objects()}  # the collector's lists: frozen objects are in none of them
assert not any(id(k) in ids for k in kept), "objects from before are still walked"

class Node:
    pass

def cycle():
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)

gone = cycle()
assert gone() is not None  # only the collector frees a cycle
gc.collect()
assert gone() is None, "a cycle made after set-up was not collected"
print("ok")
"""


def test_settle_heap_freezes_what_is_loaded_and_still_collects_new_cycles() -> None:
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, cwd=root)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
