"""The paper's measures read from a run folder: who claims to know the news (a clause that names it
and denies knowing it is a denial; other negations are not), and relationship density from asking
"Do you know <name>?" (mutual, undirected, as the paper's graph)."""

from __future__ import annotations

from datetime import UTC, datetime
import json
from pathlib import Path

import pytest

from npc_lab.sim.data import topic_keywords
from npc_lab.sim.measure import (
    claims_to_know,
    measure,
    names_place_and_hours,
    news_keywords,
    news_names,
    report,
    says_knows,
)

PARTY = ["valentine", "party"]
PARTY_TOPIC = "Valentine's Day party at Hobbs Cafe"
ELECTION_TOPIC = "Sam Moore's candidacy for mayor"

# Answers that fooled the measures, each with the verdict a reader gives it: (question kind, about, answer,
# knows). "name": an answer to "Do you know <about>?"; "party"/"election": to the scenario's news question.
TRICKY = [
    ("name", "Tom Moreno", "Who doesn't know Tom?", True),
    ("name", "Tom Moreno", "I'll see you tomorrow, I have to go.", False),
    ("name", "John Lin", "I often walk in Johnson Park.", False),
    ("name", "Will Parker", "I will ask around.", False),
    ("name", "Tom Moreno", "Tom? Sure, he runs the grocery with his wife.", True),
    ("name", "Tom Moreno", "No, I haven't met Tom Moreno yet.", False),
    ("name", "Tom Moreno", "Tom Moreno? Never heard of him.", False),
    ("name", "Tom Moreno", "Nobody knows Tom better than I do, we've been friends for years.", True),
    ("name", "Tom Moreno", "I don't see Tom much these days, he's busy at the store.", True),
    ("party", "", "I haven't heard of a party, but happy Valentine's Day!", False),
    ("party", "", "No one throws a party like Isabella.", True),
    ("party", "", "Happy Valentine's Day! I'm spending it with my family.", False),
    ("party", "", "I haven't decided whether to go to Isabella's party yet.", True),
    ("party", "", "The party isn't until 5 pm tomorrow.", True),
    ("party", "", "I won't be able to make it to the party, sadly.", True),
    ("party", "", "Who hasn't heard about Isabella's party?", True),
    ("party", "", "Isabella mentioned the parties she's planning at the cafe.", True),
    ("party", "", "I've heard nothing about any parties.", False),
    ("party", "", "There's no party that I know of.", False),
    ("election", "Sam Moore", "Sam Moore, I believe.", True),
    ("election", "Sam Moore", "Yes, Sam Moore is running for mayor.", True),
    ("election", "Sam Moore", "I don't know who is running, I'll ask Samantha tomorrow.", False),
    ("election", "Sam Moore", "No one is running against the mayor that I've heard of.", False),
]


@pytest.mark.parametrize(("kind", "about", "answer", "knows"), TRICKY)
def test_tricky_interview_answers(kind: str, about: str, answer: str, knows: bool) -> None:
    """The interview measures as a reader would judge them: whole-word names, denials about knowing
    only, a rhetorical question as a yes, the date of the party not the party."""
    if kind == "name":
        assert says_knows(answer, about) is knows
        return
    topic = PARTY_TOPIC if kind == "party" else ELECTION_TOPIC
    keywords = news_keywords(topic, topic_keywords(topic, ["Isabella Rodriguez", "Sam Moore", "Hobbs Cafe"]))
    assert claims_to_know(answer, keywords, news_names(topic, about or "Isabella Rodriguez")) is knows


def test_the_news_words_leave_out_its_date_and_name_the_candidate() -> None:
    assert news_keywords(PARTY_TOPIC, PARTY) == ["party"]
    assert news_keywords("Valentine's Day", ["valentine"]) == ["valentine"], "nothing else left: the day is the news"
    assert news_names(ELECTION_TOPIC, "Sam Moore") == ["Sam Moore", "Sam", "Moore"]
    assert news_names(PARTY_TOPIC, "Isabella Rodriguez") == [], "the party's topic does not name its host"


@pytest.mark.parametrize("answer", [
    "I haven't heard about a party.",
    "No, I have not heard anything about a Valentine's Day party.",
    "A Valentine's Day party? I don't know anything about that.",
    "Hmm, a party at the cafe... no idea, sorry.",
    "I'm unaware of any Valentine's celebration.",
    "Nobody told me about a party.",
    "There is no party that I know of.",
])
def test_a_denial_anywhere_in_the_clause_is_not_knowing(answer: str) -> None:
    assert not claims_to_know(answer, PARTY)


@pytest.mark.parametrize("answer", [
    "Yes! Isabella is throwing a Valentine's Day party at Hobbs Cafe tomorrow at 5 pm.",
    "Isabella is throwing a party at the cafe on the 14th, I can't wait.",
    "No, but Maria told me about a Valentine's party at the cafe.",
    "I wasn't invited myself, but I heard Isabella is hosting a party.",
])
def test_knowing_is_said_even_beside_other_negations(answer: str) -> None:
    assert claims_to_know(answer, PARTY)


@pytest.mark.parametrize(("answer", "knows"), [
    ("Yes, I heard about it: I'm going to talked with Maria Lopez about, tomorrow.", True),
    ("Yes, I have.", True),
    ("Of course. It's all anyone talks about.", True),
    ("Oh yes, that's my doing - I'm going to Aldous Penhale has taken an interest plan to hold a… today.", True),
    ("Ah, yes: everyone is talking about it.", True),
    ("Well, no, I haven't.", False),
    ("Oh, I haven't heard anything about that.", False),
    ("Yes, I heard something, but I don't know anything about it.", False),
    ("No, I haven't.", False),
    ("Hmm, I'm not sure what you mean.", False),
    ("Yes, I heard about it. I'm not sure yet whether I'll go.", True),
    ("Yes, I heard about it. I'm not sure if we can make it.", True),
    ("Yes? I'm not sure I've heard of it.", False),
])
def test_a_yes_to_a_question_that_names_the_news_says_it_knows(answer: str, knows: bool) -> None:
    """"Have you heard about a party?" answered "Yes, I heard about it" is a yes, though it names
    no word of the topic; the same answer to a question that names nothing of it is no claim."""
    assert claims_to_know(answer, PARTY, named=True) is knows
    assert not claims_to_know(answer, PARTY), "none of these names the party"


@pytest.mark.parametrize(("answer", "knows"), [
    ("Yes, Klaus is a student I see at the library.", True),
    ("Klaus Mueller? He studies sociology at the college.", True),
    ("Of course, we talk every morning.", True),
    ("I don't know him very well, but Klaus and I chat at the cafe.", True),
    ("No, I do not know Klaus Mueller.", False),
    ("I have seen Klaus around, but I don't really know him.", False),
    ("I'm afraid I don't know who that is.", False),
    ("Never heard of Klaus Mueller.", False),
    ("Not really.", False),
])
def test_do_you_know_answers(answer: str, knows: bool) -> None:
    assert says_knows(answer, "Klaus Mueller") is knows


def _run(tmp_path: Path, interviews: list[dict], memories: dict[str, list[dict]]) -> Path:
    run = tmp_path / "run"
    (run / "memories").mkdir(parents=True)
    names = {"ana": "Ana Berg", "bo": "Bo Chen", "cy": "Cy Diaz"}
    (run / "config.json").write_text(json.dumps({
        "names": names, "identities": {"ana": "Ana Berg runs the bakery with Bo Chen.", "bo": "", "cy": ""},
        "start": "2026-03-01T07:00:00+00:00", "end": "2026-03-01T19:00:00+00:00", "scenario_name": "fair",
        "measure": {"topic": "the spring fair", "question": "Have you heard about a fair?", "keywords": ["fair"],
                    "host": "ana", "place": "Town:Square:square",
                    "window": ["2026-03-01T15:00:00+00:00", "2026-03-01T17:00:00+00:00"]}}))
    for npc_id in names:
        (run / "memories" / f"{npc_id}.json").write_text(json.dumps({"memories": memories.get(npc_id, [])}))
    (run / "interviews.json").write_text(json.dumps(interviews))
    return run


def _memory(text: str, kind: str = "MEMORY_KIND_OBSERVATION", at: str = "2026-03-01T09:00:00+00:00") -> dict:
    return {"description": text, "kind": kind, "created": at}


def test_density_counts_only_the_pairs_who_say_they_know_each_other(tmp_path: Path) -> None:
    """Bo is named in Ana's persona and Cy in Bo's memories, but only what they answer counts."""
    def asked(a: str, b: str, answer: str, when: str) -> dict:
        return {"npc_id": a, "about": b, "asks": "knows", "when": when, "question": "Do you know ...?",
                "answer": answer}

    interviews = [
        asked("ana", "bo", "Yes, Bo Chen bakes with me.", "start"),
        asked("ana", "cy", "No, I do not know Cy Diaz.", "start"),
        asked("bo", "ana", "I have seen Ana Berg around, but I don't know her.", "start"),
        asked("bo", "cy", "No.", "start"),
        asked("cy", "ana", "No, I don't.", "start"),
        asked("cy", "bo", "No, I haven't met Bo Chen.", "start"),
        asked("ana", "bo", "Yes, Bo Chen bakes with me.", "end"),
        asked("ana", "cy", "Yes. Cy Diaz told me about the fair.", "end"),
        asked("bo", "ana", "Of course, Ana Berg is my business partner.", "end"),
        asked("bo", "cy", "Cy Diaz? No, I don't know who that is.", "end"),
        asked("cy", "ana", "Yes, we talked about the fair.", "end"),
        asked("cy", "bo", "No, I do not know Bo Chen.", "end"),
        {"npc_id": "ana", "asks": "news", "question": "Have you heard about a fair?",
         "answer": "Yes, the spring fair is on the square at 3 pm."},
        {"npc_id": "bo", "question": "Have you heard about a fair?", "answer": "I haven't heard about a fair."},
        {"npc_id": "cy", "question": "Have you heard about a fair?", "answer": "Ana said there is a fair at 3 pm."},
    ]
    memories = {"ana": [_memory("Ana Berg wants to hold a spring fair on the square at 3 pm", "MEMORY_KIND_THOUGHT",
                                "2026-03-01T08:00:00+00:00")],
                "bo": [_memory("Cy Diaz is walking"), _memory("Ana Berg mentioned a fair at 3 pm", "MEMORY_KIND_CHAT")],
                "cy": [_memory("conversation with Ana Berg: the fair at 3 pm", "MEMORY_KIND_CHAT")]}
    run = _run(tmp_path, interviews, memories)
    result = measure(run)
    g = result["density"]
    # the paper's graph is undirected: an edge where both say they know each other, over n(n-1)/2 pairs
    assert g["asked"] and g["edges_start"] == [] and g["start"] == 0 and g["one_way_start"] == 1
    assert g["edges_end"] == [["ana", "bo"], ["ana", "cy"]] and g["one_way_end"] == 4
    assert g["end"] == pytest.approx(2 / 3)
    assert g["named_start"] == 0, "Bo is named in Ana's persona, Ana not in Bo's: a bound of mutual knowing is 0"
    assert g["chatted_pairs"] == 1, "Cy talked with Ana; Bo's memory only mentions her"
    assert g["chatted_density"] == pytest.approx(1 / 3)
    assert g["host_chatted"] == ["cy"], "whom the host (Ana) talked with: the first thing news needs"
    d = result["diffusion"]
    assert d["claims_in_interview"] == ["ana", "cy"], "Bo's 'I haven't heard about a fair' is not knowing"
    assert d["knows"] == ["ana", "cy"] and d["hallucinated"] == []
    assert d["seeded"] == ["ana"] and d["start"] == 1
    report(run)
    text = (run / "report.md").read_text()
    assert "0.000 -> 0.667" in text and "0 -> 2 of 3 pairs" in text and "1 -> 4 one-way" in text


def test_diffusion_starts_from_who_knew_before_any_conversation(tmp_path: Path) -> None:
    """Two residents whispered the news before anyone spoke of it: the start is 2, not the host alone;
    a greeting for the day the party is on is not the party."""
    news = [{"npc_id": i, "asks": "news", "question": "Have you heard about a fair?", "answer": a}
            for i, a in (("ana", "Yes, the fair."), ("bo", "Yes, the fair at 3."), ("cy", "Yes, a fair!"))]
    memories = {"ana": [_memory("Ana Berg plans the fair", "MEMORY_KIND_THOUGHT", "2026-03-01T07:00:00+00:00")],
                "bo": [_memory("a poster about the fair", at="2026-03-01T08:00:00+00:00"),
                       _memory("conversation with Cy Diaz:\nBo: the fair!", "MEMORY_KIND_CHAT",
                               "2026-03-01T10:00:00+00:00")],
                "cy": [_memory("conversation with Bo Chen:\nBo: the fair!", "MEMORY_KIND_CHAT",
                               "2026-03-01T10:00:00+00:00")]}
    d = measure(_run(tmp_path, news, memories))["diffusion"]
    assert d["seeded"] == ["ana", "bo"] and d["start"] == 2 and d["start_pct"] == pytest.approx(2 / 3)
    assert d["end"] == 3


def test_news_held_before_the_event_leaves_out_who_only_saw_it_happen(tmp_path: Path) -> None:
    """One who passes the fair while it runs sees "Ana Berg is hosting the fair": a memory that names
    it, and no news that reached them (blind20 in Tarnbeck: 100% held it, nobody asked said so)."""
    memories = {"ana": [_memory("Ana Berg plans the fair", "MEMORY_KIND_THOUGHT", "2026-03-01T07:00:00+00:00")],
                "bo": [_memory("conversation with Ana Berg:\nAna: the fair at 3!", "MEMORY_KIND_CHAT")],
                "cy": [_memory("Ana Berg is hosting the fair", at="2026-03-01T15:30:00+00:00")]}
    d = measure(_run(tmp_path, [], memories))["diffusion"]
    assert d["with_related_memory"] == ["ana", "bo", "cy"] and d["with_related_memory_before"] == ["ana", "bo"]


def test_the_party_measure_does_not_count_the_date(tmp_path: Path) -> None:
    run = _run(tmp_path, [
        {"npc_id": "bo", "asks": "news", "question": "Do you know about a Valentine's Day party?",
         "answer": "Happy Valentine's Day to you too!"},
        {"npc_id": "cy", "asks": "news", "question": "Do you know about a Valentine's Day party?",
         "answer": "Yes, Ana's party at the cafe at 5."}], {
        "bo": [_memory("It is Valentine's Day")],
        "cy": [_memory("conversation with Ana Berg:\nAna: my Valentine's Day party is at 5", "MEMORY_KIND_CHAT")]})
    config = json.loads((run / "config.json").read_text())
    config["measure"].update(topic=PARTY_TOPIC, keywords=PARTY)
    (run / "config.json").write_text(json.dumps(config))
    d = measure(run)["diffusion"]
    assert d["keywords"] == ["party"] and d["with_related_memory"] == ["cy"] and d["claims_in_interview"] == ["cy"]


def test_commitment_fidelity_is_who_was_there_of_those_whose_plan_held_the_event(tmp_path: Path) -> None:
    """Bo and Cy each had the fair in a plan; Bo stood on the square in its window, Cy never came.
    The host's own plan is not counted."""
    plan = "MEMORY_KIND_PLAN"
    run = _run(tmp_path, [], {"ana": [_memory("Ana Berg's plan: hosting the spring fair at 3 pm", plan)],
                              "bo": [_memory("Bo Chen's plan for 15:00-16:00: going to the fair", plan)],
                              "cy": [_memory("Cy Diaz changed plans: the fair at 3 pm", plan)]})
    moves = [("bo", "14:50", "Town:Square:square"), ("bo", "16:10", "Town:Bakery:shop"),
             ("cy", "14:00", "Town:Mill:loft"), ("ana", "14:55", "Town:Square:square")]
    (run / "moves.jsonl").write_text("\n".join(json.dumps({"npc_id": n, "game_time": f"2026-03-01T{t}:00+00:00",
                                                             "arena": a}) for n, t, a in moves))
    c = measure(run)["coordination"]
    assert c["committed"] == ["bo", "cy"] and c["kept"] == ["bo"]
    report(run)
    assert "at the place in its window | 1 of 2 |" in (run / "report.md").read_text()


def test_without_asking_density_is_not_reported_as_measured(tmp_path: Path) -> None:
    run = _run(tmp_path, [], {"bo": [_memory("Ana Berg is baking")]})
    g = measure(run)["density"]
    assert not g["asked"] and g["start"] is None and g["end"] is None
    report(run)
    assert "not asked" in (run / "report.md").read_text()


def test_reflections_a_day_come_from_the_usage_counters(tmp_path: Path) -> None:
    """One `reflection_insights` call is one reflection; a 12-hour run with 3 of Ana's is 6 a day for
    her, and the report shows the mean beside the paper's 2-3 a day."""
    run = _run(tmp_path, [], {"bo": [_memory("Ana Berg is baking")]})
    counters = [{"npc_id": "ana", "purpose": "reflection_insights", "calls": "3"},
                {"npc_id": "ana", "purpose": "reflection_questions", "calls": "4"},
                {"npc_id": "bo", "purpose": "reflection_insights", "calls": "1"}]
    (run / "usage.json").write_text(json.dumps({"counters": counters}))
    r = measure(run)["reflections"]
    assert r["by_npc"] == {"ana": 3, "bo": 1, "cy": 0} and r["days"] == pytest.approx(0.5)
    assert r["per_day_max"] == pytest.approx(6) and r["per_day_mean"] == pytest.approx(8 / 3)
    report(run)
    assert "| reflections per resident per game day | 2.7 (0.0-6.0) over 0.5 days | 2-3 a day" in \
        (run / "report.md").read_text()
    (run / "usage.json").unlink()
    assert measure(run)["reflections"] is None


def test_one_told_of_the_event_by_its_place_and_hours_is_invited(tmp_path: Path) -> None:
    """A model that calls the fair "the event" still tells where and when: Bo, told "the event at the
    Square from 3 pm to 5 pm", is invited and, his plan saying the same, planned; Cy, told of the
    Square at 9 am, and a plan of his own there at that hour, is neither."""
    chat, plan = "MEMORY_KIND_CHAT", "MEMORY_KIND_PLAN"
    run = _run(tmp_path, [], {
        "ana": [_memory("Ana Berg wants to hold a spring fair on the square at 3 pm", "MEMORY_KIND_THOUGHT")],
        "bo": [_memory("conversation with Ana Berg:\nAna Berg: \"I'm holding the event today from 3 pm to 5 pm "
                       "at the Square. Do come!\"", chat),
               _memory("Bo Chen's plan for 15:00-16:00: going to the event at the Square", plan)],
        "cy": [_memory("conversation with Ana Berg:\nAna Berg: \"The Square was busy at 9 am.\"", chat),
               _memory("Cy Diaz's plan for 15:00-16:00: sweeping the Square", plan)]})
    c = measure(run)["coordination"]
    assert c["invited"] == ["bo"] and c["planned"] == ["ana", "bo"] and c["committed"] == ["bo"]
    window = [datetime(2026, 3, 1, 17, tzinfo=UTC), datetime(2026, 3, 1, 19, tzinfo=UTC)]
    assert names_place_and_hours("the event in the mudbank at Egret Spit from 5 pm to 7 pm", "H:Egret Spit:mudbank",
                                 window)
    assert names_place_and_hours("at Egret Spit, 17:30", "H:Egret Spit:mudbank", window)
    assert not names_place_and_hours("at Egret Spit at noon", "H:Egret Spit:mudbank", window)
    assert not names_place_and_hours("the event from 5 pm to 7 pm", "H:Egret Spit:mudbank", window)
