"""Persona prompts live in prompts/*.md; code only fills in the state's fields.

The templates ship as package data of the `prompts` package, so they are found the same way from a
checkout, an editable install or a wheel. DESK_PROMPTS_DIR points at another folder of templates."""
from __future__ import annotations

import os
import re
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
    return set(_fields(name))


@cache
def _fields(name: str) -> frozenset[str]:
    # Read once per template (as the template itself is): every turn renders several.
    return frozenset(f for _, f, _, _ in string.Formatter().parse(_template(name)) if f)


def render(name: str, **fields: object) -> str:
    """Fill a prompt; a field the template names but the caller forgot is a bug, so it raises."""
    missing = _fields(name) - fields.keys()
    if missing:
        raise KeyError(f"prompt {name!r} needs {sorted(missing)}")
    return _template(name).format(**fields).strip()


@cache
def _has_template(name: str) -> bool:
    return (PROMPTS_DIR / f"{name}.md").is_file()


def has_prompt(name: str) -> bool:
    """Whether prompts/<name>.md exists (an optional part of a prompt)."""
    return _has_template(name)


def render_in(language: str, name: str, **fields: object) -> str:
    """A user-facing text in the user's language where prompts/<name>_<language>.md exists (the
    demo notice, the Desk's help), else the English prompts/<name>.md. Traditional Chinese reads
    the Simplified text converted (graph/core/chinese_script.py)."""
    if language == TRADITIONAL and _has_template(f"{name}_zh"):
        return to_traditional(render(f"{name}_zh", **fields))
    local = f"{name}_{language}"
    return render(local if language.isalpha() and _has_template(local) else name, **fields)


# -- the desk's instructions never reach a person ----------------------------------------------------

# Templates a person reads (the desk's short texts, its notices, its help): not instructions to a model.
_FOR_PEOPLE = ("words_", "demo_notice", "live_notice", "desk_help")
# A run of this many words of an instruction, found in what a model wrote, is the instruction echoed.
MIN_WORDS = 6
_FIELD = re.compile(r"\{[^{}]*\}")
_PIECE_END = re.compile(r"[.!?:;]\s+|[.!?:;]$|\n|[“”\"'()]")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")
_MARKUP = re.compile(r"^[\s#>*\-•\d.)]+")


def _plain(text: str) -> str:
    return " ".join(re.findall(r"[\w'%$]+", text.lower()))


@cache
def instruction_fragments() -> tuple[str, ...]:
    """Every run of at least MIN_WORDS words the desk writes only for its models: each prompt template's
    own text between its fields, cut at its sentences, clauses and lines, in plain words."""
    pieces: set[str] = set()
    for entry in PROMPTS_DIR.iterdir():
        name = entry.name
        if not name.endswith(".md") or name.startswith(_FOR_PEOPLE):
            continue
        for part in _FIELD.split(entry.read_text(encoding="utf-8")):
            for piece in _PIECE_END.split(part):
                plain = _plain(_MARKUP.sub("", piece))
                if len(plain.split()) >= MIN_WORDS:
                    pieces.add(plain)
    return tuple(sorted(pieces, key=len, reverse=True))


@cache
def _by_second_word(fragments: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """The fragments by their second word. A fragment found in a sentence's plain words may begin inside
    one of its words, but its second word is one of them whole (the words between a fragment's spaces are
    whole words of the text), so a sentence need only be tried against the fragments its words index."""
    index: dict[str, list[str]] = {}
    for f in fragments:
        index.setdefault(f.split(" ")[1], []).append(f)
    return {word: tuple(found) for word, found in index.items()}


def _repeats(plain: str, fragments: tuple[str, ...]) -> bool:
    index = _by_second_word(fragments)
    return any(f in plain for word in set(plain.split(" ")) for f in index.get(word, ()))


# The last texts cleaned and what they became. A turn's words are cleaned when its reply arrives (`ask`) and
# again when it joins the conversation (`spoken`), which is its own cleaning (nothing left repeats an
# instruction), so each result is remembered as its own too. For one set of fragments (a test may change them).
_CLEANED: dict[str, str] = {}
_CLEANED_BY: list[tuple[str, ...]] = []
_CLEANED_KEPT = 64


def without_instructions(text: str) -> str:
    """`text` with every sentence that repeats an instruction of the desk's to its models left out (a
    model echoing its case file: "Size the trade against it, in whole shares and money…"), and a line
    left empty by it dropped. What a person reads of a model's words passes here: no prompt reaches them."""
    fragments = instruction_fragments()
    if not text or not fragments:
        return text
    if [fragments] != _CLEANED_BY:
        _CLEANED.clear()
        _CLEANED_BY[:] = [fragments]
    if (known := _CLEANED.get(text)) is not None:
        return known
    out = _without(text, fragments)
    if len(_CLEANED) >= _CLEANED_KEPT:
        _CLEANED.clear()
    _CLEANED[text] = _CLEANED[out] = out
    return out


def _without(text: str, fragments: tuple[str, ...]) -> str:
    kept_lines = []
    for line in text.split("\n"):
        sentences = _SENTENCE_END.split(line)
        kept = [s for s in sentences if not _repeats(_plain(s), fragments)]
        if len(kept) == len(sentences):
            kept_lines.append(line)
        elif any(_plain(_MARKUP.sub("", s)) for s in kept):
            kept_lines.append(" ".join(kept))
    return "\n".join(kept_lines)
