"""A broker's CSV: every row read, or nothing imported."""
from __future__ import annotations

from decimal import Decimal as D

from graph.book import Book, Position, read_csv
from graph.book.csv_import import MAX_BYTES, MAX_ROWS


def test_plain_csv() -> None:
    result = read_csv("symbol,quantity,cost\nNVDA,200,95\naapl,50,170.5\nCASH,20000,\n")
    assert result.ok and not result.errors
    assert result.book == Book((Position("NVDA", D(200), D(95)), Position("AAPL", D(50), D("170.5"))), D(20000))


def test_broker_headers_semicolons_and_european_numbers() -> None:
    # ';' delimiter: '1.234,50' is 1234.50 and '€ 95,25' is 95.25
    text = "Ticker;Qty;Avg Cost;Market\nMSFT;1.234,50;€ 95,25;NASDAQ\nBRK.B;10;410;NYSE\n"
    result = read_csv(text.encode("utf-8-sig"))
    assert result.ok, result.errors
    assert result.book is not None
    assert result.book.get("MSFT") == Position("MSFT", D("1234.50"), D("95.25"))
    assert result.book.get("BRK-B") == Position("BRK-B", D(10), D(410))


def test_quoted_thousands_currency_and_total_cost() -> None:
    # Cost Basis Total 19,000 over 200 shares = 95.0000 a share; "$1,500.00" quoted
    text = 'Code,Shares,Cost Basis Total\nNVDA,200,"$19,000.00"\nAMD,"1,500",\nTotal,,"$19,000.00"\n'
    result = read_csv(text)
    assert result.ok, result.errors
    assert result.book is not None
    assert result.book.get("NVDA") == Position("NVDA", D(200), D(95))
    assert result.book.get("AMD") == Position("AMD", D(1500), None)  # no cost given: unknown, not zero


def test_lots_are_one_position() -> None:
    # 100 @ 90 and 100 @ 100: 200 @ (9000 + 10000) / 200 = 95
    result = read_csv("symbol,qty,price\nNVDA,100,90\nNVDA,100,100\n")
    assert result.book is not None and result.book.get("NVDA") == Position("NVDA", D(200), D(95))
    assert "2 rows added into one position" in result.notes[0]


def test_bad_rows_import_nothing() -> None:
    text = ("symbol,quantity,cost\n"
            "NVDA,200,95\n"          # row 2 good
            "AAPL,-5,170\n"          # row 3 negative
            "not a symbol!,5,1\n"    # row 4
            "MSFT,lots,400\n"        # row 5 not a number
            "TSLA,10,-3\n"           # row 6 negative cost
            "AMD,5000000000,1\n"     # row 7 over 1e9 shares
            "GOOG,,100\n"            # row 8 no quantity
            "META,5,1,2\n")          # row 9 too many cells
    result = read_csv(text)
    assert result.book is None and not result.ok
    assert [e.row for e in result.errors] == [3, 4, 5, 6, 7, 8, 9]
    reasons = " | ".join(str(e) for e in result.errors)
    for piece in ("row 3: a negative quantity", "'not a symbol!' is not a symbol", "'lots' is not a number",
                  "a negative cost", "more than the 1,000,000,000", "no quantity for GOOG", "4 cells for 3 columns"):
        assert piece in reasons


def test_missing_columns_and_empty() -> None:
    assert "no quantity column" in str(read_csv("symbol,cost\nNVDA,95\n").errors[0])
    assert "empty" in str(read_csv("").errors[0])
    assert "not UTF-8" in str(read_csv(b"symbol,qty\n\xff\xfe,1\n").errors[0])


def test_size_limits() -> None:
    big = read_csv(b"symbol,qty\n" + b"A" * (MAX_BYTES + 1))
    assert big.book is None and "1 MB" in str(big.errors[0])
    rows = "symbol,qty\n" + "NVDA,1\n" * (MAX_ROWS + 1)
    many = read_csv(rows)
    assert many.book is None and f"{MAX_ROWS:,} rows" in str(many.errors[0])


def test_unknown_but_valid_symbol_is_kept_with_a_note() -> None:
    result = read_csv("symbol,qty\nXYZQ,10\n")
    assert result.book is not None and result.book.get("XYZQ") is not None
    assert "XYZQ is not a company the desk knows" in result.notes[0]


def test_a_quantity_too_precise_or_a_cost_too_high_is_said_in_the_readers_language() -> None:
    # A Position refuses both in English; the CSV reader says so first, in the upload's language too.
    result = read_csv("symbol,quantity,cost\nNVDA,0.1234567,95\nAAPL,10,10000000000000\n")
    assert result.book is None and [e.row for e in result.errors] == [2, 3]
    assert "has more than 6 decimals" in str(result.errors[0]) and "is not a price" in str(result.errors[1])
    told = [e.told("zh") for e in result.errors]
    assert "小数超过 6 位" in told[0] and "不是一个价格" in told[1]


def test_a_total_cost_is_checked_as_the_cost_per_share_it_makes() -> None:
    result = read_csv("symbol,quantity,total cost\nNVDA,0.001,999999999999\n")
    assert result.book is None and "不是一个价格" in result.errors[0].told("zh")
    assert read_csv("symbol,quantity,total cost\nNVDA,10,1000\n").book == Book((Position("NVDA", D(10), D(100)),))
