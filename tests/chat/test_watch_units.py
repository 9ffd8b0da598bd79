"""The chat's side of watches, in process: a scheduled run's thread id passes the history's strict pattern (and
nothing made up around it does), a page may never be the first to name one, and the rule and slot said in
English and Chinese."""
from __future__ import annotations

from datetime import datetime, time

import pytest

from chat import history
from chat.features.watches import rule_words, when_words
from chat.web.door import Door
from graph.watchlist.rules import NEW_YORK, Rule

SCHEDULED = "watch-1a2b3c4d-NVDA-202611271630"


def test_scheduled_thread_ids_are_strict():
    for good in (SCHEDULED, "watch-1a2b3c4d-BRK-B-202611271630", "watch-1a2b3c4d-0700_HK-202611271630"):
        assert history.valid_thread_id(good) and history.is_server_thread(good), good
    for bad in ("watch-1A2B3C4D-NVDA-202611271630", "watch-1a2b3c4-NVDA-202611271630", "watch-1a2b3c4d-NVDA-2026112716",
                SCHEDULED + " ", SCHEDULED + "'--", "watch-1a2b3c4d-NV DA-202611271630",
                "watch-1a2b3c4d-NVDA') UNION SELECT 1 --202611271630", "watch-1a2b3c4d--202611271630"):
        assert not history.valid_thread_id(bad), bad


class _NoHistory:
    async def has_thread(self, thread_id: str) -> bool:
        return False  # not run yet: no checkpoints either


@pytest.mark.parametrize("thread_id", [SCHEDULED, "bt-1a2b3c4d-NVDA-20240103"])
async def test_a_page_may_not_be_the_first_to_name_a_server_thread(thread_id, emitter):
    async def runtime():
        return _NoHistory()

    door = Door(auth=None, runtime=runtime)  # type: ignore[arg-type]
    assert not await door.may_open("bob", thread_id)
    assert await door.may_open("bob", "0b6f8a2e-8d0e-4a8e-9d2f-3c1e5a7b9c0d")  # a new chat's own thread


def test_the_rule_and_the_slot_in_words():
    weekly = Rule(weekday=0, at=time(9, 0))
    assert rule_words(Rule(), "en") == "every trading day at 16:30 New York time"
    assert rule_words(weekly, "en") == "every Monday at 09:00 New York time"
    assert rule_words(weekly, "zh") == "每星期一纽约时间 09:00"
    slot = datetime(2026, 11, 27, 16, 30, tzinfo=NEW_YORK)
    assert when_words(slot, Rule(), "en") == "Friday 2026-11-27, 16:30 New York time"
    assert when_words(slot, Rule(), "zh") == "2026-11-27（星期五）纽约时间 16:30"


def test_a_crypto_watch_in_words_runs_every_day_on_utc_days():
    btc = Rule.closing("CRYPTO")
    assert rule_words(btc, "en") == "every day at 23:30 UTC time"
    assert rule_words(btc, "zh") == "每天UTC 时间 23:30"
    saturday = datetime(2026, 11, 28, 23, 30, tzinfo=btc.tz)
    assert when_words(saturday, btc, "en") == "Saturday 2026-11-28, 23:30 UTC time"
    saturdays = Rule(weekday=5, at=time(23, 30), market="CRYPTO")
    assert when_words(saturday, saturdays, "zh") == "2026-11-28（星期六）UTC 时间 23:30"
    assert rule_words(Rule.closing("FX"), "en") == "every trading day at 17:30 New York time"
    assert rule_words(Rule.closing("CME"), "zh") == "每个交易日芝加哥时间 16:30"
