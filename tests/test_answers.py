"""What models we have never run write around and inside their JSON when no response_format holds
them to a schema: read as the schema's object, or refused (a cut-off, a refusal, the wrong thing),
so a call is retried or falls back only for an answer that really is unusable."""

from __future__ import annotations

import asyncio

import pytest

from brain_server.llm.answers import AnswerError, parse_answer
from brain_server.llm.client import LLM
from brain_server.llm.scheduler import Priority, Work
from brain_server.prompts import PromptLibrary
from brain_server.prompts.choose_address import AddressChoice
from brain_server.prompts.converse_turn import Turn
from brain_server.prompts.daily_plan import DailyPlan
from brain_server.prompts.importance import PROMPT as IMPORTANCE
from brain_server.prompts.importance import Importance
from npc_lab.fake_openai import FakeOpenAI

WORK = Work(Priority.PLAN_NOW, "test")  # what the completions here are for


CAFE = '"sector": "Hobbs Cafe", "arena": "cafe", "object": ""'
READ = [
    ("chatter after the fence, braces and all",
     f'Sure! Here you go:\n```json\n{{"place": {{{CAFE}}}}}\n```\nTell me if you want {{another}} place.'),
    ("Python's quotes", "{'place': {'sector': 'Hobbs Cafe', 'arena': 'cafe', 'object': ''}}"),
    ("trailing commas", f'{{"place": {{{CAFE},}},}}'),
    ("comments", f'// I pick the cafe\n{{"place": /* where */ {{{CAFE}}}}}'),
    ("capitalised keys", '{"Place": {"Sector": "Hobbs Cafe", "Arena": "cafe", "Object": ""}}'),
    ("a wrapper", f'{{"answer": {{"place": {{{CAFE}}}}}}}'),
    ("a list of one", f'[{{"place": {{{CAFE}}}}}]'),
    ("two objects, the first the answer", f'{{"place": {{{CAFE}}}}} or maybe {{"place": {{"sector": "park"}}}}'),
]
REFUSED = [
    ("cut off", '{"place": {"sector": "Hobbs Ca'),
    ("cut off after a whole part", f'{{"place": {{{CAFE}}}, "why": {{"because": "it is'),
    ("a refusal", "I'm sorry, but I can't choose a place for a character."),
    ("the wrong object", '{"importance": 4}'),
    ("a field of the wrong type", '{"place": "Hobbs Cafe"}'),
    ("a runaway of braces", "{" * 200_000 + "'" + "}" * 200_000),
]


@pytest.mark.parametrize(("what", "text"), READ, ids=[w for w, _ in READ])
def test_a_usable_answer_is_read_however_it_is_written(what: str, text: str) -> None:
    place = parse_answer(text, AddressChoice).place
    assert (place.sector, place.arena) == ("Hobbs Cafe", "cafe"), what


@pytest.mark.parametrize(("what", "text"), REFUSED, ids=[w for w, _ in REFUSED])
def test_an_unusable_answer_is_refused_not_repaired_into_a_choice(what: str, text: str) -> None:
    with pytest.raises(AnswerError):
        parse_answer(text, AddressChoice)


def test_the_schema_still_decides() -> None:
    """Leniency is in the reading, never in the schema: extra keys, ranges and a line that is no
    line are refused however they are written."""
    for text in ("{'importance': 4, 'extra': 1}", "{'importance': 11}", "{'Importance': '4',}"):
        with pytest.raises(AnswerError):
            parse_answer(text, Importance if "'4'" not in text else Turn)
    with pytest.raises(AnswerError):  # the assistant's voice is no NPC's line, in any quotes
        parse_answer("{'utterance': 'As an AI language model, I cannot chat.', 'end_conversation': False}", Turn)
    assert parse_answer("{'utterance': 'Morning!', 'End Conversation': false,}", Turn).end_conversation is False


def test_what_was_wrong_is_said_as_what_to_give_instead() -> None:
    """The complaint a retry carries (`answer_again.md`) says what to give, not pydantic's wording
    ("('outline',) List should have at most 8 items after validation, not 9"), which blind32's writer
    expected a small model to answer with the same nine items again."""
    nine = ", ".join(f'"step {i}"' for i in range(9))
    with pytest.raises(AnswerError, match='"outline" has 9 items: give at most 8'):
        parse_answer(f'{{"wake_up_hour": 7, "outline": [{nine}], "blocks": []}}', DailyPlan)
    with pytest.raises(AnswerError, match=r'"importance" is 11: give a number no more than 10'):
        parse_answer('{"importance": 11}', Importance)
    with pytest.raises(AnswerError, match=r'"place" is missing: give it'):
        parse_answer('{"where": 1}', AddressChoice)


def test_a_day_plan_with_nested_blocks_in_another_case_is_read() -> None:
    text = ("Here is Maria's day:\n{'Wake Up Hour': 7, 'outline': ['wake', 'study', 'lunch', 'read'],"
            " 'Blocks': [{'Start': '07:00', 'Duration Minutes': 60, 'Activity': 'wake up', 'Emoji': '',"
            " 'Address': 'home'},]}\nHave a nice day!")
    plan = parse_answer(text, DailyPlan)
    assert plan.wake_up_hour == 7 and plan.blocks[0].duration_minutes == 60


def test_a_chatty_models_answer_costs_one_call_not_its_fallback() -> None:
    """Through the real client in prompt mode (no response_format): the answer in Python's quotes
    with chatter after it is the model's rating, from the first call."""
    with FakeOpenAI() as fake:
        fake.queue({"content": "Sure! {'importance': 8,}\nThat is a big day for her {really}."},
                   purpose="importance")

        async def ask() -> int:
            llm = LLM(base_url=fake.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(),
                      response_mode="prompt", max_attempts=3, backoff_s=0.01)
            try:
                return (await llm.complete(IMPORTANCE, {"npc_name": "Isabella Rodriguez", "persona": "Name: Isabella Rodriguez",
                                                        "memory": "a party"},
                                           npc_id="isabella", fallback=lambda: pytest.fail("fell back"), work=WORK)).importance
            finally:
                await llm.close()

        assert asyncio.run(ask()) == 8
        assert len(fake.chat_requests("importance")) == 1
