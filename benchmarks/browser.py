"""The chat as a browser shows it: how far the page falls behind the server, and what it costs.

`python -m benchmarks.browser [--runs N] [--busy N] [--no-lag] [--profile] [--keep DIR] [--app CHECKOUT]`

The real chat server (demo mode, the default demo speed, the four analysts streaming at once)
and Debian's Chromium driven by Playwright: log in, ask "should I buy NVDA today?" in a new
chat, wait for the decision card. Per analysis:

- **lag**: from a persona's words leaving the server to the page painting them. The server
  writes one line per send (chat/views/render.py StreamTrace, on with DESK_TRACE_STREAM): the
  wall-clock time and how many words — runs of letters and digits, which Markdown rendering
  leaves as they are — the message holds after it. In the page a MutationObserver marks the
  messages that changed; once per frame (requestAnimationFrame) their words are counted in the
  DOM, text node by text node, and the time is taken in the first task after that frame (a
  MessageChannel message), so layout and paint are inside the lag. A send is painted when the
  page first shows at least its word count for that message. Both clocks are this machine's
  wall clock (performance.timeOrigin + now() in the page). Sends that added no word are not
  counted. Also reported: from a word reaching the chat layer to painted, which adds the
  server's pacing (words wait up to chat/views/render.py STREAM_GAP_S per message to go out together).
- **browser CPU**: user+system CPU seconds of every Chromium process (browser, renderers,
  GPU/utility; /proc/<pid>/stat of the browser's process tree) from the question to half a
  second after the painted card; the renderer's main-thread split (script, layout, style) from
  the Chrome DevTools Protocol's Performance.getMetrics. Each analysis is in a freshly loaded
  page (it loads the chart's Plotly bundle when the card comes); the browser's caches are warm
  after the first. The paint observer is part of the page: --no-lag leaves it out.
- **card**: from pressing Enter to the decision card painted.

`--busy N` runs N spinning processes meanwhile (a loaded machine); `--profile` samples the
page's JavaScript with the CDP profiler and prints where its time goes; `--app` measures another
checkout (its chat/views/render.py needs the DESK_TRACE_STREAM hook) with its own Chainlit config
and page assets; `--keep` keeps each run's sends, paints, CPU timeline and profile.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import re
import statistics
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from graph import ANALYST_PERSONAS

from .support.chat_server import Server
from .support.env import TEST_PACE
from .support.host import spent, tree_cpu

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
QUESTION = "should I buy NVDA today?"
# The decision card's Signal cell, and a chat ready to take a message.
CARD = ".ai-message th, .ai-message td"
SIGNAL = re.compile(r"^Signal$")
CONNECTED_JS = ("() => { const b = document.querySelector('#starters button');"
                " return b ? !b.disabled : !!document.querySelector('#chat-input'); }")
GOALS = {"lag_p95_ms": 250, "browser_cpu_s": 2.0}

# Counts the words of every changed message once per frame; times them after the frame is painted.
OBSERVER_JS = r"""
(() => {
  const paints = window.__deskPaints = [];
  const last = new Map();
  const dirty = new Set();
  let scheduled = false;
  const words = (el) => {  // per text node: a table's cells are separate words, not one run
    const walker = document.createTreeWalker(el.querySelector('.message-content') || el, NodeFilter.SHOW_TEXT);
    let n = 0;
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const m = t.data.match(/[A-Za-z0-9]+/g);
      if (m) n += m.length;
    }
    return n;
  };
  const channel = new MessageChannel();
  let pending = [];
  channel.port1.onmessage = () => {
    const t = performance.timeOrigin + performance.now();
    for (const [id, n] of pending) paints.push({t: t / 1000, id, words: n});
    pending = [];
  };
  const frame = () => {
    scheduled = false;
    for (const id of dirty) {
      const el = document.getElementById('step-' + id);
      if (!el) continue;
      const n = words(el);
      if (last.get(id) !== n) { last.set(id, n); pending.push([id, n]); }
    }
    dirty.clear();
    if (pending.length) channel.port2.postMessage(0);
  };
  const mark = (node) => {
    const el = node && (node.nodeType === 1 ? node : node.parentElement);
    const step = el && el.closest('[id^="step-"]');
    if (step) dirty.add(step.id.slice(5));
    if (el && el.querySelectorAll) for (const s of el.querySelectorAll('[id^="step-"]')) dirty.add(s.id.slice(5));
  };
  const observer = new MutationObserver((records) => {
    for (const r of records) { mark(r.target); for (const n of r.addedNodes) mark(n); }
    if (dirty.size && !scheduled) { scheduled = true; requestAnimationFrame(frame); }
  });
  const start = () => observer.observe(document.body, {childList: true, subtree: true, characterData: true});
  if (document.body) start(); else document.addEventListener('DOMContentLoaded', start);
})();
"""


# -- the browser's processes (their CPU: support/host.py) --------------------------------------

def browser_pid(tag: str) -> int:
    """The Chromium browser process started with our tag on its command line."""
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        with contextlib.suppress(OSError):
            cmd = Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if f"--desk-bench={tag}" in cmd and "--type=" not in cmd:
                return int(p)
    raise RuntimeError("the Chromium browser process was not found")


async def _sample(browser: int, into: list[tuple[float, float]]) -> None:
    """The browser's CPU seconds over time, for a run's timeline (kept with --keep)."""
    while True:
        into.append((time.time(), sum(tree_cpu(browser).values())))
        await asyncio.sleep(0.25)


def _spin() -> None:
    while True:
        pass


# -- one analysis in the browser ---------------------------------------------------------------

def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def lags(sends: list[dict], paints: list[dict], end: float) -> dict[str, Any]:
    """Per send that added words: seconds from leaving the server to painted (`sent`), and from its
    oldest word reaching the chat to painted (`said`: the server's pacing included); the analysts'
    sends apart (four messages streaming at once), and how many were never painted (counted as
    painted at `end`). No paints at all (the observer left out): nothing."""
    if not paints:
        return {"sent": [], "said": [], "analysts": [], "unpainted": 0}
    by_id: dict[str, list[dict]] = {}
    for p in paints:
        by_id.setdefault(p["id"], []).append(p)
    out: dict[str, Any] = {"sent": [], "said": [], "analysts": [], "unpainted": 0}
    seen: dict[str, int] = {}
    for s in sends:
        if s["words"] <= seen.get(s["id"], 0):
            continue
        seen[s["id"]] = s["words"]
        painted = next((p["t"] for p in by_id.get(s["id"], []) if p["words"] >= s["words"]), None)
        if painted is None:
            out["unpainted"] += 1
            painted = end
        out["sent"].append(max(0.0, painted - s["t"]))
        out["said"].append(max(0.0, painted - s.get("since", s["t"])))
        if s.get("author") in ANALYST_PERSONAS:
            out["analysts"].append(out["sent"][-1])
    return out


async def one_analysis(page: Any, cdp: Any, server: Server, trace: Path, browser: int, profile: bool) -> dict:
    opening = tree_cpu(browser)
    await page.goto(server.base + "/")
    # Connected and started: a new chat's starters are enabled (what is typed before is dropped).
    await page.wait_for_function(CONNECTED_JS, timeout=60_000)
    # What the page loads ahead while idle (desk.js: the chart's Plotly chunk) is the page's
    # opening, not the analysis: counted apart. (A checkout without it times out here.)
    with contextlib.suppress(Exception):
        await page.wait_for_function("() => window.deskPreloaded === true", timeout=15_000)
    await page.wait_for_timeout(500)  # the chat's opening messages settle
    open_cpu = sum(spent(opening, tree_cpu(browser)).values())
    await page.evaluate("window.__deskPaints.length = 0")
    trace.write_text("")
    before = await cdp.send("Performance.getMetrics")
    if profile:
        await cdp.send("Profiler.enable")
        await cdp.send("Profiler.setSamplingInterval", {"interval": 500})
        await cdp.send("Profiler.start")
    cpu0, server0 = tree_cpu(browser), tree_cpu(server.proc.pid) if server.proc else {}
    await page.fill("#chat-input", QUESTION)
    samples: list[tuple[float, float]] = []
    sampler = asyncio.create_task(_sample(browser, samples))
    asked = time.time()
    await page.keyboard.press("Enter")
    try:
        await page.locator(CARD).filter(has_text=SIGNAL).first.wait_for(timeout=300_000)
    except Exception:
        await page.screenshot(path=str(trace.with_name("timeout.png")))
        raise
    card = time.time()
    await page.wait_for_timeout(500)  # the last words' paint records are taken after the frame
    sampler.cancel()
    cpu1, server1 = tree_cpu(browser), tree_cpu(server.proc.pid) if server.proc else {}
    by_kind = spent(cpu0, cpu1)
    after = await cdp.send("Performance.getMetrics")
    hot: list[tuple[str, float]] = []
    if profile:
        prof = (await cdp.send("Profiler.stop"))["profile"]
        hot = hottest(prof)
        trace.with_name(f"page-{int(asked)}.cpuprofile").write_text(json.dumps(prof))
    paints = await page.evaluate("window.__deskPaints")
    sends = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    trace.with_name(f"run-{int(asked)}.json").write_text(json.dumps({"asked": asked, "card": card, "sends": sends,
                                                                       "paints": paints, "cpu": samples}))
    lag = lags(sends, paints, time.time())
    m0 = {m["name"]: m["value"] for m in before["metrics"]}
    m1 = {m["name"]: m["value"] for m in after["metrics"]}
    split = {k: round(m1.get(k, 0) - m0.get(k, 0), 2)
             for k in ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")}
    return {"lags": lag["sent"], "said_lags": lag["said"], "analyst_lags": lag["analysts"],
            "unpainted": lag["unpainted"],
            "browser_cpu_s": sum(by_kind.values()), "browser_cpu_by_process": by_kind,
            "server_cpu_s": sum(spent(server0, server1).values()), "card_s": card - asked, "open_cpu_s": open_cpu,
            "renderer_main_thread_s": split,
            "sends": len(sends), "messages": len({s["id"] for s in sends}), "hot": hot}


def hottest(profile: dict, n: int = 15) -> list[tuple[str, float]]:
    """Self time per function (name and script) from a CDP CPU profile, largest first."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    deltas = profile.get("timeDeltas") or []
    per: Counter[str] = Counter()
    for sample, dt in zip(profile.get("samples") or [], deltas):
        frame = nodes[sample]["callFrame"]
        url = frame.get("url", "").rsplit("/", 1)[-1]
        name = frame.get("functionName") or "(anonymous)"
        where = f" {url}:{frame.get('lineNumber', 0) + 1}:{frame.get('columnNumber', 0) + 1}" if url else ""
        per[name + where] += dt / 1e6
    return [(k, round(v, 3)) for k, v in per.most_common(n)]


def bench_server(folder: Path, trace: Path, app: Path | None = None, delay_ms: float | None = None) -> Server:
    """A demo server logging its sends to `trace`, at the benchmarks' demo pace; with `app`,
    another checkout's: its chat, its Chainlit config and its page assets."""
    delay = float(TEST_PACE["DESK_DEMO_DELAY_MS"]) if delay_ms is None else delay_ms
    server = Server(folder, DESK_DEMO_DELAY_MS=f"{delay:g}", DESK_TRACE_STREAM=str(trace))
    if app is not None:
        server.app = app.resolve() / "chat" / "app.py"
        (folder / "app").mkdir()
        for name in (".chainlit", "public", "chainlit.md"):
            (folder / "app" / name).symlink_to(app.resolve() / name)
    return server


async def log_in(page: Any, server: Server) -> None:
    await page.goto(server.base + "/login")
    await page.fill("#email", "bench")
    await page.fill("#password", "desk")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#chat-input", timeout=60_000)


async def measure(runs: int, busy: int, profile: bool, keep: str | None = None, app: Path | None = None,
                  lag: bool = True) -> dict:
    from playwright.async_api import async_playwright

    delay = float(TEST_PACE["DESK_DEMO_DELAY_MS"])  # the benchmarks' demo pace
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(busy)]
    for s in spinners:
        s.start()
    results = []
    try:
        with contextlib.ExitStack() as stack:
            tmp = (tempfile.mkdtemp(prefix="run-", dir=keep) if keep
                   else stack.enter_context(tempfile.TemporaryDirectory(prefix="desk-browser-bench-")))
            trace = Path(tmp) / "sends.jsonl"
            server = bench_server(Path(tmp), trace, app, delay)
            server.start()
            tag = uuid.uuid4().hex
            try:
                async with async_playwright() as pw:
                    browser = await pw.chromium.launch(executable_path=CHROMIUM,
                                                       args=[*CHROMIUM_ARGS, f"--desk-bench={tag}"])
                    try:
                        page = await browser.new_page(viewport={"width": 1440, "height": 900})
                        # The observer costs the page ~0.3 s of CPU per analysis: --no-lag leaves it out.
                        await page.add_init_script(OBSERVER_JS if lag else "window.__deskPaints = [];")
                        await log_in(page, server)
                        cdp = await page.context.new_cdp_session(page)
                        await cdp.send("Performance.enable")
                        pid = browser_pid(tag)
                        for _ in range(runs):
                            results.append(await one_analysis(page, cdp, server, trace, pid, profile))
                    finally:
                        await browser.close()
            finally:
                server.stop()
    finally:
        for s in spinners:
            s.terminate()
    return summarize(results, delay, busy)


def summarize(results: list[dict], delay: float, busy: int) -> dict:
    all_lags = [x for r in results for x in r["lags"]]
    said_lags = [x for r in results for x in r["said_lags"]]
    analyst_lags = [x for r in results for x in r["analyst_lags"]]

    def ms(values: list[float]) -> dict:
        if not values:
            return {}
        return {"p50": round(1000 * statistics.median(values)), "p95": round(1000 * quantile(values, 0.95)),
                "max": round(1000 * max(values)), "n": len(values)}

    split: dict[str, float] = {}
    for r in results:
        for k, v in r["renderer_main_thread_s"].items():
            split[k] = split.get(k, 0) + v / len(results)
    hot: Counter[str] = Counter()
    for r in results:
        for name, s in r["hot"]:
            hot[name] += s / len(results)
    return {
        "demo_delay_ms": delay, "busy_processes": busy, "analyses": len(results),
        "lag_ms": ms(all_lags), "lag_ms_analysts": ms(analyst_lags), "word_to_paint_ms": ms(said_lags),
        "unpainted_sends": sum(r["unpainted"] for r in results),
        "browser_cpu_s": [round(r["browser_cpu_s"], 2) for r in results],
        "server_cpu_s": [round(r["server_cpu_s"], 2) for r in results],
        "open_cpu_s": [round(r["open_cpu_s"], 2) for r in results],
        "card_s": [round(r["card_s"], 2) for r in results],
        "renderer_main_thread_s": {k: round(v, 2) for k, v in split.items()},
        "browser_cpu_by_process": [r["browser_cpu_by_process"] for r in results],
        "sends_per_analysis": [r["sends"] for r in results],
        "hot": [(k, round(v, 3)) for k, v in hot.most_common(15)],
    }


def report(r: dict) -> str:
    lag, early, said = r["lag_ms"], r["lag_ms_analysts"], r["word_to_paint_ms"]
    cpu = r["browser_cpu_s"]
    lines = [
        f"Browser benchmark: {r['analyses']} analyses of “{QUESTION}”, demo speed {r['demo_delay_ms']:g} ms/word, "
        f"four analysts at once, {r['busy_processes']} busy process(es) alongside",
    ]
    if lag:
        lines += [
            f"lag, server send → painted: p50 {lag['p50']} ms, p95 {lag['p95']} ms, max {lag['max']} ms over "
            f"{lag['n']} sends (goal p95 ≤ {GOALS['lag_p95_ms']} ms); never painted: {r['unpainted_sends']}",
            f"  while the four analysts stream: p50 {early.get('p50')} ms, p95 {early.get('p95')} ms",
            f"  word reaching the chat → painted (the server's pacing included): p50 {said['p50']} ms, "
            f"p95 {said['p95']} ms",
        ]
    else:
        lines.append("lag: not measured (--no-lag)")
    lines += [
        f"browser CPU per analysis: {statistics.median(cpu):.2f} s median of {cpu} "
        f"(goal ≤ {GOALS['browser_cpu_s']} s); server CPU {r['server_cpu_s']} s",
        f"  by process (s): {r['browser_cpu_by_process']}",
        f"  opening the page before it (login kept; scripts loaded ahead included): {r['open_cpu_s']} s",
        f"  renderer main thread (s, CDP Performance.getMetrics): {r['renderer_main_thread_s']}",
        f"question → decision card painted: {r['card_s']} s; persona-word sends per analysis: "
        f"{r['sends_per_analysis']}",
    ]
    if r["hot"]:
        lines.append("hottest page functions (self s per analysis):")
        lines += [f"  {s:7.3f}  {name}" for name, s in r["hot"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.browser")
    ap.add_argument("--runs", type=int, default=3, help="analyses to measure (default 3)")
    ap.add_argument("--busy", type=int, default=0, help="spinning processes alongside (a loaded machine)")
    ap.add_argument("--profile", action="store_true", help="sample the page's JavaScript (adds overhead)")
    ap.add_argument("--no-lag", action="store_true", help="browser CPU only, without the page's paint observer")
    ap.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    ap.add_argument("--app", metavar="CHECKOUT", type=Path,
                    help="measure another checkout of the desk (its renderer needs the DESK_TRACE_STREAM hook)")
    ap.add_argument("--keep", metavar="DIR", help="keep the server's data and log, each run's sends, paints "
                    "and CPU timeline (and profile) in a new folder under DIR")
    args = ap.parse_args(argv)
    if args.keep:
        Path(args.keep).mkdir(parents=True, exist_ok=True)
    result = asyncio.run(measure(args.runs, args.busy, args.profile, args.keep, args.app, lag=not args.no_lag))
    print(report(result))
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
