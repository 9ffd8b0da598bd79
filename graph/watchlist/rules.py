"""When a watch runs: every trading day or one weekday a week, at a time of the exchange's day ("after the
close" is 16:30 in New York, 16:30 in Hong Kong, 15:30 in Shanghai: EXCHANGE_HOURS), and which slot is due
at a given moment.

A watch follows its asset class's calendar too (graph/core/assets.py market_of): crypto every day, Saturday and
Sunday included, on UTC days (its "after the close" is 23:30 UTC, the last half hour of the UTC day whose bar
the slot analyses: a slot's day is the day the desk is asked about, so a slot past midnight would analyse a day
half an hour old); currencies Monday to Friday, each session ending 17:00 New York (the one opened Sunday
evening is Monday's), holidays included; commodity futures CME Globex's sessions, in Chicago time.

A watch follows one exchange, its listings' own (`market`, as graph.request.listing_codes.market_of gives
it): its trading days (graph/core/trading_days.py) and its time zone. A slot is one moment a watch should
run (a time-zone-aware datetime). Slots fall on the exchange's trading days only: a weekly watch whose
weekday is a holiday skips that week, as the market does. At most one slot a trading day: a call settles
over weeks (graph/track/horizon.py), so re-deliberating within a day would only repeat the desk's last words
at the price of a whole run; "every hour" is refused with that reason.

`due` is the rule that makes a missed slot run once, not many times: whatever slots passed since the last one
run (the server was down over a long weekend), only the latest is due. Time is always passed in (`now`), so
tests drive it with any clock and never sleep.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import NamedTuple
from zoneinfo import ZoneInfo

from ..core.trading_days import EVERY_DAY, is_trading_day


class Hours(NamedTuple):
    """An exchange's zone and the two moments a watch names: after the close (half an hour for the day's bar
    to settle at the vendor) and the morning (before the open)."""

    zone: str
    after_close: time
    morning: time


EXCHANGE_HOURS: dict[str, Hours] = {
    "US": Hours("America/New_York", time(16, 30), time(9, 0)),  # NYSE: 9:30-16:00
    "HK": Hours("Asia/Hong_Kong", time(16, 30), time(9, 0)),    # HKEX: 9:30-16:00 (closing auction to 16:10)
    "CN": Hours("Asia/Shanghai", time(15, 30), time(9, 0)),     # Shanghai and Shenzhen: 9:30-15:00
    "JP": Hours("Asia/Tokyo", time(16, 0), time(8, 30)),        # Tokyo: 9:00-15:30 (since November 2024)
    "TW": Hours("Asia/Taipei", time(14, 0), time(8, 30)),       # Taiwan: 9:00-13:30
    # Markets by asset class (graph/core/assets.py market_of). Crypto never closes: its day is a UTC day, and
    # "after the close" is half an hour before that day ends (the bar nearly whole). Currencies: the day ends
    # 17:00 in New York. Commodity futures: CME Globex's day ends 16:00 in Chicago.
    "CRYPTO": Hours("UTC", time(23, 30), time(8, 0)),
    "FX": Hours("America/New_York", time(17, 30), time(9, 0)),
    "CME": Hours("America/Chicago", time(16, 30), time(8, 0)),
}
NEW_YORK = ZoneInfo("America/New_York")
AFTER_CLOSE = EXCHANGE_HOURS["US"].after_close
MORNING = EXCHANGE_HOURS["US"].morning
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday")
WEEKEND = ("saturday", "sunday")  # a weekly watch's day only on a market that trades every day (crypto)
EVERY_TRADING_DAY = -1
_LOOK_BACK_DAYS = 14  # a due slot is looked for this far back; older missed slots are not worth a run


class RuleRefused(ValueError):
    """A schedule that cannot or should not run, with the reason in words."""


@dataclass(frozen=True)
class Rule:
    """A watch's timing: `weekday` 0 (Monday) … 4 (Friday), 5 and 6 too on a market that trades every day
    (crypto), or EVERY_TRADING_DAY; `at` in the time zone of `market` (an exchange: US, HK, CN, JP, TW; or a
    class's calendar: CRYPTO, FX, CME), whose trading days it runs on."""

    weekday: int = EVERY_TRADING_DAY
    at: time = AFTER_CLOSE
    market: str = "US"

    def __post_init__(self) -> None:
        if self.weekday != EVERY_TRADING_DAY and not 0 <= self.weekday <= (6 if self.every_day else 4):
            raise RuleRefused("A watch runs on trading days, Monday to Friday: the market is closed on weekends.")
        if self.market not in EXCHANGE_HOURS:
            raise RuleRefused(f"A watch cannot follow the {self.market} market yet: its hours are not known here.")

    @property
    def every_day(self) -> bool:
        """Whether the market trades every day of the week (crypto): a daily watch then has a slot on Saturday
        and Sunday too."""
        return self.market == EVERY_DAY

    @property
    def zone(self) -> str:
        return EXCHANGE_HOURS[self.market].zone

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.zone)

    def runs_on(self, day: date) -> bool:
        """Whether the rule has a slot on this day: a trading day of the exchange, and its weekday."""
        if not is_trading_day(day, self.market):
            return False
        return self.weekday == EVERY_TRADING_DAY or day.weekday() == self.weekday

    def slot_on(self, day: date) -> datetime:
        return datetime.combine(day, self.at, tzinfo=self.tz)

    def slots(self, after: datetime, until: datetime) -> list[datetime]:
        """Every slot in (after, until], oldest first."""
        out: list[datetime] = []
        day = after.astimezone(self.tz).date()
        last = until.astimezone(self.tz).date()
        while day <= last:
            if self.runs_on(day) and after < (slot := self.slot_on(day)) <= until:
                out.append(slot)
            day += timedelta(days=1)
        return out

    def due(self, now: datetime, *, last_run: datetime | None, since: datetime) -> datetime | None:
        """The slot to run now, if any: the latest one passed since the last run (or since the watch was
        made), never one already run. Several missed slots give one run, the latest's."""
        floor = max(last_run or since, since, now - timedelta(days=_LOOK_BACK_DAYS))
        passed = self.slots(floor, now)
        return passed[-1] if passed else None

    def next_slot(self, now: datetime) -> datetime:
        """The next slot after `now` (the trading calendar has no gap longer than a few days)."""
        day = now.astimezone(self.tz).date()
        for _ in range(_LOOK_BACK_DAYS + 8):
            if self.runs_on(day) and (slot := self.slot_on(day)) > now:
                return slot
            day += timedelta(days=1)
        raise RuleRefused("No trading day in the next three weeks.")  # not reached on any calendar here

    def cron(self) -> dict[str, object]:
        """The rule as APScheduler's CronTrigger fields: it wakes on the weekday(s) at the time; a holiday
        is skipped by `runs_on` when the job runs (cron knows no exchange calendar)."""
        if self.weekday != EVERY_TRADING_DAY:
            days = (WEEKDAYS + WEEKEND)[self.weekday][:3]
        else:
            days = "mon-sun" if self.every_day else "mon-fri"
        return {"day_of_week": days, "hour": self.at.hour, "minute": self.at.minute, "timezone": self.zone}

    def words(self) -> str:
        if self.weekday != EVERY_TRADING_DAY:
            when = f"every {(WEEKDAYS + WEEKEND)[self.weekday].title()}"
        else:
            when = "every day" if self.every_day else "every trading day"
        return f"{when} at {self.at:%H:%M} {self.zone.rpartition('/')[2].replace('_', ' ')} time"

    def as_dict(self) -> dict[str, object]:
        return {"weekday": self.weekday, "at": self.at.strftime("%H:%M"), "market": self.market, "zone": self.zone}

    @classmethod
    def from_dict(cls, value: dict[str, object]) -> Rule:
        # A watch saved before watches went abroad has no market: it was a New York one.
        market = str(value.get("market", "US"))
        at = value.get("at")
        return cls(int(str(value.get("weekday", EVERY_TRADING_DAY))),
                   time.fromisoformat(str(at)) if at else cls.closing(market).at, market)

    @classmethod
    def closing(cls, market: str, weekday: int = EVERY_TRADING_DAY) -> Rule:
        """A watch after the close of `market`'s day (`at` defaults to New York's close, whatever the market)."""
        hours = EXCHANGE_HOURS.get(market)
        return cls(weekday, hours.after_close if hours else AFTER_CLOSE, market)
