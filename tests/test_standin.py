"""The stand-in model (npc_lab/standin_openai.py): schema-valid answers for every prompt the brain
has, built only from what the prompt shows; a dated line it reads travels into what it writes
(conversation, memo, plan); and it knows no town, person or event of ours."""

from __future__ import annotations

import argparse
from collections import defaultdict
import hashlib
import json
from pathlib import Path
import re
from typing import Any

import pytest

from brain_server.config import Settings
from brain_server.llm.client import LLM, PURPOSE_HEADER
from brain_server.llm.scheduler import Priority, Work
from brain_server.llm.trial import built_in_prompts
from brain_server.prompts import Prompt
from npc_lab import residents as loaders
from npc_lab.evaluate.judge import JUDGE, judge_prompts
from npc_lab.sim import cli as sim_cli
from npc_lab.standin import FROZEN, MOODS, conform, respond
from npc_lab.standin.reading import Prompt as Read
from npc_lab.standin_openai import StandInOpenAI, StandInProcess

WORK = Work(Priority.PLAN_NOW, "test")  # what the completions here are for


LIB = judge_prompts()  # the brain's prompts and the lab's judge
PLACES = ["Brookhaven:Ferry House:kitchen", "Brookhaven:Ferry House:porch", "Brookhaven:Lighthouse:lamp room",
          "Brookhaven:Harbour:boat shed", "Brookhaven:Chapel:nave"]
PERSONA = ("Name: Odile Marsh\nAge: 51\nInnate traits: patient, dry\nIdentity: Odile Marsh keeps the lamp at the "
           "Lighthouse and mends nets for Piet Vos.\nLifestyle: wakes up at 5 am, works in the lamp room until "
           "3 pm, goes to bed at 9 pm\nCurrently: Odile Marsh is repainting the lamp room.")


def _prompts() -> list[Prompt]:
    return [*sorted(built_in_prompts(), key=lambda p: p.purpose), JUDGE]


def _variables(**over: Any) -> dict[str, Any]:
    """Values for every placeholder any prompt has (unknown ones get a line of text)."""
    values: dict[str, Any] = defaultdict(lambda: "nothing in particular")
    values.update({
        "npc_name": "Odile Marsh", "persona": PERSONA, "partner": "Piet Vos", "subject": "Piet Vos",
        "time": "Tuesday March 3, 10:00", "date": "Tuesday March 3, 2026", "place": PLACES[2], "here": "at home",
        "memories": "- Piet Vos is mending a net\n- Odile Marsh heard from Piet Vos: the regatta starts at the "
                    "Harbour on March 3 at 4 pm",
        "memory": "Piet Vos is mending a net", "dialogue": "(nobody has spoken yet)", "relationship": "an old friend",
        "observation": "Piet Vos is mending a net", "current_activity": "polishing the lens",
        "talk_note": "could be approached", "status": "Piet Vos is mending a net",
        "relationship_memories": "- Piet Vos is mending a net",
        "status_memories": "- Odile Marsh heard from Piet Vos: the regatta starts at the Harbour on March 3 at 4 pm",
        "choices": '- "continue": carry on\n- "talk": start a conversation with Piet Vos now\n- "react": change plans',
        "choice_names": '"continue" | "talk" | "react"', "choice_list": ["continue", "talk", "react"], "question": "What are you doing today?", "question_count": 3,
        "activity": "polishing the lens", "start": "10:00", "end": "11:00", "minutes": 60, "min_steps": 4,
        "max_steps": 12, "steps": "4 to 12", "span": "the 60 minutes", "objects": "lens, ladder", "object_list": ["lens", "ladder"],
        "schedule": "- 05:00-06:00 waking up (Brookhaven:Ferry House:kitchen)", "previous_day": "- (none)",
        "places": "\n".join(f"- {p}" for p in PLACES), "place_list": PLACES,
        "place_choices": [("Ferry House", "kitchen", ["stove"]), ("Lighthouse", "lamp room", ["lens", "ladder"])],
        "reason": "Piet Vos asked for help", "done": "- (nothing)", "planned": "- 10:00-11:00 polishing the lens "
        f"({PLACES[2]})", "later": "- (nothing)", "seek": "", "untold": "", "start_times": ["10:00", "10:05", "10:30", "11:00"],
        "days": "2026-03-03 (today), 2026-03-04 (tomorrow), 2026-03-05 (Thursday)",
        "date_list": ["2026-03-03", "2026-03-04", "2026-03-05"],
        "count": 2, "statements": "What does Odile think of Piet?\n1. Piet Vos is mending a net\n2. Piet Vos said "
        "the regatta starts at 4 pm", "statement_count": 2, "insight_count": 3,
        "resident_name": "Odile Marsh", "identity": "keeps the lamp", "category": "plans", "category_about": "plans",
        "answers": 'A. "I will polish the lens"\nB. "No idea"', "labels": '"A", "B"',
    })
    values.update(over)
    return values


def _body(prompt: Prompt, variables: dict[str, Any]) -> dict[str, Any]:
    return {"model": "stand-in", "messages": LIB.render(prompt.purpose, variables, prompt.system),
            "response_format": {"type": "json_schema",
                                "json_schema": {"name": prompt.purpose, "schema": prompt.json_schema(variables)}}}


def _ask(purpose: str, **over: Any) -> Any:
    prompt = next(p for p in _prompts() if p.purpose == purpose)
    answer = respond(_body(prompt, _variables(**over)))
    return prompt.schema.model_validate(answer)


@pytest.mark.parametrize("prompt", _prompts(), ids=lambda p: p.purpose)
def test_every_purpose_gets_a_schema_valid_answer_and_the_same_one_again(prompt: Prompt) -> None:
    body = _body(prompt, _variables())
    answer = respond(body)
    prompt.schema.model_validate(answer)
    assert respond(json.loads(json.dumps(body))) == answer


def test_any_schema_gets_a_valid_answer_from_the_prompt() -> None:
    """A purpose the stand-in has no reading for (or a schema changed under it) still gets a valid answer."""
    from npc_lab.standin import StandIn

    schema = {"type": "object", "required": ["when", "mood", "tags", "ok", "n"], "properties": {
        "when": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
        "mood": {"type": "string", "enum": ["calm", "restless"]},
        "tags": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "string", "maxLength": 12}},
        "ok": {"type": "boolean"}, "n": {"type": "integer", "minimum": 3, "maximum": 5}}}
    reader = StandIn({"messages": [{"role": "user", "content": "It is Tuesday March 3, 10:00.\n- a line"}]})
    out = conform({"when": "tomorrow", "n": 99}, schema, schema, reader)
    assert out["when"] == "" or re.fullmatch(r"\d{4}-\d{2}-\d{2}", out["when"])
    assert out["mood"] in ("calm", "restless") and len(out["tags"]) == 2 and all(len(t) <= 12 for t in out["tags"])
    assert out["n"] == 5 and out["ok"] is False


def test_a_dated_line_travels_from_one_mind_to_the_next_and_into_a_plan() -> None:
    """Odile was told of an event; her line shares it, Piet's reply accepts it, his memo turns it into
    a plan item at its time, his next conversation passes it on, and on the day his plan holds it."""
    told = "- Odile Marsh thinks: the lantern walk leaves from the Chapel on March 5 from 6 pm to 8 pm"
    share = _ask("converse_turn", memories=told, time="Tuesday March 3, 10:00").utterance
    assert "lantern walk" in share and "6 pm" in share and "March 5" in share
    heard = f'Odile Marsh: "{share}"'
    reply = _ask("converse_turn", npc_name="Piet Vos", partner="Odile Marsh", persona="Name: Piet Vos",
                 memories="- Odile Marsh is polishing the lens", dialogue=heard).utterance
    assert "lantern walk" in reply and re.search(r"6 pm", reply)
    both = f'{heard}\nPiet Vos: "{reply}"'
    memo = _ask("conversation_memo", npc_name="Piet Vos", partner="Odile Marsh", persona="Name: Piet Vos",
                dialogue=both, time="Tuesday March 3, 10:20")
    assert "lantern walk" in memo.summary and memo.importance >= 6
    assert (memo.plan_date, memo.plan_start, memo.plan_minutes) == ("2026-03-05", "18:00", 120), "on its day"
    on_the_day = _ask("conversation_memo", npc_name="Piet Vos", partner="Odile Marsh", persona="Name: Piet Vos",
                      dialogue=both, time="Thursday March 5, 09:00", date_list=["2026-03-05", "2026-03-06"])
    assert (on_the_day.plan_date, on_the_day.plan_start) == ("2026-03-05", "18:00")
    onward = _ask("converse_turn", npc_name="Piet Vos", partner="Mina Roe", persona="Name: Piet Vos",
                  memories=f"- {memo.summary}\n- Mina Roe is buying bread", time="Wednesday March 4, 12:00").utterance
    assert "lantern walk" in onward and "6 pm" in onward and "March 5" in onward
    plan = _ask("daily_plan", npc_name="Piet Vos", date="Thursday March 5, 2026", memories=f"- {memo.summary}")
    walk = [b for b in plan.blocks if "lantern walk" in b.activity]
    assert walk and walk[0].start == "18:00" and walk[0].address == "Brookhaven:Chapel:nave"
    before = _ask("daily_plan", npc_name="Piet Vos", date="Wednesday March 4, 2026", memories=f"- {memo.summary}")
    assert not any("lantern" in b.activity for b in before.blocks), "not on another day"
    place = _ask("choose_address", activity=walk[0].activity,
                 place_choices=[("Ferry House", "kitchen", ["stove"]), ("Chapel", "nave", ["pew"])])
    assert place.place.arena == "nave"


def test_interviews_answer_from_the_lines_shown_and_say_no_otherwise() -> None:
    yes = _ask("interview", question="Have you heard about a regatta?").answer
    assert yes.startswith("Yes") and "regatta" in yes and "4 pm" in yes
    no = _ask("interview", question="Do you know about a lantern walk?").answer
    assert no.startswith("No") and "lantern walk" in no
    assert _ask("interview", question="Do you know Piet Vos?").answer.startswith("Yes")
    assert _ask("interview", question="Do you know Mina Roe?").answer == "No, I do not know Mina Roe."


def test_an_intention_is_news_without_a_date() -> None:
    told = "- Tobias Grell has decided to stand for harbour master at the spring vote, and wants to fix the quay."
    line = _ask("converse_turn", memories=told).utterance
    assert "harbour master" in line
    memo = _ask("conversation_memo", npc_name="Piet Vos", partner="Odile Marsh", dialogue=f'Odile Marsh: "{line}"')
    assert "harbour master" in memo.summary and not memo.plan_activity and not memo.plan_date
    assert _ask("interview", memories=f"- {memo.summary}",
                question="Do you know who is standing for harbour master?").answer.startswith("Yes")


def test_dated_news_matters_more_than_routine() -> None:
    news = "Mina Roe wants to lead a lantern walk from the Chapel on March 5 from 6 pm to 8 pm."
    assert _ask("importance", memory=news).importance >= 7
    assert _ask("importance", memory="Piet Vos is sleeping").importance == 1
    assert _ask("importance_batch", memories=f"- Piet Vos is mending a net\n- {news}", count=2).ratings[1] >= 7


def test_it_talks_when_it_has_news_and_only_when_talking_is_possible() -> None:
    assert _ask("react").choice == "talk"
    busy = _ask("react", talk_note="is busy, so talking is not possible now", choice_list=["continue", "react"],
                choices='- "continue": carry on\n- "react": change plans')
    assert busy.choice == "continue"


def test_its_choices_are_drawn_from_its_seed() -> None:
    """Without news, whether it greets someone it sees is a seeded draw: the same seed, the same answer."""
    prompt = next(p for p in _prompts() if p.purpose == "react")
    body = _body(prompt, _variables(relationship_memories="- Piet Vos is mending a net", status_memories="- (none)"))
    choices = {seed: respond(body, seed)["choice"] for seed in range(12)}
    assert choices == {seed: respond(body, seed)["choice"] for seed in range(12)}
    assert set(choices.values()) == {"talk", "continue"}


def test_it_knows_no_town_person_or_event_of_ours() -> None:
    """No stand-in names a resident, place, town or event of ours, the towns nobody tuned on
    (npc_lab/towns) included. The frozen blind one reads "party" as a kind of gathering, as any
    model would (it was written from requests that held the Ville's): it is held to every proper
    name and to the untuned towns' events, and its Ville figures count for less (docs/evaluation.md).
    The second, blind2, keeps words of the captured Ville ("Hobbs", "Valentine") among those that
    start no person's name: it is held to the untuned towns only, and its Ville figures say nothing.
    The later ones, from blind3, saw requests of a test town only (Wyncombe): they are held to
    every name."""
    folder = Path(__file__).parent.parent / "npc_lab"
    ours = [folder / "standin_openai.py", *(p for p in (folder / "standin").glob("*.py") if p.name not in FROZEN)]
    world = loaders.load_town()
    names = {r.name for r in loaders.load_residents()} | {s.name for s in world.sectors} | {world.name}
    names |= {"valentine", "election", "mayor", "candidacy", "ville", "smallville", "hobbs"}
    untuned = {"shortwave", "morse"}
    korrin: set[str] = {"morse"}
    tarnbeck: set[str] = {"shortwave"}
    for town in ("tarnbeck", "korrin"):
        layout = json.loads((folder / "towns" / town / "town_layout.json").read_text())["world"]
        # its places are common nouns (a Clinic, a Mill): its people and events are its own
        seen = {layout["name"], *(json.loads(r.read_text())["name"] for r in (folder / "towns" / town / "residents").glob("*.json"))}
        untuned |= seen
        if town == "korrin":
            korrin |= seen | {w for n in seen for w in n.split()}
        if town == "tarnbeck":
            tarnbeck |= seen | {w for n in seen for w in n.split()}
    names |= untuned
    # blind23 answered interviews captured in Korrin: it is held to every other town, and its Korrin
    # interviews say nothing.
    # blind30, a judge, was written from the Ville's judge requests: it is held to the untuned towns,
    # and its Ville judgements say nothing. blind31 was written from requests captured in Korrin: held
    # to every other town, its Korrin figures say nothing; blind32, from Tarnbeck's, the same of Tarnbeck;
    # blind33, from Korrin's again, of Korrin; blind35, from Tarnbeck's (and Corvin's), of Tarnbeck.
    held = {"blind.py": names, "blind2.py": untuned, "blind23.py": names - korrin, "blind30.py": untuned,
            "blind31.py": names - korrin, "blind32.py": names - tarnbeck, "blind33.py": names - korrin,
            "blind35.py": names - tarnbeck}  # the later ones: every name
    source = "\n".join(p.read_text() for p in ours).lower()
    events = {sc.measure.topic for sc in loaders.load_scenarios().values()} | {"party"}
    found = sorted(n for n in names | events if re.search(rf"\b{re.escape(n.lower())}\b", source))
    for frozen in FROZEN:
        blind = (folder / "standin" / frozen).read_text().lower()
        found += sorted(f"{frozen}: {n}" for n in held.get(frozen, names) if re.search(rf"\b{re.escape(n.lower())}\b", blind))
    assert not found, f"the stand-in names {found}"


def test_the_blind_models_are_as_their_writers_froze_them() -> None:
    """Their hashes are the evidence that no figure was tuned into them (docs/evaluation.md)."""
    folder = Path(__file__).parent.parent / "npc_lab" / "standin"
    assert {name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in FROZEN} == FROZEN
    assert all(FROZEN[name] in (Path(__file__).parent.parent / "docs" / "evaluation.md").read_text() for name in FROZEN)


@pytest.mark.parametrize("mood", [name.removesuffix(".py") for name in FROZEN])
def test_a_blind_model_answers_every_purpose_of_ours_without_raising(mood: str) -> None:
    """Every prompt the brain sends gets text back, parseable or malformed at the model's own rates."""
    for prompt in _prompts():
        body = _body(prompt, _variables())
        texts = [MOODS[mood](body, seed).answer() for seed in range(3)]
        assert all(isinstance(t, str) and t for t in texts), (prompt.purpose, texts)


def test_the_brains_llm_client_talks_to_it_over_http() -> None:
    import asyncio

    from brain_server.prompts.interview import PROMPT

    async def ask(url: str) -> Any:
        llm = LLM(base_url=url, model="stand-in", api_key="k", prompts=LIB, max_attempts=1)
        try:
            return await llm.complete(PROMPT, _variables(question="Have you heard about a regatta?"), npc_id="odile",
                                      fallback=lambda: None, work=WORK)
        finally:
            await llm.close()

    with StandInOpenAI(seed=3) as model:
        answer = asyncio.run(ask(model.base_url))
        assert model.chat_requests("interview") and model.describe().startswith("stand-in model")
    assert answer is not None and "regatta" in answer.answer
    assert Settings  # the brain reads NPC_BRAIN_LLM_BASE_URL the same way for a sim


def test_a_conversation_told_in_one_call_carries_the_news_both_ways() -> None:
    """Out of view a conversation is one call: the news each remembers (and has not told the other)
    is shared and accepted, and each one's memo makes what the other said a plan item on its day."""
    summary = _ask("conversation_summary", npc_name="Odile Marsh", partner="Piet Vos", persona="Name: Odile Marsh",
                   partner_persona="Name: Piet Vos", activity="polishing the lens", partner_activity="mending a net",
                   memories="- Odile Marsh thinks: the lantern walk leaves from the Chapel on March 5 from 6 pm to 8 pm",
                   partner_memories="- Piet Vos decided to sell his boat at the Harbour on March 4 at 9 am",
                   time="Tuesday March 3, 10:00")
    assert summary.talk and summary.lines[0].speaker == "Odile Marsh"
    said = " ".join(f"{line.speaker}: {line.text}" for line in summary.lines)
    assert "lantern walk" in said and "sell his boat" in said
    assert (summary.second.plan_date, summary.second.plan_start, summary.second.plan_minutes) == \
        ("2026-03-05", "18:00", 120), "Piet takes away Odile's news"
    assert "sell his boat" in summary.first.summary and summary.first.plan_date == "2026-03-04"
    told = f'- conversation with Piet Vos:\nOdile Marsh: "{summary.lines[1].text}"'
    again = _ask("conversation_summary", npc_name="Odile Marsh", partner="Piet Vos", persona="Name: Odile Marsh",
                 partner_persona="Name: Piet Vos",
                 memories="- Odile Marsh thinks: the lantern walk leaves from the Chapel on March 5 from 6 pm to 8 pm\n"
                          + told, partner_memories="- Piet Vos is mending a net", time="Tuesday March 3, 12:00")
    assert "lantern walk" not in " ".join(line.text for line in again.lines), "news already told is not retold"


# The hard-to-please stand-in (npc_lab/standin/hard.py).
INVITE = "- Odile Marsh thinks: the lantern walk leaves from the Chapel on March 5 from 6 pm to 8 pm"
TOLD = 'Odile Marsh: "Have you heard? the lantern walk leaves from the Chapel on March 5 from 6 pm to 8 pm."'


def _hard(purpose: str, seed: int = 0, **over: Any) -> Any:
    prompt = next(p for p in _prompts() if p.purpose == purpose)
    return prompt.schema.model_validate(respond(_body(prompt, _variables(**over)), seed, "hard"))


def _piet(seed: int, **over: Any) -> str:
    """Piet's answer to Odile's invitation (with no plan shown unless `over` shows one)."""
    over.setdefault("schedule", "- (nothing planned)")
    return _hard("converse_turn", seed, npc_name="Piet Vos", partner="Odile Marsh", persona="Name: Piet Vos",
                 memories="- Odile Marsh is polishing the lens", dialogue=TOLD, time="Thursday March 5, 10:00",
                 **over).utterance


def test_the_hard_one_declines_a_share_of_invitations_says_so_and_plans_nothing() -> None:
    replies = [_piet(seed) for seed in range(20)]
    declined = [r for r in replies if "can't make it" in r]
    assert 2 <= len(declined) <= 12, replies  # RATES.decline = 0.3, without a schedule shown
    said = f'{TOLD}\nPiet Vos: "{declined[0]}"'
    memo = _hard("conversation_memo", npc_name="Piet Vos", partner="Odile Marsh", persona="Name: Piet Vos",
                 dialogue=said, time="Thursday March 5, 10:20")
    assert "lantern walk" in memo.summary and not memo.plan_activity and not memo.plan_start
    assert all("can't" not in _ask("converse_turn", npc_name="Piet Vos", partner="Odile Marsh", dialogue=TOLD,
                                   time="Thursday March 5, 10:00").utterance for _ in range(2)), "cooperative accepts"


def test_it_accepts_only_when_the_schedule_it_is_shown_is_free() -> None:
    busy = "Piet Vos's plan for today:\n- 17:00-19:00 choir practice (Brookhaven:Chapel:nave)"
    free = "Piet Vos's plan for today:\n- 17:00-19:00 relaxing at home (Brookhaven:Ferry House:porch)"
    assert all("can't make it" in r and "choir practice" in r for r in (_piet(s, situation=busy) for s in range(8)))
    assert not any("can't" in _piet(s, situation=free) for s in range(8))
    dinner = "Piet Vos's plan for today:\n- 18:30-19:30 having dinner (Brookhaven:Ferry House:porch)"
    assert not any("can't" in _piet(s, situation=dinner) for s in range(8)), "a meal at home moves for an evening out"
    date = dinner.replace("having dinner", "having dinner with Ada Kern")
    assert all("can't make it" in _piet(s, situation=date) for s in range(8)), "a dinner with someone does not"


def test_an_answer_to_news_is_not_news_to_answer_again() -> None:
    """The host reads a listener's "count me in, this evening" as an answer, not as an invitation to
    decline (which the listener's memo then echoed as its own "cannot go")."""
    said = f'{TOLD}\nPiet Vos: "Sounds lovely, count me in, this evening!"'
    host = [_hard("converse_turn", seed, npc_name="Odile Marsh", partner="Piet Vos", persona="Name: Odile Marsh",
                  memories=INVITE, dialogue=said, time="Thursday March 5, 10:00").utterance for seed in range(4)]
    assert not any("can't make it" in line or "count me in" in line for line in host), host
    memo = _hard("conversation_memo", npc_name="Piet Vos", partner="Odile Marsh", persona="Name: Piet Vos",
                 dialogue=f'{said}\nOdile Marsh: "{host[0]}"', time="Thursday March 5, 10:20")
    assert "cannot go" not in memo.summary and "lantern walk" in memo.plan_activity, memo


def test_a_memo_books_neither_an_answer_nor_its_own_news() -> None:
    """An answer written with its speaker's name and quotes ("Ryan: \"Sounds lovely ...\"", as models
    half follow a format) is no plan item; what the NPC itself told is not news it heard."""
    answered = 'Piet Vos: "Ryan: "Sounds lovely, count me in, tomorrow evening!""'
    memo = _hard("conversation_memo", npc_name="Odile Marsh", partner="Piet Vos", persona="Name: Odile Marsh",
                 dialogue=answered, time="Tuesday March 3, 10:20")
    assert not memo.plan_activity and not memo.plan_start, memo
    memo = _hard("conversation_memo", npc_name="Odile Marsh", partner="Piet Vos", persona="Name: Odile Marsh",
                 dialogue=TOLD, time="Tuesday March 3, 10:20")
    assert "heard from Piet Vos" not in memo.summary and not memo.plan_activity, memo


def test_out_of_view_a_listener_answers_the_time_it_heard() -> None:
    """Told in one call, Piet answers to what Odile said ("this evening" he takes for 18:00-19:00,
    free before his 19:00 choir), not to the 6-8 pm she remembers and did not say."""
    answered = 0
    for seed in range(30):  # it passes the news on in a fifth of them (RATES.forget)
        told = _hard("conversation_summary", seed, npc_name="Odile Marsh", partner="Piet Vos",
                     persona="Name: Odile Marsh", partner_persona="Name: Piet Vos", memories=INVITE,
                     partner_memories="- Piet Vos is mending a net", time="Thursday March 5, 10:00",
                     partner_schedule="- 19:00-21:00 choir practice (Brookhaven:Chapel:nave)")
        lines = [line.text for line in told.lines]
        if any("lantern walk" in line for line in lines):
            said = next(line for line in lines if "lantern walk" in line)
            assert ("can't make it" in lines[-1]) == ("8 pm" in said), lines
            answered += 1
    assert answered >= 3


def test_it_forgets_to_pass_news_on_to_some() -> None:
    partners = ["Piet Vos", "Mina Roe", "Hana Ostrova", "Ruben Kask", "Lotte Brandt", "Emil Sarre", "Tobias Grell",
                "Ada Kern", "Bo Lund", "Cas Moor"]
    lines = [_hard("converse_turn", partner=p, memories=INVITE, time="Tuesday March 3, 10:00").utterance
             for p in partners]
    told = [line for line in lines if "lantern walk" in line]
    assert 1 <= len(told) <= len(partners) // 2, lines  # RATES.forget = 0.8: passed on to one in five


def test_it_forgets_less_what_more_kinds_of_its_memories_bring_back() -> None:
    """Heard, reflected on and planned for, news is passed on more often than only heard (what the
    paper's ablations take away); and it is not told twice in one conversation, however paraphrased."""
    partners = [f"{first} {last}" for first in ("Piet", "Mina", "Hana", "Ruben", "Lotte") for last in ("Vos", "Kask",
                                                                                                    "Moor", "Lund")]
    insight = "- Odile Marsh learned that the lantern walk leaves from the Chapel on March 5 from 6 pm to 8 pm"
    planned = "- 18:00-20:00 the lantern walk (Brookhaven:Chapel:nave) on Thursday March 5"

    def told(memories: str, schedule: str = "- (nothing planned)") -> int:
        return sum("lantern walk" in _hard("converse_turn", partner=p, memories=memories, schedule=schedule,
                                           time="Tuesday March 3, 10:00").utterance for p in partners)

    once, thrice = told(INVITE), told(f"{INVITE}\n{insight}", planned)
    assert 2 <= once and once + 5 <= thrice, (once, thrice)  # 0.8 against 0.8 ** 3
    said = ('Odile Marsh: "Have you heard? the lantern walk leaves from the Chapel on Thursday evening."\n'
            'Piet Vos: "Sorry, I can\'t make it: I have other plans."')
    again = [_hard("converse_turn", seed, partner="Piet Vos", memories=INVITE, dialogue=said,
                   time="Tuesday March 3, 10:00").utterance for seed in range(4)]
    assert not any("lantern walk" in line for line in again), again


def test_reflecting_on_an_event_to_come_it_may_mean_to_tell_friends_and_plans_to() -> None:
    """The paper's reflection shapes plans: an insight that Odile means to tell friends of the walk
    leads her status, so her day has rounds where people are; the hard one does so for a share of
    events, and without the insight (the reflection ablation) the status only notes the news."""
    statements = ("What is Odile up to?\n1. Odile Marsh heard from Piet Vos: the lantern walk leaves from the "
                  "Chapel on March 5 from 6 pm to 8 pm\n2. Piet Vos is mending a net")
    insights = _ask("reflection_insights", statements=statements).insights
    aim = next(i.insight for i in insights if "means to tell friends" in i.insight)
    assert aim.startswith("Odile Marsh means to tell friends that the lantern walk"), insights
    takes = [any("means to tell" in i.insight for i in _hard("reflection_insights", seed, statements=statements).insights)
             for seed in range(20)]
    assert 3 <= sum(takes) <= 14, takes  # RATES.take_up = 0.4
    heard = "- Odile Marsh heard from Piet Vos: the lantern walk leaves from the Chapel on March 5 from 6 pm to 8 pm"
    status = _ask("revise_currently", memories=f"{heard}\n- {aim}").currently
    assert "means to tell friends" in status, status
    alone = _ask("revise_currently", memories=heard).currently
    assert "lantern walk" in alone and "means to tell" not in alone
    persona = PERSONA.replace("Currently: Odile Marsh is repainting the lamp room.", f"Currently: {status}").replace(
        "works in the lamp room until 3 pm", "works in the lamp room from 8 am to 3 pm")
    day = _ask("daily_plan", persona=persona, date="Wednesday March 4, 2026").blocks
    assert any("asking people" in b.activity for b in day), day


def test_it_paraphrases_times_and_a_listener_takes_the_paraphrase_for_an_hour() -> None:
    lines = [_hard("converse_turn", seed, memories=INVITE, time="Wednesday March 4, 10:00").utterance
             for seed in range(8)]
    vague = [line for line in lines if "lantern walk" in line and "6 pm" not in line]
    assert vague and all(re.search(r"tomorrow (evening|after work)", line) for line in vague), lines
    memo = _hard("conversation_memo", npc_name="Piet Vos", partner="Odile Marsh", persona="Name: Piet Vos",
                 dialogue=f'Odile Marsh: "{vague[0]}"\nPiet Vos: "Sounds lovely, count me in!"',
                 time="Wednesday March 4, 10:20")
    assert memo.plan_date == "2026-03-05" and memo.plan_start in ("17:30", "18:00"), memo


def test_its_dinner_takes_an_hour_and_the_evening_after_it_is_free() -> None:
    """A model plans dinner as an hour, not as the whole evening: invited for after it, it is free."""
    blocks = _hard("daily_plan", npc_name="Piet Vos", date="Thursday March 5, 2026").blocks
    dinner = next(i for i, b in enumerate(blocks) if "dinner" in b.activity)
    assert blocks[dinner].duration_minutes == 60 and "relaxing" in blocks[dinner + 1].activity, blocks
    late = "Piet Vos's plan for today:\n" + "\n".join(
        f"- {b.start}-{blocks[i + 1].start if i + 1 < len(blocks) else '23:59'} {b.activity}" for i, b in enumerate(blocks))
    after = blocks[dinner + 1]
    told = TOLD.replace("from 6 pm to 8 pm", f"from {after.start} to {blocks[dinner + 2].start}")
    answers = [_hard("converse_turn", s, npc_name="Piet Vos", partner="Odile Marsh", persona="Name: Piet Vos",
                     dialogue=told, situation=late, schedule="- (nothing planned)",
                     time="Thursday March 5, 10:00").utterance for s in range(4)]
    assert not any("can't" in a for a in answers), answers


def test_its_plan_items_name_no_place_but_its_addresses_do() -> None:
    plan = _hard("daily_plan", npc_name="Piet Vos", date="Thursday March 5, 2026", memories=INVITE)
    walk = [b for b in plan.blocks if "lantern walk" in b.activity]
    assert walk and walk[0].activity.endswith("lantern walk leaves") and walk[0].address == "Brookhaven:Chapel:nave"
    memo = _hard("conversation_memo", npc_name="Piet Vos", partner="Odile Marsh", persona="Name: Piet Vos",
                 dialogue=f'{TOLD}\nPiet Vos: "Sounds lovely!"', time="Tuesday March 3, 10:20")
    assert "lantern walk" in memo.plan_activity and "Chapel" not in memo.plan_activity
    assert memo.plan_place == "Brookhaven:Chapel:nave", "the memo's place field names it"
    told = [_hard("conversation_summary", seed, npc_name="Odile Marsh", partner="Piet Vos", persona="Name: Odile Marsh",
                  partner_persona="Name: Piet Vos", memories=INVITE, partner_memories="- Piet Vos is mending a net",
                  place_list=[PLACES[2]], partner_place_list=[PLACES[0], PLACES[4]], time="Tuesday March 3, 10:00")
            for seed in range(30)]  # told in a fifth of them (RATES.forget)
    planned = [t.second for t in told if t.second is not None and t.second.plan_activity]
    assert planned and all(m.plan_place == PLACES[4] for m in planned), "out of view, from Piet's own places"


def test_it_sometimes_answers_interviews_vaguely() -> None:
    questions = ["Have you heard about a regatta?", "Do you know Piet Vos?", "Is there a regatta soon?",
                 "What is happening at the Harbour?", "Who mends nets?", "When does the regatta start?"]
    answers = [_hard("interview", seed, question=q).answer for q in questions for seed in range(3)]
    vague = [a for a in answers if a.startswith("Hmm")]
    assert 1 <= len(vague) <= len(answers) // 2, answers  # RATES.vague = 0.2
    assert not any(_ask("interview", question=q).answer.startswith("Hmm") for q in questions)


def test_the_openai_client_gets_the_hard_ones_decline_over_http() -> None:
    from openai import OpenAI

    prompt = next(p for p in _prompts() if p.purpose == "converse_turn")
    busy = "Piet Vos's plan for today:\n- 17:00-19:00 choir practice (Brookhaven:Chapel:nave)"
    body = _body(prompt, _variables(npc_name="Piet Vos", partner="Odile Marsh", persona="Name: Piet Vos",
                                    dialogue=TOLD, time="Thursday March 5, 10:00", situation=busy))
    with StandInOpenAI(seed=1, mood="hard") as model:
        client = OpenAI(base_url=model.base_url, api_key="k", max_retries=0)
        reply = client.chat.completions.create(model="stand-in", messages=body["messages"],
                                               response_format=body["response_format"])
        client.close()
    assert "can't make it" in json.loads(reply.choices[0].message.content or "{}")["utterance"]
    with pytest.raises(ValueError, match="unknown stand-in mood"):
        StandInOpenAI(mood="grumpy")


def test_a_captured_request_is_what_the_model_received(tmp_path: Path) -> None:
    """`--capture` keeps each chat request's body as a model receives it, with its purpose (a blind
    stand-in's writer reads these and nothing else); the endpoint's other routes are not kept."""
    from openai import OpenAI

    prompt = next(p for p in _prompts() if p.purpose == "converse_turn")
    body = _body(prompt, _variables(npc_name="Piet Vos", partner="Odile Marsh", persona="Name: Piet Vos",
                                    dialogue=TOLD, time="Thursday March 5, 10:00"))
    captured = tmp_path / "requests.jsonl"
    with StandInOpenAI(seed=1, mood="blind22", capture=captured) as model:
        client = OpenAI(base_url=model.base_url, api_key="k", max_retries=0,
                        default_headers={PURPOSE_HEADER: "converse_turn"})
        client.models.list()
        client.chat.completions.create(model="stand-in", messages=body["messages"],
                                       response_format=body["response_format"])
        client.close()
    [line] = [json.loads(text) for text in captured.read_text(encoding="utf-8").splitlines()]
    assert line["purpose"] == "converse_turn" and line["body"]["messages"] == body["messages"]
    assert line["body"]["response_format"] == body["response_format"] and line["body"]["model"] == "stand-in"


def test_a_stand_in_process_captures_what_the_matrix_asks_it_to(tmp_path: Path) -> None:
    """`npc-lab sim --matrix --capture` keeps each run's requests for a blind writer: the stand-in's
    own process appends them to the file it is given (`StandInProcess(capture=...)`)."""
    from openai import OpenAI

    from npc_lab.standin_openai import StandInProcess

    captured = tmp_path / "requests.jsonl"
    with StandInProcess(seed=0, mood="cooperative", capture=captured) as model:
        client = OpenAI(base_url=model.base_url, api_key="k", max_retries=0)
        client.chat.completions.create(model="stand-in", messages=[{"role": "user", "content": "Hello?"}])
        client.close()
    [line] = [json.loads(text) for text in captured.read_text(encoding="utf-8").splitlines()]
    assert line["body"]["messages"] == [{"role": "user", "content": "Hello?"}]


def test_it_reads_the_lines_of_speakers_named_in_lowercase_or_by_number() -> None:
    """Lines by "the player" or "Guard #2" were not read as said: the current dialogue lost them, and
    the lines of a conversation remembered after one of them were taken for the current one's."""
    text = ('What Odile Marsh remembers:\n- [Monday March 2] conversation with the player:\nthe player: "Is the '
            'ferry running?"\nOdile Marsh: "Not today."\nSomeone asks Odile Marsh: "Why not?"\n\nThe conversation so '
            'far:\nGuard #2: "Halt! Who goes there?"\nthe player: "Just me."')
    prompt = Read.read({"messages": [{"role": "user", "content": text}]})
    assert prompt.dialogue() == [("Guard #2", "Halt! Who goes there?"), ("the player", "Just me.")]


def test_the_sim_offers_every_mood() -> None:
    """`npc-lab sim --mood` names its choices without loading the stand-ins: a new model must be added there."""
    commands = argparse.ArgumentParser().add_subparsers()
    sim_cli.add_parser(commands)
    sim = commands.choices["sim"]
    mood = next(a for a in sim._actions if a.dest == "mood")
    assert sorted(mood.choices or ()) == sorted(MOODS)


@pytest.mark.slow
def test_a_stand_in_in_its_own_process_answers_a_prompt_the_same_in_every_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """blind15 says what it "often sees" someone do as the most frequent of their activities, a tie
    broken by the order a set of strings iterates in: random per process unless PYTHONHASHSEED is
    set, so two lockstep runs of one commit parted at their first such tie. The lab's stand-in
    process seeds its hashes ("0" unless the caller sets one)."""
    import openai

    prompt = next(p for p in _prompts() if p.purpose == "reflection_insights")
    doings = ["sleeping", "reading a little", "mending a net", "having a cup of tea", "walking to the harbour"]
    statements = "Question: \"What does Odile Marsh know about Piet Vos?\"\n" + "\n".join(
        f"{i}. [Tuesday March 3, 0{i}:00] Piet Vos is {doing}" for i, doing in enumerate(doings, 1))
    body = _body(prompt, _variables(statements=statements, statement_count=len(doings), per_question=5,
                                    insight_count=5))

    def seen() -> str:
        with StandInProcess(seed=0, mood="blind15") as model:
            answer = openai.OpenAI(base_url=model.base_url, api_key="k").chat.completions.create(**body)
        content = answer.choices[0].message.content or ""
        return next(i["insight"] for i in json.loads(content)["insights"] if "often sees" in i["insight"])

    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    assert seen() == seen(), "two runs of the same stand-in, seed and prompt"
    hashed = set()
    for hash_seed in ("1", "2", "3"):
        monkeypatch.setenv("PYTHONHASHSEED", hash_seed)
        hashed.add(seen())
    assert len(hashed) > 1, f"the tie this test relies on no longer follows hash order: {hashed}"


def test_it_tells_the_news_the_situation_states_when_no_memory_holds_it() -> None:
    """A conversation's prompt states the news on a speaker's mind in the lines after its clock, and
    leaves the thoughts that restate it out of the memories: the stand-ins read only the clock line
    and the memories, so in Korrin (the hard one, ten seeds in view) the host told nobody his lesson."""
    situation = ("Odile Marsh started this conversation. Odile Marsh has news on their mind, an event they are "
                 "hosting: Odile Marsh wants to show the lamp room on March 4 from 4 pm to 5 pm (that is tomorrow, "
                 "Wednesday March 4, 16:00-17:00, at Lighthouse (lamp room)).")
    over = {"situation": situation, "memories": "- Piet Vos is mending a net", "status_memories": "- (nothing)"}
    for mood in ("cooperative", "hard"):
        told = [respond(_body(next(p for p in _prompts() if p.purpose == "converse_turn"), _variables(**over)), seed,
                        mood)["utterance"] for seed in range(30)]
        assert any("lamp room" in line for line in told), (mood, told)
    assert not any("lamp room" in respond(_body(next(p for p in _prompts() if p.purpose == "converse_turn"),
                                                 _variables(memories="- Piet Vos is mending a net")), seed, "hard")[
        "utterance"] for seed in range(30))
