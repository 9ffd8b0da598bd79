"""The request parser's data files: word lists and the company table."""

import csv

import pytest

from graph.request.wordlists import DATA, read_entries

WORD_LISTS = sorted(f.name for f in DATA.iterdir() if f.name.endswith(".txt"))


def test_word_lists_are_found() -> None:
    # If this breaks, the files moved or the wheel lost them (package-data).
    assert {"hard_stop.txt", "soft_words.txt", "chat_phrases.txt"} <= set(WORD_LISTS)


@pytest.mark.parametrize("name", WORD_LISTS)
def test_word_list_is_sorted_and_unique(name: str) -> None:
    # Sorted and unique keeps diffs readable and duplicates visible; the code
    # never relies on file order (it sorts itself where order matters).
    entries = read_entries(name)
    assert entries, f"{name} is empty"
    assert entries == sorted(set(entries)), f"{name}: keep it sorted, one entry per line, no duplicates"


@pytest.mark.parametrize("name", WORD_LISTS)
def test_word_list_has_one_case(name: str) -> None:
    # Each list is compared against either upper- or lower-cased text, so an
    # entry in the other case would silently never match.
    entries = read_entries(name)
    assert all(e == e.upper() for e in entries) or all(e == e.lower() for e in entries), name


def test_company_tickers_are_unique() -> None:
    lines = (DATA / "companies.csv").read_text(encoding="utf-8").splitlines()
    tickers = [row["ticker"].strip().upper() for row in csv.DictReader(lines)]
    duplicates = sorted({t for t in tickers if tickers.count(t) > 1})
    assert not duplicates, f"companies.csv lists these tickers twice: {duplicates}"
