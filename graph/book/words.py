"""Holdings told in a sentence, read into proposed changes; nothing is applied here.

"I hold 200 NVDA at 95 and have $20k cash" -> set NVDA to 200 @ 95.00; set cash to 20,000.00.
"sold half my AAPL" (AAPL 200 in the book) -> sell half of AAPL: 100 of 200, leaving 100.
"我持有200股英伟达，成本95，现金2万" -> set NVDA to 200 @ 95.00; set cash to 20,000.00.

Rules (deterministic, no model):
- the text is cut into clauses at sentence marks, ';', a comma not between digits, "and"/"plus"/和/以及/还有;
  a clause with no verb takes the previous clause's ("I hold 100 AAPL and 50 MSFT"), and a clause that
  only gives a cost ("，成本95", ", avg cost 95") gives it to the holding before it;
- verbs: hold/own/have/got/持有/持仓/拥有/有 set a position; bought/buy/added/买入/买了/加仓 add to it;
  sold/sell/trimmed/卖出/卖了/减仓 take from it, 清仓 sells all; "short 50 TSLA" sets a short; a clause
  with a symbol and a number but no verb sets the position;
- a price is the number after at/@/cost/avg/average/成本/均价 (per share); the other number is the quantity;
  "half"/一半, "a third", "a quarter", "25%" and "all"/全部/清仓 are parts of the current holding, so they
  need the book and are rounded down to whole shares when the holding is whole;
- cash: a clause naming cash/现金 with an amount sets the cash ("$20k", "15,000", "2万");
- a trade told in words moves the position only, never the cash: the desk does not know the fees, so
  the user says the cash;
- a buy at a price averages the cost ((q0*c0 + q*p) / (q0 + q)); a buy without one, or onto a holding
  of unknown cost, leaves the cost unknown; a sale keeps the cost;
- refused, each with its reason: an unknown symbol, a company listed in several places without saying
  which, no quantity, a negative quantity not called a short, a quantity over MAX_SHARES or cash over
  MAX_CASH, selling more than is held, a part of a holding that is not in the book, a sum of money
  where a number of shares is wanted, a clause with a number but no symbol, and text with nothing to read.
Chinese numerals (两百) are not read: write digits.

Every change and reason is a `Said`: a `[book]` text of prompts/words_<code>.md with its fields. As a str it is
the English (what the tests and the logs read); `told(language)` gives it in the reader's language.

Whether a message tells holdings at all is `tells_holdings`'s call (below): the chat reads only
what it says yes to, so an analysis question ("should I buy NVDA?", "what if I sold half my
AAPL?") goes to the desk, not to the book.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from decimal import ROUND_DOWN, Decimal
from typing import Any, Literal

from graph.core.chinese_script import TRADITIONAL, to_simplified, to_traditional
from graph.core.words import DEFAULT_LANGUAGE, phrase
from graph.request.companies import is_known_ticker
from graph.request.language import detect_language
from graph.request.ticker_hits import TIER_UNKNOWN, TickerHit
from graph.request.tickers import scan_tickers

from .amounts import AMOUNT, word_amount
from .holdings import MAX_CASH, MAX_SHARES, Book, BookError, Position, money, places_kept, shares, too_precise

Action = Literal["set", "buy", "sell", "cash"]
MAX_TEXT = 2_000  # characters: a longer message is refused, not read

_SPLIT = re.compile(
    r"[;；。!！?？\n、]|，|,(?!\d)|(?<!\d),|\.(?=\s|$)|\b(?:and|plus|also)\b|和|以及|还有|并且|另外",
    re.IGNORECASE,
)
_VERBS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("short", re.compile(r"\b(?:short(?:ed)?|i'?m short)\b|做空|卖空|融券", re.IGNORECASE)),
    ("sell_all", re.compile(r"清仓")),
    ("sell", re.compile(r"\b(?:sold|sell(?:ing)?|trimmed|trim|dumped|dump|exited|unloaded)\b|卖出|卖了|卖掉|减仓|卖",
                        re.IGNORECASE)),
    ("buy", re.compile(r"\b(?:bought|buy(?:ing)?|added|add|purchased|picked\s+up)\b|买入|买进|买了|加仓|买",
                       re.IGNORECASE)),
    ("set", re.compile(r"\b(?:hold(?:ing|s)?|own(?:s)?|have|has|got|position\s+(?:is|of))\b|持有|持仓|拥有|有",
                       re.IGNORECASE)),
)
_CASH = re.compile(r"\bcash\b|现金|资金|余额", re.IGNORECASE)
_COST_CUE = re.compile(
    r"(?:\bat|@|\bcost(?:\s+basis)?(?:\s+(?:of|is))?|\bavg(?:\.|\s+cost|\s+price)?|\baverage(?:\s+(?:cost|price))?"
    r"|\bpaid|成本价?|均价|买入价|价格|价)\s*[:：=]?\s*(?:of\s+)?$",
    re.IGNORECASE,
)
_SHARES_AFTER = re.compile(r"^\s*(?:shares?|股|手)", re.IGNORECASE)
_FRACTIONS: tuple[tuple[str, re.Pattern[str], Decimal | None], ...] = (
    ("half", re.compile(r"\bhalf\b|一半|半仓", re.IGNORECASE), Decimal(1) / 2),
    ("a third", re.compile(r"\ba\s+third\b|\bone\s+third\b|三分之一", re.IGNORECASE), Decimal(1) / 3),
    ("a quarter", re.compile(r"\ba\s+quarter\b|\bone\s+quarter\b|四分之一", re.IGNORECASE), Decimal(1) / 4),
    ("all", re.compile(r"\ball\b|\beverything\b|\bentire\b|\bwhole\b|全部|所有|全仓", re.IGNORECASE), None),
)


class Said(str):
    """A `[book]` text with its fields: str() is the English, `told(language)` any language. A field that is a
    Position is described, `price` and `cost` are " @ 95.00" (a missing cost said so for `cost`), `part` is
    "half", "a third", ... or a percent, a tuple is a list ("AAPL, MSFT"; `listings` "A and B"; `missing`, the CSV's
    columns, "symbol or quantity")."""

    key: str
    fields: dict[str, Any]

    def __new__(cls, key: str, **fields: Any) -> Said:
        said = super().__new__(cls, _told(DEFAULT_LANGUAGE, key, fields))
        said.key, said.fields = key, fields
        return said

    def told(self, language: str) -> str:
        return _told(language, self.key, self.fields)


_PARTS = {"half": "part_half", "a third": "part_third", "a quarter": "part_quarter", "all": "part_all"}


def _told(language: str, key: str, fields: dict[str, Any]) -> str:
    def shown(name: str, value: Any) -> Any:
        if isinstance(value, Position):
            return position_words(value, language)
        if name in ("price", "cost"):
            if value is None:
                return phrase(language, "book.no_cost") if name == "cost" else ""
            return phrase(language, "book.at_cost", cost=money(value))
        if name == "part" and value in _PARTS:
            return phrase(language, "book." + _PARTS[value])
        if isinstance(value, tuple):
            if name == "missing":  # a CSV's columns: "symbol or quantity"
                return phrase(language, "book.csv_or").join(phrase(language, f"book.csv_column_{v}") for v in value)
            return phrase(language, "book.and" if name == "listings" else "book.comma").join(map(str, value))
        return value
    return phrase(language, "book." + key, **{name: shown(name, value) for name, value in fields.items()})


def position_words(position: Position, language: str = DEFAULT_LANGUAGE) -> str:
    """'200 NVDA @ 95.00', 'short 50 TSLA @ 240.00', '10 MSFT (cost not given)' (Position.describe), in
    `language`."""
    key = "book.position_short" if position.short else "book.position"
    cost = (phrase(language, "book.at_cost", cost=money(position.cost)) if position.cost is not None
            else phrase(language, "book.no_cost"))
    return phrase(language, key, quantity=shares(abs(position.quantity)), symbol=position.symbol, cost=cost)


class _Refused(BookError):
    """A change that cannot be, with its reason said."""

    def __init__(self, key: str, **fields: Any) -> None:
        self.said = Said(key, **fields)
        super().__init__(str(self.said))


@dataclass(frozen=True)
class Change:
    """One proposed change, as it would leave the book: `after` None with a symbol removes the position."""

    action: Action
    summary: str  # "set NVDA to 200 @ 95.00", "sell half of AAPL: 100 of 200, leaving 100" (a Said)
    text: str  # the words it was read from
    symbol: str | None = None
    before: Position | None = None
    after: Position | None = None
    cash: Decimal | None = None

    def told(self, language: str) -> str:
        """The summary in `language`."""
        return self.summary.told(language) if isinstance(self.summary, Said) else self.summary


@dataclass(frozen=True)
class Problem:
    text: str  # the words that could not be read
    reason: str  # in English (a Said, or a BookError's own words)

    def told(self, language: str) -> str:
        """The reason in `language`."""
        return self.reason.told(language) if isinstance(self.reason, Said) else self.reason


@dataclass(frozen=True)
class Reading:
    changes: tuple[Change, ...] = ()
    problems: tuple[Problem, ...] = ()
    language: str = "en"  # of the words read ("zh", "zh-Hant", ...), so the answer can be in it

    @property
    def ok(self) -> bool:
        return bool(self.changes) and not self.problems

    def summary(self) -> str:
        return "; ".join([c.summary for c in self.changes] + [f"{p.text!r}: {p.reason}" for p in self.problems])


@dataclass
class _Intent:
    text: str
    verb: str | None = None
    symbol: str | None = None
    quantity: Decimal | None = None
    fraction: Decimal | None = None
    whole: bool = False  # "all"
    part: str = ""  # how the part was written: "half", "25%"
    price: Decimal | None = None
    cash: Decimal | None = None
    problems: list[Said] = field(default_factory=list)


def read_holdings(text: str, book: Book | None = None) -> Reading:
    """The changes `text` proposes to `book` (parts of a holding are resolved against it), and what
    could not be read. Later clauses see the earlier ones' changes ("bought 10 AAPL and sold half")."""
    language = detect_language(text[:MAX_TEXT])
    if len(text) > MAX_TEXT:
        return Reading(problems=(Problem(text[:40] + "…", Said("too_long", max=MAX_TEXT)),), language=language)
    # The Chinese words here are Simplified: a message in Traditional is read converted, its clauses quoted
    # back as written.
    intents = _intents(to_simplified(text))
    quoted = to_traditional if language == TRADITIONAL else str
    working = book or Book()
    changes: list[Change] = []
    problems: list[Problem] = []
    for intent in intents:
        if intent.problems:
            problems += [Problem(quoted(intent.text), reason) for reason in intent.problems]
            continue
        try:
            change = _resolve(intent, working)
        except BookError as error:  # a Position or Book that cannot be (graph/book/holdings.py says why in English)
            problems.append(Problem(quoted(intent.text), error.said if isinstance(error, _Refused) else str(error)))
            continue
        if change is None:
            continue
        changes.append(change)
        working = apply_changes(working, [change])
    if not changes and not problems:
        problems.append(Problem(text.strip()[:80], Said("nothing_read")))
    return Reading(tuple(replace(c, text=quoted(c.text)) for c in changes), tuple(problems), language)


def _intents(text: str) -> list[_Intent]:
    """The clauses read, a cost-only clause merged into the holding before it."""
    intents: list[_Intent] = []
    previous_verb: str | None = None
    for clause in (c.strip() for c in _SPLIT.split(text)):
        if not clause:
            continue
        intent = _read_clause(clause, previous_verb)
        if _only_cost(intent) and intents and intents[-1].symbol and intents[-1].price is None:
            intents[-1].price = intent.price
            intents[-1].text += ", " + clause
            continue
        if intent.verb and intent.verb != "cash":
            previous_verb = intent.verb
        intents.append(intent)
    return intents


def apply_changes(book: Book | None, changes: list[Change] | tuple[Change, ...]) -> Book:
    """The book with the (confirmed) changes applied in order."""
    result = book or Book()
    for change in changes:
        if change.action == "cash" and change.cash is not None:
            result = result.with_cash(change.cash)
        elif change.symbol:
            result = result.with_position(change.after or Position(change.symbol, Decimal(0)))
    return result


_NO_SYMBOL = Said("no_symbol")


def _read_clause(clause: str, previous_verb: str | None) -> _Intent:
    intent = _Intent(clause)
    amounts = list(AMOUNT.finditer(clause))
    blanked = clause
    for m in amounts:  # numbers blanked, so "at 300" is not read as the code 0300.HK
        blanked = blanked[: m.start()] + " " * (m.end() - m.start()) + blanked[m.end():]
    intent.verb = next((name for name, pattern in _VERBS if pattern.search(clause)), None)
    cash = bool(_CASH.search(clause))
    hits = scan_tickers(blanked, blanked.isupper()) if not cash or intent.verb in ("buy", "sell") else []
    if cash and not hits:
        return _cash_clause(intent, amounts)
    intent.verb = intent.verb or previous_verb
    prices = [m for m in amounts if _COST_CUE.search(clause[: m.start()])]
    counts = [m for m in amounts if m not in prices]
    if prices:
        intent.price = word_amount(prices[0])
    if len(prices) > 1:
        intent.problems.append(Said("more_prices"))
    if not hits:
        if counts or (intent.verb and intent.verb != "set"):
            intent.problems.append(_NO_SYMBOL)
        return intent
    hit = _the_hit(hits, intent)
    if hit is None:
        return intent
    intent.symbol = hit.symbol
    intent.verb = intent.verb or "set"
    counts = _part_of(intent, clause, blanked, counts)
    _quantity_of(intent, hit, counts)
    return intent


def _the_hit(hits: list[TickerHit], intent: _Intent) -> TickerHit | None:
    """The one symbol of a clause, or None with the problem said."""
    if len(hits) > 1:
        intent.problems.append(Said("several_symbols", symbols=tuple(h.symbol for h in hits)))
        return None
    hit = hits[0]
    if hit.listings:
        intent.problems.append(Said("listed", source=hit.source, listings=tuple(hit.listings)))
        return None
    if hit.tier == TIER_UNKNOWN or not (is_known_ticker(hit.symbol) or "." in hit.symbol):
        intent.problems.append(Said("unknown_symbol", symbol=hit.symbol))
        return None
    return hit


def _part_of(intent: _Intent, clause: str, blanked: str, counts: list[re.Match[str]]) -> list[re.Match[str]]:
    """'half', 'all', '25%' of the holding, into the intent; the counts left once a percent is taken."""
    for name, pattern, fraction in _FRACTIONS:
        if pattern.search(blanked):
            intent.whole, intent.fraction, intent.part = fraction is None, fraction, name
            break
    if intent.verb == "sell_all":
        intent.verb, intent.whole, intent.fraction, intent.part = "sell", True, None, "all"
    percent = [m for m in counts if clause[m.end():].lstrip().startswith("%")]
    if not percent:
        return counts
    value = word_amount(percent[0])
    intent.fraction, intent.whole, intent.part = value / 100, False, f"{value.normalize():f}%"
    if not 0 < value <= 100:
        intent.problems.append(Said("part_range"))
    return [m for m in counts if m not in percent]


def _quantity_of(intent: _Intent, hit: TickerHit, counts: list[re.Match[str]]) -> None:
    if len(counts) > 1:
        # "200 NVDA 95": a number before the symbol and one after, no cue: the one after is the price
        after = [m for m in counts if m.start() >= hit.end]
        if intent.price is None and len(counts) == 2 and len(after) == 1 and counts[0].start() < hit.start:
            intent.price = word_amount(after[0])
            counts = [counts[0]]
        else:
            intent.problems.append(Said("more_quantities"))
            return
    if counts:
        if counts[0].group("cur"):
            intent.problems.append(Said("money_not_shares", amount=counts[0].group(0).strip()))
            return
        intent.quantity = word_amount(counts[0])
    elif intent.fraction is None and not intent.whole:
        intent.problems.append(Said("how_many", symbol=intent.symbol))
    if intent.price is not None and intent.price < 0:
        intent.problems.append(Said("negative_price"))


def _cash_clause(intent: _Intent, amounts: list[re.Match[str]]) -> _Intent:
    intent.verb = "cash"
    if not amounts:
        intent.problems.append(Said("cash_how_much"))
    elif len(amounts) > 1:
        intent.problems.append(Said("cash_several"))
    else:
        intent.cash = word_amount(amounts[0])
    return intent


def _only_cost(intent: _Intent) -> bool:
    return (intent.price is not None and intent.symbol is None and intent.cash is None
            and intent.verb in (None, "set", "buy") and set(intent.problems) <= {_NO_SYMBOL})


def _part(held: Decimal, intent: _Intent) -> tuple[Decimal, str]:
    if intent.whole or intent.fraction is None:
        return held, "all"
    part = held * intent.fraction
    # Whole shares stay whole; a fractional holding's part is cut to the places a book keeps (a third of 0.5).
    places = Decimal(1) if held == held.to_integral_value() else Decimal(1).scaleb(-places_kept(intent.symbol))
    return part.quantize(places, rounding=ROUND_DOWN), intent.part


def _resolve(intent: _Intent, book: Book) -> Change | None:
    if intent.verb == "cash":
        assert intent.cash is not None
        if abs(intent.cash) > MAX_CASH:
            raise _Refused("cash_too_much", cash=money(intent.cash), max=f"{MAX_CASH:,.0f}")
        return Change("cash", Said("cash", cash=money(intent.cash), currency=book.currency), intent.text,
                      cash=intent.cash)
    symbol = intent.symbol
    if symbol is None:
        return None
    _check(intent, symbol)
    if intent.verb == "buy":
        return _buy(intent, symbol, book.get(symbol))
    if intent.verb == "sell":
        return _sell(intent, symbol, book.get(symbol))
    return _set(intent, symbol, book.get(symbol))


def _check(intent: _Intent, symbol: str) -> None:
    """Refuse, in words the user's language has, what a Position would refuse in English."""
    quantity = intent.quantity
    if quantity is not None:
        if quantity < 0 and intent.verb != "short":
            raise _Refused("negative_quantity", quantity=shares(quantity), shares=shares(abs(quantity)), symbol=symbol)
        if abs(quantity) > MAX_SHARES:
            raise _Refused("too_many_shares", quantity=shares(quantity), max=f"{MAX_SHARES:,.0f}")
        if too_precise(quantity, symbol):
            raise _Refused("too_precise", quantity=shares(abs(quantity)), places=places_kept(symbol))
    if intent.price is not None and intent.price > MAX_CASH:
        raise _Refused("not_a_price", value=shares(intent.price), max=f"{MAX_CASH:,.0f}")


def _set(intent: _Intent, symbol: str, before: Position | None) -> Change:
    """'I hold 200 NVDA at 95', 'short 50 TSLA': the position as told."""
    quantity = intent.quantity
    if quantity is None:
        raise _Refused("how_many_short" if intent.verb == "short" else "how_many", symbol=symbol)
    if intent.verb == "short":
        after = Position(symbol, -abs(quantity), intent.price)
        return Change("set", Said("set_short", symbol=symbol, quantity=shares(abs(quantity)), price=intent.price),
                      intent.text, symbol, before, after)
    if quantity == 0:
        summary = Said("remove_was", symbol=symbol, before=before) if before else Said("remove", symbol=symbol)
        return Change("set", summary, intent.text, symbol, before, None)
    after = Position(symbol, quantity, intent.price)
    return Change("set", Said("set", symbol=symbol, quantity=shares(quantity), cost=after.cost), intent.text,
                  symbol, before, after)


def _buy(intent: _Intent, symbol: str, before: Position | None) -> Change:
    """'bought 10 more MSFT at 410': added, the cost averaged when both costs are known."""
    quantity = intent.quantity
    if quantity is None:
        raise _Refused("how_many_bought", symbol=symbol)
    if quantity == 0:
        raise _Refused("buy_zero")
    held = before.quantity if before else Decimal(0)
    total = held + quantity
    cost: Decimal | None = None
    if intent.price is not None and held >= 0:
        if before is None:
            cost = intent.price
        elif before.cost is not None:
            cost = ((held * before.cost + quantity * intent.price) / total).quantize(Decimal("0.0001"))
    after = Position(symbol, total, cost)
    return Change("buy", Said("buy", quantity=shares(quantity), symbol=symbol, price=intent.price, held=shares(held),
                              after=after), intent.text, symbol, before, after)


def _sell(intent: _Intent, symbol: str, before: Position | None) -> Change:
    """'sold 50 AAPL', 'sold half my AAPL', '清仓特斯拉': taken from what is held, never past it."""
    quantity = intent.quantity
    if before is None or before.quantity <= 0:
        if quantity is None:
            raise _Refused("sell_none", symbol=symbol)
        raise _Refused("sell_none_short", symbol=symbol, quantity=shares(quantity))
    held = before.quantity
    fields: dict[str, Any]
    if quantity is None:
        quantity, part = _part(held, intent)
        key, fields = "sell_part", {"part": part, "symbol": symbol, "quantity": shares(quantity), "held": shares(held)}
        if quantity == 0:
            raise _Refused("part_rounds", part=part, held=shares(held), symbol=symbol)
    else:
        key, fields = "sell", {"quantity": shares(quantity), "symbol": symbol, "price": intent.price}
        if quantity == 0:
            raise _Refused("sell_zero")
        if quantity > held:
            raise _Refused("sell_more", quantity=shares(quantity), symbol=symbol, held=shares(held),
                           extra=shares(quantity - held))
    left = held - quantity
    summary = Said(f"{key}_left", left=shares(left), **fields) if left else Said(f"{key}_closed", **fields)
    return Change("sell", summary, intent.text, symbol, before, replace(before, quantity=left) if left else None)


# -- whether a message tells holdings at all ---------------------------------------------------------
# The chat sends a message to `read_holdings` only when `tells_holdings` says yes. It must say no to
# what the desk analyses ("should I buy NVDA?", "is AAPL a sell?", "what if I sold half my AAPL?"):
# a wrong yes costs the user their analysis, a wrong no only a "/book <words>" (which reads anyway).
#
# Yes: a statement of fact in the first person or in a broker's past tense, with no question, no "if"
# and no intention in it. A weak verb ("I have", "我有") needs a quantity of something holdable after
# it: "I have 200 NVDA" tells, "I have 2 questions about NVDA" does not.

# A question, a hypothesis, an intention or a denial anywhere in the message: not a statement of holdings.
_ASKS = re.compile(
    r"[?？]"
    r"|\b(?:should|shall|would|could|might|will|if|whether|suppose|imagine|hypothetically|want|wanna|"
    r"plan(?:ning)?\s+to|going\s+to|gonna|thinking\s+(?:of|about)|consider(?:ing)?|"
    r"don'?t|doesn'?t|do\s+not|no\s+longer|never|not)\b"
    r"|\b(?:I|we)'(?:ll|d)\b"
    r"|吗|嗎|呢|是否|应该|應該|要不要|该不该|能不能|可不可以|可以|怎么|怎麼|怎样|怎樣|什么|什麼|为什么|為什麼|如何|多少|几|幾"
    r"|建议|建議|分析|看法|如果|假如|要是|假设|假設|想|打算|准备|準備|计划|計劃|考虑|考慮|会不会|是不是|没有|沒有|不再|不持有",
    re.IGNORECASE,
)
# A question's first word at the start of the message or of a clause: "What now", "how is NVDA".
_ASKS_FIRST = re.compile(
    r"(?:^|[,;:.!，；。！]\s*|\band\s+)(?:is|are|am|do|does|did|can|what|why|how|when|which|who|where|any)\b",
    re.IGNORECASE,
)
_ADVERB = r"(?:(?:just|still|already|also|now|currently|recently|only|actually)\s+)?"
_TELLS = re.compile(
    # "I hold", "I'm holding", "we own", "I just bought", "I've sold", "I'm short"
    r"\b(?:I|we)(?:'m|'ve|\s+am|\s+are|\s+have)?\s+" + _ADVERB +
    r"(?:hold(?:ing)?|own|bought|sold|added|trimmed|shorted|purchased|picked\s+up|dumped|unloaded|exited|long|short)\b"
    # a broker's note: "bought 50 AMD at 120", "just sold half my AAPL"
    r"|^\s*(?:(?:just|also|today|yesterday|recently)\s+)?"
    r"(?:bought|sold|added|trimmed|shorted|purchased|picked\s+up|dumped|unloaded|exited)\b"
    r"|^\s*(?:holding|long|short)\s+[-−]?\$?\d"            # "long 200 NVDA at 95", "short 50 TSLA"
    r"|\bmy\s+(?:holdings?|positions?|portfolio|book)\s*(?:is|are|:)"
    r"|\b(?:my\s+)?cash(?:\s+balance)?\s*(?:is|:|=)"       # "cash is 15,000", "my cash: $20k"
    r"|我(?:现在|目前|还|已经|刚|刚刚|也)?(?:持有|拥有|持仓|买了|买入|卖了|卖出|卖掉|清仓|加仓|减仓)"
    r"|持有|持仓|买了|卖了|卖掉了|买入了|卖出了|清仓了|加仓了|减仓了|已买入|已卖出|已经买入|已经卖出|刚买入|刚卖出|已清仓"
    r"|现金\s*[:：]?\s*(?:是|有|为|為)?\s*[$¥￥]?\d",       # "现金2万"
    re.IGNORECASE,
)
# "I have", "I've got", "我有": holdings only when a quantity of something holdable follows.
_HAVE = re.compile(r"(?:\b(?:I|we)(?:'ve|\s+have|\s+also\s+have|\s+still\s+have)?\s+(?:got\s+)?|\bI\s+have\s+|"
                   r"我(?:还|也|现在|目前)?有)\s*(?:about\s+|around\s+|roughly\s+)?(?=[-−]?[$€£¥]?\d)",
                   re.IGNORECASE)
_HOLDABLE = re.compile(r"^\s*(?:more\s+)?(?:shares?\b|股|手|(?:in\s+)?cash\b|现金|元|美元|美金)", re.IGNORECASE)


def tells_holdings(text: str) -> bool:
    """Whether `text` tells the desk what the user holds (to be read by `read_holdings` and confirmed),
    rather than asking about it."""
    text = to_simplified(text.strip())
    if not text or len(text) > MAX_TEXT or text.startswith("/"):
        return False
    if _ASKS.search(text) or _ASKS_FIRST.search(text):
        return False
    return bool(_TELLS.search(text)) or any(_holdable_after(text, m.end()) for m in _HAVE.finditer(text))


def _holdable_after(text: str, at: int) -> bool:
    """Whether the amount at `at` counts something holdable: shares, cash or a stock ("200 NVDA")."""
    amount = AMOUNT.match(text, at)
    if amount is None:
        return False
    rest = text[amount.end():]
    if _HOLDABLE.match(rest):
        return True
    head = rest[:40]
    hits = scan_tickers(head, head.isupper())
    return bool(hits) and not head[: hits[0].start].strip(" \t-")
