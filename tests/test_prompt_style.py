"""A prompt set's date and clock style (`brain_server/prompts/style.py`, issue 42's reworded sets):
the brain's dates and clocks said in the set's forms in what fills a prompt, nothing else."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
import json
from pathlib import Path
import typing

import pytest

from brain_server.cognition.offline.said_clock import clock_times, named_days
from brain_server.llm.client import LLM
from brain_server.llm.scheduler import Priority, Work
from brain_server.model.errors import ConfigError
from brain_server.model.memory import unstamped
from brain_server.prompts import PromptLibrary
from brain_server.prompts.replan import PROMPT as REPLAN
from brain_server.prompts.replan import Replan, ReplanBlock
from brain_server.prompts.style import STYLE_FILE, Clock, DateForm, Style
from npc_lab.fake_openai import FakeOpenAI

WRITTEN = "[Tuesday February 14, 09:15] Ann Lee's plan for 08:00-12:00 on Tuesday February 04: the fair at 17:30"


def test_the_default_style_is_the_brains_own_and_rewrites_nothing() -> None:
    assert Style().plain and Style().restyle(WRITTEN) == WRITTEN
    assert Style.load([Path("/nonexistent")]) == Style()


@pytest.mark.parametrize(("style", "said"), [
    (Style("12h", "weekday, day month"),
     "[Tuesday, 14 February, 9:15 am] Ann Lee's plan for 8 am-12 pm on Tuesday, 4 February: the fair at 5:30 pm"),
    (Style("parts of the day", "weekday the day of month"),
     "[Tuesday the 14th of February, 9:15 in the morning] Ann Lee's plan for 8 in the morning to noon on Tuesday "
     "the 4th of February: the fair at 5:30 in the evening"),
    (Style("12h dotted", "weekday, short month day"),
     "[Tuesday, Feb 14, 9.15 a.m.] Ann Lee's plan for 8.00 a.m.-12.00 p.m. on Tuesday, Feb 4: the fair at 5.30 p.m."),
    (Style("12h upper", "weekday day short month"),
     "[Tuesday 14 Feb, 9:15 AM] Ann Lee's plan for 8:00 AM-12:00 PM on Tuesday 4 Feb: the fair at 5:30 PM"),
], ids=["12h", "parts of the day", "dotted", "upper"])
def test_a_style_says_the_brains_dates_and_clocks_in_its_forms(style: Style, said: str) -> None:
    assert style.restyle(WRITTEN) == said


def test_a_span_of_clocks_is_said_as_one() -> None:
    """A span in words is joined by "to" (a hyphen between words reads as one word), its one part
    of the day said once; a date in the brain's parentheses gets none of its own (the first form
    tried, "21 January (Wednesday)", nested them: "(that is tomorrow, 21 January (Wednesday), ...")."""
    said = "(that is tomorrow, Wednesday January 21, 15:00-16:30, at the depot); 09:00-17:00 work; 20:00-23:30"
    assert Style("parts of the day", "weekday the day of month").restyle(said) == (
        "(that is tomorrow, Wednesday the 21st of January, 3 to 4:30 in the afternoon, at the depot); 9 in the "
        "morning to 5 in the evening work; 8 in the evening to 11:30 at night")
    assert Style("12h", "weekday, day month").restyle(said).startswith(
        "(that is tomorrow, Wednesday, 21 January, 3 pm-4:30 pm, at the depot)")
    for form in typing.get_args(DateForm):
        assert Style(date=form).restyle(said).count("(") == 1


def test_what_a_style_leaves_alone() -> None:
    """A time a model said with its half of the day, an ISO date, a ratio, a clock inside a word."""
    text = "at 5:30 pm or 6 PM; on 2026-02-14; odds 3:1; room B12:30x; version 1.2:3"
    assert Style("parts of the day", "weekday, day month").restyle(text) == text


@pytest.mark.parametrize("clock", typing.get_args(Clock))
@pytest.mark.parametrize("date", typing.get_args(DateForm))
def test_every_style_is_read_back_as_the_same_day_and_time(clock: Clock, date: DateForm) -> None:
    """A model that copies a styled date or time into what it writes is read as meaning the same
    (said_clock reads the lines it writes), and a stamp it copies is still taken off."""
    said = Style(clock, date).restyle("the fair on Tuesday February 14 at 17:30")
    assert named_days(said, datetime(2026, 2, 10, tzinfo=UTC).date()) == [datetime(2026, 2, 14).date()]
    assert clock_times(said) == [(17, 30)]
    stamp = Style(clock, date).restyle("[Tuesday February 14, 09:15] ")
    assert unstamped(f"Ann knows that {stamp}Bo sings.") == "Ann knows that Bo sings."


def test_a_bracket_without_a_day_and_a_figure_is_no_stamp() -> None:
    assert unstamped("[Sunday service] at the chapel") == "[Sunday service] at the chapel"
    assert unstamped("[Room 4] is free") == "[Room 4] is free"


def test_a_style_file_that_is_not_one_is_refused_naming_the_file_and_the_forms(tmp_path: Path) -> None:
    (tmp_path / STYLE_FILE).write_text(json.dumps({"clock": "13h"}))
    with pytest.raises(ConfigError, match=r"style\.json: clock '13h' is none of '24h', '12h'"):
        PromptLibrary(tmp_path)
    (tmp_path / STYLE_FILE).write_text(json.dumps({"clocks": "12h"}))
    with pytest.raises(ConfigError, match="an object with 'clock' and/or 'date'"):
        PromptLibrary(tmp_path)
    (tmp_path / STYLE_FILE).write_text("{not json")
    with pytest.raises(ConfigError, match="not readable JSON"):
        PromptLibrary(tmp_path)
    with pytest.raises(ConfigError, match="is not a folder: point it at your prompt files"):
        PromptLibrary(tmp_path / "missing")


def test_a_prompt_shows_its_placeholders_in_the_sets_style_and_keeps_its_own_words(tmp_path: Path) -> None:
    (tmp_path / STYLE_FILE).write_text(json.dumps({"clock": "12h", "date": "weekday, day month"}))
    variables = {k: k for k in ("persona", "npc_name", "current_activity", "place", "observation", "status", "untold",
                                "subject", "relationship_memories", "status_memories", "choices", "choice_names")}
    messages = PromptLibrary(tmp_path).render("react", {**variables, "time": "Tuesday February 14, 17:30"})
    plain = PromptLibrary().render("react", {**variables, "time": "Tuesday February 14, 17:30"})
    assert "Tuesday, 14 February, 5:30 pm" in messages[1]["content"]
    assert messages[1]["content"].replace("Tuesday, 14 February, 5:30 pm", "Tuesday February 14, 17:30") == \
        plain[1]["content"]


def test_a_clock_said_with_a_dotted_am_ends_a_sentence_with_one_stop(tmp_path: Path) -> None:
    """blind22's prompts under the third reworded set read "It is Tuesday, Jan 20, 7.00 a.m..": the
    template's stop after a clock that ends in one. An ellipsis and the other forms are left alone."""
    dotted = Style("12h dotted", "weekday, short month day")
    assert dotted.tidy("It is 7.00 a.m.. Later, 5.30 p.m.. And a.m....") == "It is 7.00 a.m. Later, 5.30 p.m. And a.m...."
    assert Style("12h").tidy("It is 7 am..") == "It is 7 am.."
    (tmp_path / STYLE_FILE).write_text(json.dumps({"clock": "12h dotted", "date": "weekday, short month day"}))
    variables = {k: k for k in ("persona", "npc_name", "question", "memories")}
    [_, user] = PromptLibrary(tmp_path).render("interview", {**variables, "time": "Tuesday January 20, 07:00"})
    assert "It is Tuesday, Jan 20, 7.00 a.m.. " not in user["content"]
    assert "Tuesday, Jan 20, 7.00 a.m." in user["content"]


def test_a_replan_is_shown_its_window_as_its_answer_gives_it_back(tmp_path: Path) -> None:
    """The re-plan's blocks start at one of the window's "HH:MM" times (an enum), from `$time`:
    those stay as the answer must give them; its memories are in the set's style."""
    (tmp_path / STYLE_FILE).write_text(json.dumps({"clock": "12h"}))
    answer = {"new_blocks": [{"start": "17:30", "activity": "going to the fair", "emoji": "x", "address": "Green"}]}
    variables = {"persona": "Ann", "npc_name": "Ann Lee", "time": "17:30", "date": "Tuesday February 14",
                 "reason": "Bo asked her", "memories": "- [Tuesday February 14, 09:15] Bo said the fair is at 17:30",
                 "seek": "", "done": "- 08:00-12:00 work", "planned": "- 17:30-19:00 reading", "end": "19:00",
                 "later": "- 19:00-22:00 dinner", "places": "- Green", "start_times": ["17:30", "17:45"],
                 "place_list": ["Green"]}

    async def asked() -> Replan:
        with FakeOpenAI() as fake:
            fake.queue({"json": answer}, purpose="replan")
            llm = LLM(base_url=fake.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(tmp_path),
                      max_attempts=1, timeout_s=5.0)
            try:
                got = await llm.complete(REPLAN, variables, npc_id="ann", work=Work(Priority.BACKGROUND),
                                         fallback=lambda: Replan(new_blocks=[ReplanBlock(
                                             start="00:00", activity="x", emoji="x", address="Green")]))
            finally:
                await llm.close()
            shown = fake.chat_requests("replan")[0]["body"]["messages"][1]["content"]
        assert "It is 17:30 on Tuesday February 14." in shown
        assert "from 17:30 until 19:00" in shown and "the first starting at 17:30" in shown
        assert "Bo said the fair is at 5:30 pm" in shown and "- 8 am-12 pm work" in shown
        return got

    assert asyncio.run(asked()).new_blocks[0].start == "17:30"


def test_each_reworded_set_says_dates_and_clocks_otherwise(tmp_path: Path) -> None:
    from npc_lab.rewording import STYLES, write_set

    styles = [PromptLibrary(write_set(tmp_path / str(k), k)).style for k in range(1, STYLES + 1)]
    assert not any(s.plain for s in styles)
    assert len({s.restyle(WRITTEN) for s in styles}) == STYLES


def test_a_date_said_as_the_nth_of_a_month_is_read() -> None:
    """"On the 21st of January" is how many a model writes a date (and one of the reworded sets'
    forms): read as the 21st, as "21 January" was."""
    today = datetime(2026, 1, 19, tzinfo=UTC).date()
    assert named_days("Teodor teaches Morse on Wednesday the 21st of January at 3 pm", today) == \
        [datetime(2026, 1, 21).date()]
    assert named_days("the 2nd of May", today) == [datetime(2026, 5, 2).date()]
