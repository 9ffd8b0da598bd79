"""Persona prompts live in prompts/*.md; code only fills in the state's fields.

The templates ship as package data of the `prompts` package, so they are found the same way from a
checkout, an editable install or a wheel. DESK_PROMPTS_DIR points at another folder of templates."""
from __future__ import annotations

import os
import string
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from .chinese_script import TRADITIONAL, to_traditional

PROMPTS_DIR: Traversable = (Path(os.environ["DESK_PROMPTS_DIR"]) if os.environ.get("DESK_PROMPTS_DIR")
                            else files("prompts"))


@cache
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


@cache
def _has_template(name: str) -> bool:
    return (PROMPTS_DIR / f"{name}.md").is_file()


def render_in(language: str, name: str, **fields: object) -> str:
    """A user-facing text in the user's language where prompts/<name>_<language>.md exists (the
    demo notice, the Desk's help), else the English prompts/<name>.md. Traditional Chinese reads
    the Simplified text converted (graph/core/chinese_script.py)."""
    if language == TRADITIONAL and _has_template(f"{name}_zh"):
        return to_traditional(render(f"{name}_zh", **fields))
    local = f"{name}_{language}"
    return render(local if language.isalpha() and _has_template(local) else name, **fields)
