"""The page as the desk serves it (issue 21, item 9): everything it loads comes from the app, the
copies it loads are in the wheel, and Chainlit's warning about a readme per language is dropped.
The browser's side of it is tests/browser/test_offline.py."""
from __future__ import annotations

import logging
import re
import tomllib
from pathlib import Path

from chainlit.markdown import get_markdown_str

from chat.web.serving import _no_readme_per_language, offline_page
from chat.web.startup import UI

ROOT = Path(__file__).resolve().parents[2]
LOADED = re.compile(r'<(?:link|script)\b[^>]*?\b(?:href|src)="([^"]+)"')


def test_the_page_loads_only_the_apps_own_files():
    for root_path in ("", "/desk"):
        html = offline_page(root_path)
        loaded = LOADED.findall(html)
        assert f"{root_path}/public/inter/inter.css" in loaded
        assert f"{root_path}/public/katex/katex.min.css" in loaded
        assert all(url.startswith(root_path + "/") and not url.startswith("//") for url in loaded), loaded
        assert "fonts.googleapis" not in html and "fonts.gstatic" not in html and "jsdelivr" not in html


def test_the_local_copies_are_there_with_their_licences():
    for url in LOADED.findall(offline_page("")):
        if url.startswith("/public/"):
            assert (UI / url.removeprefix("/")).is_file(), url
    for folder, css in (("inter", "inter.css"), ("katex", "katex.min.css")):
        assert (UI / "public" / folder / "LICENSE").is_file()
        text = (UI / "public" / folder / css).read_text()
        for ref in re.findall(r"url\(([^)]+)\)", text):  # every font the styles name is shipped
            assert (UI / "public" / folder / ref).resolve().is_file(), ref


def test_the_wheel_ships_every_page_asset():
    """chat/ui/public is served whole: each file in it is package data (pyproject.toml)."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["chat"]
    chat = ROOT / "chat"
    shipped = {p for pattern in patterns for p in chat.glob(pattern) if p.is_file()}
    assets = {p for p in (UI / "public").rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert assets - shipped == set()


def test_no_warning_for_a_language_without_its_own_readme(tmp_path: Path):
    """Chainlit's own lookup, with the filter Serving.install puts on its logger."""
    (tmp_path / "chainlit.md").write_text("# The desk")
    logger = logging.getLogger("chainlit")
    seen: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(record.getMessage())  # type: ignore[method-assign]
    installed = _no_readme_per_language in logger.filters  # by chat/app.py, if a test imported it
    logger.removeFilter(_no_readme_per_language)
    logger.addHandler(handler)
    try:
        assert get_markdown_str(str(tmp_path), "de-DE") == "# The desk"
        assert any("Translated markdown file" in m for m in seen)  # Chainlit's warning, as it is
        seen.clear()
        logger.addFilter(_no_readme_per_language)
        assert get_markdown_str(str(tmp_path), "de-DE") == "# The desk"
        logger.warning("Something else")
        assert seen == ["Something else"]
    finally:
        logger.removeHandler(handler)
        if not installed:
            logger.removeFilter(_no_readme_per_language)
