"""The paper's measures read from a run folder: who claims to know the news (a negation anywhere in
the clause that names it denies it), and relationship density from asking "Do you know <name>?"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from npc_lab.sim.measure import claims_to_know, measure, report, says_knows

PARTY = ["valentine", "party"]


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
    memories = {"ana": [_memory("Ana Berg wants to hold a spring fair on the square at 3 pm", "MEMORY_KIND_THOUGHT")],
                "bo": [_memory("Cy Diaz is walking"), _memory("Ana Berg mentioned a fair at 3 pm", "MEMORY_KIND_CHAT")],
                "cy": [_memory("conversation with Ana Berg: the fair at 3 pm", "MEMORY_KIND_CHAT")]}
    run = _run(tmp_path, interviews, memories)
    result = measure(run)
    g = result["density"]
    assert g["asked"] and g["edges_start"] == [["ana", "bo"]] and g["start"] == pytest.approx(1 / 6)
    assert g["edges_end"] == [["ana", "bo"], ["ana", "cy"], ["bo", "ana"], ["cy", "ana"]]
    assert g["end"] == pytest.approx(4 / 6)
    assert g["named_start"] == pytest.approx(1 / 6)  # Bo in Ana's persona: a bound, not the measure
    d = result["diffusion"]
    assert d["claims_in_interview"] == ["ana", "cy"], "Bo's 'I haven't heard about a fair' is not knowing"
    assert d["knows"] == ["ana", "cy"] and d["hallucinated"] == []
    report(run)
    text = (run / "report.md").read_text()
    assert "0.167 -> 0.667" in text and "1 -> 4 of 6 ordered pairs" in text


def test_without_asking_density_is_not_reported_as_measured(tmp_path: Path) -> None:
    run = _run(tmp_path, [], {"bo": [_memory("Ana Berg is baking")]})
    g = measure(run)["density"]
    assert not g["asked"] and g["start"] is None and g["end"] is None
    report(run)
    assert "not asked" in (run / "report.md").read_text()
