"""The chat server runs asyncio's C tasks again after Chainlit's nest_asyncio (chat/web/event_loop.py)."""
import subprocess
import sys

SCRIPT = """
import asyncio, _asyncio
import nest_asyncio
nest_asyncio.apply()
assert asyncio.Task is not _asyncio.Task  # what `chainlit run` leaves
from chat.web.event_loop import native_tasks
assert native_tasks() and not native_tasks()  # once

async def main():
    async def child(i):
        await asyncio.sleep(0)
        return i
    task = asyncio.create_task(child(1))
    future = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_soon(future.set_result, 2)
    done = await asyncio.gather(task, future, child(3))
    return type(task), type(future), done

kind, future_kind, done = asyncio.run(main())
assert kind is _asyncio.Task and future_kind is _asyncio.Future and done == [1, 2, 3], (kind, future_kind, done)
print("ok")
"""


def test_the_servers_tasks_are_the_c_ones_again_after_nest_asyncio() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


STEPS = """
import time
from chat.web.event_loop import no_constructor_sleep
no_constructor_sleep()
import asyncio, uuid
import chainlit as cl
from chainlit.context import ChainlitContext, context_var
from chainlit.session import HTTPSession

def refuse(_seconds):
    raise AssertionError("slept")
time.sleep = refuse  # the constructors' sleep would call it

async def main():
    session = HTTPSession(id=str(uuid.uuid4()), thread_id=str(uuid.uuid4()), token=None, user=None,
                          client_type="webapp", user_env={})
    context_var.set(ChainlitContext(session))
    steps = [cl.Step(name=str(i)).created_at for i in range(2000)]
    messages = [cl.Message(content=str(i)) for i in range(50)]
    return steps, messages

steps, messages = asyncio.run(main())
assert steps == sorted(steps) and len(set(steps)) == len(steps), "not strictly increasing"
assert all(s.endswith("Z") and len(s) == len("2026-11-29T03:24:56.123456Z") for s in steps), steps[:3]
print("ok")
"""


def test_steps_made_in_a_row_are_ordered_by_their_creation_time_without_a_sleep() -> None:
    """Chainlit's constructors slept 1 ms so that two steps never shared a creation time; without the sleep,
    2,000 steps made in a row still have strictly increasing times, all written to the microsecond (the
    history orders a thread's steps by that text)."""
    out = subprocess.run([sys.executable, "-c", STEPS], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]
