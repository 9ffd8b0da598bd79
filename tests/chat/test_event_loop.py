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
