"""The track record asked for in Chinese, either script ("你的判断表现如何？", "你們過去的建議準嗎"), is
answered from the record in the asker's script; a question about a stock's own performance is not such
a request (issue 24 with the track record)."""
from __future__ import annotations

import pytest

from graph.core.events import Said
from graph.request.record_ask import asks_for_record
from tests.track.test_flow import run


@pytest.mark.parametrize("text, asks", [
    ("你的判断表现如何？", True), ("你們過去的建議準嗎", True), ("交易台的战绩", True), ("业绩记录", True),
    ("上次说对了吗", True), ("你之前的判断准不准", True), ("你在英伟达上的建议准吗", True),
    ("英伟达表现如何", False), ("英伟达今天能买吗？", False), ("苹果的业绩怎么样", False), ("騰訊業績如何", False),
])
def test_asks_for_the_record_in_chinese(text, asks):
    assert asks_for_record(text) is asks


async def test_the_record_asked_in_chinese_is_answered_in_its_script(desk_factory):
    desk = desk_factory()
    await run(desk, "should I buy NVDA on 2024-03-01?")
    simplified = [ev.text for ev in await run(desk, "你的判断表现如何？") if isinstance(ev, Said)][-1]
    assert (await desk.state())["intent"] == "record"
    assert "NVDA" in simplified and "业绩" in simplified, simplified
    traditional = [ev.text for ev in await run(desk, "你們過去的建議準嗎") if isinstance(ev, Said)][-1]
    assert "NVDA" in traditional and "業績" in traditional and "业绩" not in traditional, traditional
