"""Persona prompts live in prompts/*.md; code only fills in the state's fields."""
from __future__ import annotations

import os
import string
from functools import lru_cache
from pathlib import Path

PROMPTS_DIR = Path(os.environ.get("DESK_PROMPTS_DIR", Path(__file__).resolve().parent.parent / "prompts"))


@lru_cache(maxsize=None)
def _template(name: str) -> str:
    return (PROMPTS_DIR / f"{name}.md").read_text(encoding="utf-8")


def fields_of(name: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(_template(name)) if f}


def render(name: str, **fields: object) -> str:
    """Fill a prompt; a field the template names but the caller forgot is a bug, so it raises."""
    missing = fields_of(name) - fields.keys()
    if missing:
        raise KeyError(f"prompt {name!r} needs {sorted(missing)}")
    return _template(name).format(**fields).strip()
