"""Links and images in text the desk did not write, made inert before anyone's page shows it.

A model's words and the text its tools fetched (headlines, posts) can carry Markdown that a page
acts on without asking: an image is fetched as soon as it is shown, from any host, with whatever
its address carries (a figure of the run, the user's holdings): a prompt injection's way out. A
link is one click from the same. So in what the chat and the report show of them, an image is
named and not shown, a link shows its text and its address as code, and a bare address (which a
Markdown page turns into a link by itself) is code too. The desk's own text (the card, its
messages) is not passed through here.
"""
from __future__ import annotations

import re

# Link text may hold one level of brackets ("[a [b]](…)" is a link too).
_TEXT = r"((?:[^\[\]\n]|\[[^\[\]\n]*\])*)"
_IMAGE = re.compile(r"!\[" + _TEXT + r"\]\(([^)\n]*)\)")
_LINK = re.compile(r"\[" + _TEXT + r"\]\(([^)\n]*)\)")
_AUTOLINK = re.compile(r"<([a-z][a-z0-9+.-]*:[^<>\s]*)>", re.I)
# "[1]: https://…" defines a link that "[text][1]" elsewhere uses: escaped, it is text.
_REFERENCE = re.compile(r"^( {0,3}(?:[-*+>] +|\d+[.)] +)*)\[([^\]\n]+)\]:", re.M)
# An address ends before trailing punctuation, as a Markdown page reads it.
_ADDRESS = re.compile(r"(?<![`\w/:])((?:https?|ftp):)?(//|www\.)([^\s<>`]*[^\s<>`).,;:!?'\"])?", re.I)


def inert_links(text: str) -> str:
    """`text` with no image or link left for a Markdown page to load or follow."""
    text = _IMAGE.sub(lambda m: f"[image not shown: {m[1].strip() or 'no description'}]", text)
    text = _LINK.sub(lambda m: f"{m[1]} (`{m[2].strip()}`)" if m[2].strip() else m[1], text)
    text = _AUTOLINK.sub(lambda m: m[1], text)
    text = _REFERENCE.sub(lambda m: f"{m[1]}\\[{m[2]}\\]:", text)
    return _ADDRESS.sub(lambda m: f"`{m[0]}`", text)
