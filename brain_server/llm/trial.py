"""`npc-brain check`'s short probe run: each built-in purpose's prompt asked of the configured model
TRIAL_ROUNDS times through the brain's own client (its response mode, validation and retries),
filled with one sample moment of a baker's day (`SAMPLE`), and how many answers fell back.

A stand-in for a day in a town, not a measure of one: it says whether the model answers each
schema at all before a town depends on it. A purpose whose sample no longer fills its template
(a prompt override with placeholders of its own) is left out and named, not failed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
import importlib
import pkgutil
from typing import Any

from pydantic import BaseModel

from brain_server import prompts
from brain_server.llm.client import LLM
from brain_server.llm.scheduler import Priority, Work
from brain_server.prompts import Prompt

TRIAL_ROUNDS = 2
TRIAL_NPC = "npc-brain-check"
_NAME, _PARTNER, _PLACE = "Ada Lane", "Tom Reed", "Brook:Ada's Bakery:bakery"
_MEMORIES = (f"- {_NAME} baked rye bread at 06:00 this morning\n- {_PARTNER} bought two loaves yesterday\n"
             f"- {_NAME} wants to hold a harvest supper at the bakery on Saturday at 18:00")
_SCHEDULE = "- 06:00-12:00 baking bread at the bakery\n- 12:00-13:00 lunch at home\n- 13:00-17:00 selling bread"
SAMPLE: dict[str, Any] = {
    "npc_name": _NAME, "partner": _PARTNER, "persona": f"Name: {_NAME} (age 41). Innate traits: warm, early riser. "
    f"{_NAME} runs the bakery in Brook and knows everyone who buys bread.",
    "partner_persona": f"Name: {_PARTNER} (age 35). {_PARTNER} is a carpenter who lives next to the bakery.",
    "time": "Friday February 13, 10:00", "date": "Friday February 13", "start": "10:00", "end": "11:00",
    "minutes": 60, "place": _PLACE, "here": "in the bakery at Ada's Bakery", "activity": "baking bread",
    "current_activity": "baking bread", "partner_activity": "buying bread", "memories": _MEMORIES,
    "partner_memories": f"- {_PARTNER} needs bread for his workshop", "relationship_memories": _MEMORIES,
    "status_memories": f"- {_PARTNER} is buying bread", "memory": f"{_PARTNER} is buying bread",
    "observation": f"{_PARTNER} is buying bread", "subject": _PARTNER, "status": f"{_PARTNER} is buying bread",
    "schedule": _SCHEDULE, "partner_schedule": "- 09:00-17:00 working at the workshop", "previous_day": _SCHEDULE,
    "places": f"- {_PLACE}\n- Brook:Tom's Workshop:workshop", "partner_places": "- Brook:Tom's Workshop:workshop",
    "place_list": [_PLACE, "Brook:Tom's Workshop:workshop"], "home": f" ({_PLACE})", "partner_place_list": ["Brook:Tom's Workshop:workshop"],
    "place_choices": [("Ada's Bakery", "bakery", ["oven", "counter"]), ("Tom's Workshop", "workshop", ["bench"])],
    "choices": '- "continue": carry on.\n- "talk": start a conversation.', "choice_names": '"continue" | "talk"',
    "choice_list": ["continue", "talk"], "dialogue": f'{_PARTNER}: "Morning, Ada! Two loaves, please."',
    "situation": f"{_PARTNER} came in to buy bread.", "relationship": f"{_PARTNER} is a neighbour and a regular.",
    "days": "- today (2026-02-13)\n- tomorrow (2026-02-14)", "date_list": ["2026-02-13", "2026-02-14"],
    "question": "What are you up to this weekend?", "reason": f"{_PARTNER} asked for help", "done": "", "later": "",
    "planned": "- 10:00-11:00 baking bread", "start_times": ["10:00", "10:30"], "min_steps": 2, "max_steps": 4, "steps": "2 to 4", "span": "the 60 minutes",
    "objects": "- oven\n- counter", "object_list": ["oven", "counter"], "verbs": "", "verb_fields": "",
    "verb_list": [], "statements": f"1. {_NAME} baked rye bread\n2. {_PARTNER} bought two loaves\n3. {_NAME} "
    "plans a harvest supper", "statement_count": 3, "insight_count": 2, "per_question": "", "question_count": 2,
    "count": 3, "others": _PARTNER, "other_names": [_PARTNER], "name_list": [_NAME, _PARTNER], "people": _PARTNER,
    "news": f"{_NAME} has news on their mind: a harvest supper at the bakery on Saturday at 18:00.",
    "partner_news": "", "seek": "", "untold": "",
    "telling": f" {_NAME} brings the harvest supper up at the first natural opening and asks {_PARTNER} to come.",
    "answering": "",
    "hosting": f"\n\nEvents {_NAME} is holding (their own, not news {_NAME} heard from anyone):\n- a harvest supper "
               "at the bakery on Saturday at 18:00", "opener": _NAME, "max_lines": 4, "heard": "Two loaves, please.", "options": "1. Here you are!\n2. Good morning!",
}


class _Unanswered(BaseModel):
    """The fallback of a trial call: only counted, never read."""


def built_in_prompts() -> list[Prompt[Any]]:
    """Every built-in purpose's prompt (each module of brain_server.prompts with a PROMPT)."""
    found = (importlib.import_module(f"brain_server.prompts.{m.name}") for m in pkgutil.iter_modules(prompts.__path__))
    return [module.PROMPT for module in found if isinstance(getattr(module, "PROMPT", None), Prompt)]


async def trial(llm: LLM, purposes: Sequence[Prompt[Any]], rounds: int = TRIAL_ROUNDS) -> tuple[dict[str, tuple[int, int]],
                                                                                              list[str]]:
    """{purpose: (fallbacks, answers)} of `rounds` calls each, and the purposes left out."""
    asked: list[Prompt[Any]] = []
    left_out: list[str] = []
    for prompt in purposes:
        try:
            llm.prompts.render(prompt.purpose, SAMPLE, prompt.system)
            prompt.json_schema(SAMPLE)
            asked.append(prompt)
        except (KeyError, ValueError, TypeError):
            left_out.append(prompt.purpose)
    # All at once: the client's scheduler holds them to NPC_BRAIN_LLM_MAX_CONCURRENCY, as serve would.
    work = Work(Priority.PLAN_NOW, TRIAL_NPC)  # as a town's plans would wait
    await asyncio.gather(*(llm.complete(prompt, dict(SAMPLE), npc_id=TRIAL_NPC, work=work, fallback=_Unanswered)
                           for prompt in asked for _ in range(rounds)))
    return {p.purpose: (llm.usage.counter(TRIAL_NPC, p.purpose).fallbacks, rounds) for p in asked}, left_out
