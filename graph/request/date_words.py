"""The words and patterns the date finders read: month and weekday names, counting words, the
prepositions that make a number a date, and what may follow one (:mod:`graph.request.dates`)."""

from __future__ import annotations

import re

from .wordlists import load_words

MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
ORD_WORDS = "st|nd|rd|th"
ORD = rf"(?:{ORD_WORDS})?"
WEEKDAY_NAMES = {
    "monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2,
    "thursday": 3, "thu": 3, "thur": 3, "thurs": 3, "friday": 4, "fri": 4,
    "saturday": 5, "sat": 5, "sunday": 6, "sun": 6,
}  # fmt: skip
# Counting words ("a week ago", "twenty years ago", "a couple of days ago").
SMALL_NUMBERS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "couple": 2, "few": 3, "several": 3,
}  # fmt: skip
MULTIPLIERS = {"hundred": 100, "dozen": 12}
LARGE_NUMBERS = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
NUMBER_WORD = "|".join(sorted([*SMALL_NUMBERS, *MULTIPLIERS, *LARGE_NUMBERS, "a", "an", "and", "of"],
                               key=len, reverse=True))
# Words that introduce a date; a bare "5/1" only counts as a date after one.
DATE_PREPS = load_words("date_preps.txt")
# A bare year counts as a date after one of these ("in 2022", "during 2008").
YEAR_PREPS = frozenset({"in", "during", "year", "yr", "on", "for", "of", "circa"})
# "since 2020", "by 2030": one end of a span, not a day to analyze.
SPAN_WORDS = frozenset({"since", "from", "to", "until", "till", "through", "by", "before", "after"})
# "Q3 2024", "FY 2025", "2H 2024": a reporting period, not a day to analyze.
PERIOD_LABEL = re.compile(r"(?:q[1-4]|[1-4]q|h[12]|[12]h|fy|cy|fiscal|calendar)")
# "up 20% in 3 days": a measured move, not a date in the future.
MOVE_WORDS = load_words("move_words.txt")
# Numbers that are amounts, not days or years: "10 march calls", "2000 shares".
NOT_QUANTITY = r"(?!\s*(?:%|\$(?![a-z])|x\b|k\b|m\b|shares|calls|puts|contracts|dollars|percent|bucks|strike|dma|day))"
# What may follow a numeric date: not more digits or letters ("2024-05-01xyz" is not read
# as 2024-05-01); an ISO time ("2024-05-01T10:00") may.
DATE_END = r"(?:(?=t\d)|(?![\w/]|[.-]\d))"
