"""The paper book's charts and the calibration's (chat/views/paper_view.py), their data checked against figures worked
by hand; and /paper's text with its thread links (chat/features/paper.py)."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from chat.features.paper import thread_link
from chat.views.paper_view import calibration_figure, drawdown, equity_figure, most_off
from graph.paper.book import PaperBook
from graph.paper.keeper import Paper
from graph.paper.ledger import Ledger
from graph.track.calibration import Bucket, Calibration, calibration_from, calibration_payload

D1, D2, D3 = date(2024, 5, 22), date(2024, 5, 23), date(2024, 5, 24)
BOOK = PaperBook(user="ana", start="100000.00", cost_bps="5", since="2024-05-21T13:00:00+00:00")


def paper() -> Paper:
    ledger = Ledger(book=BOOK, cash=Decimal("102010.00"),
                    curve=[(D1, Decimal("101000.00")), (D2, Decimal("99990.00")), (D3, Decimal("102010.00"))])
    return Paper(ledger, "SPY", [(D1, Decimal("100500.00")), (D2, Decimal("98490.00"))])


def calibrated() -> Calibration:
    buckets = tuple(Bucket(Decimal(lo), Decimal(hi), n, r, m) for lo, hi, n, r, m in (
        ("0", "0.5", 0, 0, None), ("0.5", "0.6", 0, 0, None), ("0.6", "0.7", 2, 1, 0.65), ("0.7", "0.8", 0, 0, None),
        ("0.8", "0.9", 4, 2, 0.8), ("0.9", "1", 0, 0, None)))
    # Brier by hand: 0.65 right once, wrong once; 0.8 right twice, wrong twice.
    brier = ((0.35 ** 2 + 0.65 ** 2) + 2 * (0.2 ** 2 + 0.8 ** 2)) / 6
    return Calibration(buckets, brier, 6, 1, {"Bull Researcher": (3, 4), "Bear Researcher": (1, 4)})


def test_drawdown_counts_the_stated_amount_as_the_first_peak() -> None:
    assert drawdown(Decimal(100000), [Decimal(99000), Decimal(101000), Decimal(99990), Decimal(102010)]) == \
        [-1.0, 0.0, -1.0, 0.0]


def test_the_equity_chart_is_the_ledgers_closes_against_the_benchmark_with_drawdowns() -> None:
    fig = equity_figure(paper())
    bench, bench_dd, mine, mine_dd = fig.data
    assert (mine.name, bench.name) == ("Paper book", "SPY")
    assert list(mine.x) == ["2024-05-22", "2024-05-23", "2024-05-24"]
    assert list(mine.y) == [101000.0, 99990.0, 102010.0]
    assert list(mine_dd.y) == [0.0, -1.0, 0.0]                    # 99,990 / 101,000 − 1
    assert list(bench.x) == ["2024-05-22", "2024-05-23"]        # no point made up for the 24th
    assert list(bench_dd.y) == [0.0, -2.0]                       # 98,490 / 100,500 − 1
    assert mine_dd.fill == "tozeroy" and fig.layout.title.text == "Paper book vs SPY"
    assert fig.layout.shapes[0].y0 == 100000.0                  # the stated amount, dotted
    assert equity_figure(paper(), "zh").layout.title.text == "模拟账户 vs SPY"


def test_the_reliability_chart_marks_the_bucket_farthest_from_the_diagonal() -> None:
    c = calibrated()
    assert most_off(c) == ("0.8–0.9", 0.8, 0.5, 4)
    fig = calibration_figure(c)
    diagonal, hits, personas = fig.data
    assert (list(diagonal.x), list(diagonal.y)) == ([0, 1], [0, 100])
    assert list(hits.x) == [0.65, 0.8] and list(hits.y) == [50.0, 50.0] and list(hits.text) == ["n=2", "n=4"]
    assert fig.layout.annotations[-1].text == "Says 0.80, right 50 % (4 calls)"
    assert (fig.layout.annotations[-1].x, fig.layout.annotations[-1].y) == (0.8, 50.0)
    assert fig.layout.title.text == "Calibration · Brier 0.3175 over 6 calls"  # (0.1225 + 0.4225 + 2 × 0.68) / 6
    assert list(personas.y) == ["Bull Researcher", "Bear Researcher"]
    assert list(personas.x) == [75.0, 25.0] and list(personas.text) == ["3/4", "1/4"]
    assert "说 0.80，对了 50 %（4 个判断）" in [a.text for a in calibration_figure(c, "zh").layout.annotations]


def test_a_calibrated_desk_gets_no_warning_and_none_settled_says_so() -> None:
    near = Calibration((Bucket(Decimal("0.8"), Decimal("0.9"), 5, 4, 0.82),), 0.16, 5, 0)
    assert [a.text for a in calibration_figure(near).layout.annotations if "Says" in (a.text or "")] == []
    empty = Calibration((), None, 0, 0)
    assert calibration_figure(empty).layout.title.text == "Calibration · no settled call with a confidence yet"


def test_the_calibration_travels_as_json_and_back() -> None:
    c = calibrated()
    assert calibration_from(calibration_payload(c)) == c


def test_a_thread_is_linked_to_its_page() -> None:
    assert thread_link("0123456789abcdef") == "[01234567](/thread/0123456789abcdef)"
