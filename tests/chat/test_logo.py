"""The logo's words fit its picture whatever font draws them: an <img> of an SVG cannot load the page's Inter,
and the fallback's wider letters cut "Trading Desk" to "Trading Desl" on the welcome screen."""
from pathlib import Path
from xml.etree import ElementTree

import pytest

PUBLIC = Path(__file__).resolve().parents[2] / "chat" / "ui" / "public"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("name", ["logo_dark.svg", "logo_light.svg"])
def test_the_logos_words_are_fitted_inside_its_width(name: str) -> None:
    root = ElementTree.parse(PUBLIC / name).getroot()
    width = float(root.get("viewBox", "").split()[2])
    text = root.find(f"{SVG}text")
    assert text is not None and text.text == "Trading Desk"
    assert text.get("lengthAdjust") == "spacingAndGlyphs"  # the length is kept with any font
    assert float(text.get("x", 0)) + float(text.get("textLength", 1e9)) <= width
