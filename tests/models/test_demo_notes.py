"""The demo desk's answer to a user's note engages with what the note says (issue 10, point 4):
it quotes the note, quotes what our data has on its words, says what that means for the
speaker's side, and says so when the data has nothing on it instead of one boilerplate line."""
from __future__ import annotations

from graph.models.demo_figures import read_points
from graph.models.demo_notes import answer_note, note_words

FIGURES = {"Close": "42.93", "SMA 50": "60.1", "Macro Tone": "0.17", "News Tone": "-1.0", "RSI 14": "21.32"}
REPORTS = ("Notable: 2026-11-20 Simulated Street Journal: NVDA Holdings shares slide as demand concerns weigh · "
           "2026-11-20 Synthetic Wire: Stocks rally as inflation cools and rate-cut hopes rise")
POINTS = read_points(FIGURES)
BEAR, BULL = -1, 1


def test_a_note_is_read_for_its_subject_not_its_address():
    assert note_words("Bear, what about the China export ban?") == ["china", "export", "ban"]


def test_a_subject_our_data_never_mentions_is_said_to_be_missing_and_the_nearest_figure_given():
    answer = answer_note("Bear, what about the China export ban?", FIGURES, POINTS, REPORTS, BEAR)
    assert "“Bear, what about the China export ban?”" in answer
    assert "Nothing in our data mentions “china”, “export”, “ban”" in answer
    assert "macro news tone is positive (+0.17)" in answer
    assert "cuts against the bear case" in answer


def test_a_subject_in_the_headlines_is_answered_with_the_headline_and_the_figure_on_it():
    bear = answer_note("what about demand?", FIGURES, POINTS, REPORTS, BEAR)
    assert "“2026-11-20 Simulated Street Journal: NVDA Holdings shares slide as demand concerns weigh”" in bear
    assert "company news tone is negative (-1.00)" in bear and "backs the bear case" in bear
    bull = answer_note("what about demand?", FIGURES, POINTS, REPORTS, BULL)
    assert "cuts against the bull case" in bull


def test_a_figure_named_in_the_note_is_answered_with_it():
    answer = answer_note("Bull, what about the RSI?", FIGURES, POINTS, REPORTS, BULL)
    assert "Nothing in our data" not in answer
    assert "RSI 14 at 21.32 is oversold" in answer and "backs the bull case" in answer


def test_different_notes_get_different_answers():
    notes = ["Bear, what about the China export ban?", "what about demand?", "and inflation?", "what about the RSI?"]
    answers = {answer_note(n, FIGURES, POINTS, REPORTS, BEAR).split("”.", 1)[1] for n in notes}
    assert len(answers) == len(notes)
