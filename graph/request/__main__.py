"""`python -m graph.request --today YYYY-MM-DD "TEXT"`: how one sentence is understood, as JSON
on the last line (the reason on the line before)."""
from __future__ import annotations

import argparse
import asyncio
import json
from datetime import date

from ..core.settings import Settings
from ..models.registry import ModelRegistry
from .resolve import resolve


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m graph.request", description="Parse one request; print JSON.")
    ap.add_argument("text")
    ap.add_argument("--today", type=date.fromisoformat, default=None, help="YYYY-MM-DD (default: today)")
    ap.add_argument("--has-decision", action="store_true", help="parse as if the thread holds a decision")
    args = ap.parse_args(argv)
    settings = Settings()
    model = ModelRegistry(settings).quick(None) if settings.live else None
    parsed = asyncio.run(resolve(args.text, args.today or date.today(), has_decision=args.has_decision, model=model))
    print(parsed.reason)
    print(json.dumps(parsed.model_dump(mode="json")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
