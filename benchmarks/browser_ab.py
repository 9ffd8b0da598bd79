"""Two checkouts of the chat compared in one browser, analyses alternating between them:
`python -m benchmarks.browser_ab CHECKOUT_A CHECKOUT_B --rounds 6 [--no-lag]`.

This 2-core virtual machine's speed drifts by a third over minutes (the server's CPU for the same
analysis moved from 0.8 to 1.1 s between two runs of benchmarks.browser), so two figures taken
minutes apart cannot be compared; here each round measures one analysis of each checkout back to
back (their order alternating), in the same browser, and the paired differences are reported.
Each checkout gets its own server (its chat/app.py, .chainlit and public/) and its own logged-in
browser context; every analysis opens a fresh page, as in benchmarks.browser.
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import uuid
from pathlib import Path

from . import browser as bench
from .support.chat_server import Server


async def compare(checkouts: list[Path], rounds: int, lag: bool) -> dict[str, list[dict]]:
    from playwright.async_api import async_playwright

    labels = [f"{'AB'[i]} ({c})" for i, c in enumerate(checkouts)]  # the same checkout twice is fine
    results: dict[str, list[dict]] = {label: [] for label in labels}
    servers: list[tuple[str, Server, Path]] = []
    with tempfile.TemporaryDirectory(prefix="desk-browser-ab-") as tmp:
        try:
            for i, checkout in enumerate(checkouts):
                folder = Path(tmp) / str(i)
                folder.mkdir()
                trace = folder / "sends.jsonl"
                server = bench.bench_server(folder, trace, checkout)
                server.start()
                servers.append((labels[i], server, trace))
            async with async_playwright() as pw:
                tag = uuid.uuid4().hex
                browser = await pw.chromium.launch(executable_path=bench.CHROMIUM,
                                                   args=[*bench.CHROMIUM_ARGS, f"--desk-bench={tag}"])
                pid = bench.browser_pid(tag)
                contexts = []
                for _, server, _ in servers:
                    context = await browser.new_context(viewport={"width": 1440, "height": 900})
                    await context.add_init_script(bench.OBSERVER_JS if lag else "window.__deskPaints = [];")
                    page = await context.new_page()
                    await bench.log_in(page, server)
                    await page.close()
                    contexts.append(context)
                try:
                    await _rounds(rounds, servers, contexts, results, pid)
                finally:
                    await browser.close()
        finally:
            for _, server, _ in servers:
                server.stop()
    return results


async def _rounds(rounds: int, servers: list[tuple[str, Server, Path]], contexts: list,
                  results: dict[str, list[dict]], pid: int) -> None:
    for r in range(rounds):
        order = list(range(len(servers)))
        if r % 2:
            order.reverse()
        for i in order:
            label, server, trace = servers[i]
            page = await contexts[i].new_page()
            cdp = await page.context.new_cdp_session(page)
            await cdp.send("Performance.enable")
            results[label].append(await bench.one_analysis(page, cdp, server, trace, pid, False))
            await page.close()


def report(results: dict[str, list[dict]], lag: bool) -> str:
    lines = []
    cpus = {}
    for checkout, runs in results.items():
        cpu = cpus[checkout] = [round(r["browser_cpu_s"], 2) for r in runs]
        line = (f"{checkout}: browser CPU per analysis median {statistics.median(cpu):.2f} s {cpu}; "
                f"server CPU {[round(r['server_cpu_s'], 2) for r in runs]} s")
        if lag:
            lags = [x for r in runs for x in r["lags"]]
            line += f"; lag p95 {round(1000 * bench.quantile(lags, 0.95))} ms"
        lines.append(line)
    (a, ca), (b, cb) = list(cpus.items())[:2]
    diff = [round(y - x, 2) for x, y in zip(ca, cb, strict=True)]
    lines.append(f"{b} − {a}, per round: median {statistics.median(diff):+.2f} s, "
                 f"{sum(d < 0 for d in diff)} of {len(diff)} lower: {diff}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.browser_ab")
    ap.add_argument("a", type=Path, help="a checkout of the project (e.g. a git worktree)")
    ap.add_argument("b", type=Path, help="another checkout")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--no-lag", action="store_true", help="without the page's paint observer (~0.3 s of CPU)")
    args = ap.parse_args(argv)
    results = asyncio.run(compare([args.a, args.b], args.rounds, lag=not args.no_lag))
    print(report(results, lag=not args.no_lag))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
