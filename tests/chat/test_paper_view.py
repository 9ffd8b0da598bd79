"""The paper book's charts and the calibration's (chat/views/paper_view.py), their data checked against figures worked
by hand; and /paper's text with its thread links (chat/features/paper.py)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from chat.features.paper import thread_link
from chat.views.paper_view import calibration_figure, drawdown, equity_figure, most_off
from graph.paper.book import PaperBook
from graph.paper.keeper import Benchmark, Paper
from graph.paper.ledger import Ledger
from graph.paper.words import metrics_lines
from graph.track.calibration import Bucket, Calibration, calibration_from, calibration_payload

D1, D2, D3 = date(2024, 5, 22), date(2024, 5, 23), date(2024, 5, 24)
BOOK = PaperBook(user="ana", start="100000.00", cost_bps="5", since="2024-05-21T13:00:00+00:00")


def paper() -> Paper:
    ledger = Ledger(book=BOOK, cash=Decimal("102010.00"),
                    curve=[(D1, Decimal("101000.00")), (D2, Decimal("99990.00")), (D3, Decimal("102010.00"))])
    return Paper(ledger, (Benchmark("SPY", [(D1, Decimal("100500.00")), (D2, Decimal("98490.00"))], ("NVDA",)),))


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
    assert fig.layout.annotations[-1].ay > 0  # below the point: the desk said more than it was right
    assert fig.layout.title.text == "Calibration · Brier 0.3175 over 6 calls"  # (0.1225 + 0.4225 + 2 × 0.68) / 6
    assert list(personas.y) == ["Bull Researcher", "Bear Researcher"]
    assert list(personas.x) == [75.0, 25.0] and list(personas.text) == ["3/4", "1/4"]
    assert "说 0.80，对了 50 %（4 个判断）" in [a.text for a in calibration_figure(c, "zh").layout.annotations]


def test_a_note_on_a_bucket_right_almost_never_stays_above_the_axis() -> None:
    """Says 0.82, right 0 %: the note goes above its point, not onto the axis's labels and the legend below."""
    never = Calibration((Bucket(Decimal("0.8"), Decimal("0.9"), 2, 0, 0.82),), 0.6724, 2, 0, {})
    note = calibration_figure(never).layout.annotations[-1]
    assert note.text == "Says 0.82, right 0 % (2 calls)" and note.ay < 0


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


def two_classes() -> Paper:
    mine = paper()
    btc = Benchmark("BTC-USD", [(D1, Decimal("103000.00")), (D2, Decimal("97850.00"))], ("BTC-USD", "ETH-USD"))
    return Paper(mine.ledger, (*mine.benchmarks, btc), unbenchmarked=("EURUSD=X",))


def test_a_book_of_two_classes_is_drawn_against_both_benchmarks() -> None:
    fig = equity_figure(two_classes())
    spy, _, btc, btc_dd, mine, _ = fig.data
    assert (spy.name, btc.name, mine.name) == ("SPY", "BTC-USD", "Paper book")
    assert list(btc_dd.y) == [0.0, -5.0]                         # 97,850 / 103,000 − 1
    assert spy.line.color != btc.line.color
    assert fig.layout.title.text == "Paper book vs SPY, BTC-USD"
    alone = Paper(paper().ledger, ())
    assert equity_figure(alone).layout.title.text == "Paper book" and len(equity_figure(alone).data) == 2


@dataclass(frozen=True)
class Figures:
    cumulative_return: float | None
    annualized_return: float | None = None
    sharpe: float | None = None
    max_drawdown: float | None = None
    days: int = 3


def test_each_class_benchmark_gets_its_figures_and_the_books_alpha_over_it() -> None:
    lines = metrics_lines(two_classes(), Figures(0.0201), {"SPY": Figures(-0.0151), "BTC-USD": Figures(0.05)}, "en")
    # alpha = the book's CR less the benchmark's: 2.01 % − (−1.51 %) = +3.52 %; 2.01 % − 5.00 % = −2.99 %.
    assert lines[1].startswith("- paper book: CR +2.01 %")
    assert lines[2].startswith("- SPY, the benchmark of NVDA: CR -1.51 %")
    assert lines[2].endswith("alpha over it +3.52 %")
    assert lines[3].startswith("- BTC-USD, the benchmark of BTC-USD, ETH-USD: CR +5.00 %")
    assert lines[3].endswith("alpha over it -2.99 %")
    assert lines[4] == ("No benchmark for EURUSD=X: a currency pair is itself a relative price, measured on its own "
                        "return.")
    zh = metrics_lines(two_classes(), Figures(0.0201), {"SPY": Figures(-0.0151)}, "zh")
    assert zh[2].startswith("- SPY（NVDA 的基准）：CR -1.51 %") and zh[2].endswith("超额收益 +3.52 %")
    assert zh[3] == "EURUSD=X 没有基准：货币对本身就是相对价格，按其自身收益衡量。"
