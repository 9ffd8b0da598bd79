"""Numbers as people and brokers write them, read into Decimal exactly.

Words: "200", "$20k", "20,000", "1.5m", "$170.5", "2万" (10,000), "3千", "1亿", "-50".
CSV cells: "$1,234.50", "1 234,50 €" (with a ';' delimiter, ',' is the decimal mark and '.' or a
space groups thousands, as European brokers export), "(12.00)" (accountants' negative).
"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

CURRENCY_SIGNS = "$€£¥￥"
_MULTIPLIERS = {
    "k": Decimal(1_000), "thousand": Decimal(1_000), "m": Decimal(1_000_000), "mm": Decimal(1_000_000),
    "million": Decimal(1_000_000), "b": Decimal(1_000_000_000), "bn": Decimal(1_000_000_000),
    "billion": Decimal(1_000_000_000), "千": Decimal(1_000), "万": Decimal(10_000), "萬": Decimal(10_000),
    "亿": Decimal(100_000_000), "億": Decimal(100_000_000),
}
# An amount in a sentence: sign, currency, digits with thousands commas or a decimal point, a multiplier.
AMOUNT = re.compile(
    r"(?<![A-Za-z0-9_.])(?P<sign>[-−])?\s*(?P<cur>[$€£¥￥])?\s*(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<mult>\s?(?:thousand|million|billion)(?![a-z])|(?:bn|mm|k|m|b)(?![a-z])|[千万萬亿億])?"
    r"(?![A-Za-z0-9]|\.[A-Za-z0-9])",
    re.IGNORECASE,
)


def word_amount(match: re.Match[str]) -> Decimal:
    """The value of an AMOUNT match: '$20k' -> 20000, '2万' -> 20000, '-50' -> -50."""
    number = Decimal(match.group("num").replace(",", ""))
    mult = (match.group("mult") or "").strip().lower()
    if mult:
        number *= _MULTIPLIERS[mult]
    return -number if match.group("sign") else number


def cell_amount(cell: str, delimiter: str = ",") -> Decimal | None:
    """A CSV cell's number, or None when it is not one. With ';' as the delimiter the decimal mark is ','."""
    text = cell.strip().replace("\u00a0", " ")
    negative = False
    if text.startswith("(") and text.endswith(")"):
        negative, text = True, text[1:-1].strip()
    text = text.strip(CURRENCY_SIGNS + " ")
    for code in ("USD", "EUR", "GBP", "HKD", "CNY", "JPY"):
        text = text.removeprefix(code).removesuffix(code).strip()
    text = text.strip(CURRENCY_SIGNS + " ")
    if text[:1] in "-−":
        negative, text = not negative, text[1:].strip(CURRENCY_SIGNS + " ")
    if delimiter == ";":
        if not re.fullmatch(r"\d{1,3}(?:[. ]\d{3})+(?:,\d+)?|\d+(?:,\d+)?", text):
            return None
        text = text.replace(".", "").replace(" ", "").replace(",", ".")
    else:
        if not re.fullmatch(r"\d{1,3}(?:[, ]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?", text):
            return None
        text = text.replace(",", "").replace(" ", "")
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    return -number if negative else number
