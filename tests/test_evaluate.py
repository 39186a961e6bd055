"""Interview evaluation: a short sim run, then `npc-lab eval` over real gRPC brains (one per
condition, each on a copy of the run's store) against the fake endpoint, and the judge's figures."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
import re

import pytest

from npc_lab.cli import main
from npc_lab.evaluate.interview import condition
from npc_lab.evaluate.judge import PAPER_MU, ranks_from, ratings, tied
from npc_lab.evaluate.life import NO_RECORD, record
from npc_lab.evaluate.questions import for_resident, load_templates, someone_known
from npc_lab.fake_openai import FakeOpenAI
from npc_lab.sim.runner import Sim
from tests.sim_town import config, small_town

CONDITIONS = ["full", "no_reflection", "no_memory"]
CATEGORIES = {"self-knowledge", "memory", "plans", "reactions", "reflections"}
# One question of each category, each placeholder among them (issue 40: the file's 25 cost the
# suite 225 interviews and 75 judgements; these 5, 45 and 15). test_conditions_and_questions
# holds the shipped file's five a category.
ASKED = {"intro", "news", "rest_of_day", "upset_other", "opinion_other"}


def _one_of_each(path: Path) -> Path:
    """The shipped questions.toml cut to ASKED, written as a user's own `--questions` file."""
    kept = [q for q in load_templates() if q.question_id in ASKED]
    path.write_text("".join(f"[[category]]\nname = {json.dumps(q.category)}\nabout = {json.dumps(q.about)}\n"
                            f"questions = [{{ id = {json.dumps(q.question_id)}, text = {json.dumps(q.text)} }}]\n\n"
                            for q in kept))
    return path


@pytest.mark.slow
@pytest.mark.timeout(900)  # a hang guard: 55 s alone; on a loaded fresh machine (matplotlib's first import too) past 300
def test_eval_interviews_every_resident_under_each_ablation_and_judges(fake_llm, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # 06:00-08:00: everyone wakes and plans the day, and Isabella is told of the party at 07:00,
    # which is all the checks below ask of the run (issue 40: it ran four hours).
    town, residents, scenario = small_town(hours=2)
    run = tmp_path / "run"
    # Lockstep: the plans asked about below must be made by the end, whatever the machine's load.
    asyncio.run(Sim(town, residents, scenario, config(run, fake_llm.base_url, tick_s=60,
                                                      settings={"background_thinking": False})).run())
    store_files = sorted(p.relative_to(run) for p in (run / "brain-data").rglob("*"))
    monkeypatch.setenv("NPC_BRAIN_LLM_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("NPC_BRAIN_LLM_MODEL", "fake-model")

    asked = _one_of_each(tmp_path / "questions.toml")
    with FakeOpenAI() as judge:  # a judge of its own (a larger model judging a small one)
        main(["eval", str(run), "--conditions", ",".join(CONDITIONS), "--judge", "--questions", str(asked),
              "--judge-base-url", judge.base_url, "--judge-model", "judge-model"])
        judge_requests = judge.chat_requests("judge")

    out = run / "eval"
    rows = [json.loads(x) for x in (out / "answers.jsonl").read_text().splitlines()]
    questions = load_templates(asked)
    assert {q.category for q in questions} == CATEGORIES and {q.question_id for q in questions} == ASKED
    expected = {(r.npc_id, q.category, q.question_id, c) for r in residents for q in questions for c in CONDITIONS}
    assert {(r["npc_id"], r["category"], r["question_id"], r["condition"]) for r in rows} == expected
    assert len(rows) == len(expected) and all(r["answer"] and not r["fallback"] for r in rows)
    assert not any("{" in r["question"] for r in rows)  # every placeholder filled

    # What the traces (GetTrace) say each condition retrieved: the ablations really bite.
    def retrieved(cond: str, kind: str, npc_id: str | None = None) -> int:
        return sum(r["retrieved"][kind] for r in rows if r["condition"] == cond and npc_id in (None, r["npc_id"]))

    assert retrieved("full", "thought", "isabella_rodriguez") > 0  # the whispered party is a thought
    assert retrieved("full", "plan") > 0 and retrieved("full", "observation") > 0
    # no_reflection takes the reflections only: the whisper (a thought, no reflection) stays within reach
    assert sum(r["reflections"] for r in rows if r["condition"] == "no_reflection") == 0
    assert retrieved("no_reflection", "thought", "isabella_rodriguez") > 0
    assert retrieved("no_reflection", "plan") >= retrieved("full", "plan")
    assert all(sum(r["retrieved"].values()) == 0 for r in rows if r["condition"] == "no_memory")
    # The conditions ran on copies: the run's store is as the sim left it and no copy is left over.
    assert sorted(p.relative_to(run) for p in (run / "brain-data").rglob("*")) == store_files
    assert not list(out.glob("brain-data-*"))

    md = (out / "answers.md").read_text()
    assert md.count("| full |") == md.count("| no_memory |") == len(residents) * len(questions)

    # The judge: one ranking per resident and question, letters mapped back to conditions.
    judgements = [json.loads(x) for x in (out / "judgements.jsonl").read_text().splitlines()]
    assert len(judgements) == len(residents) * len(questions)
    for j in judgements:
        assert sorted(j["shown"].values()) == sorted(CONDITIONS)
        if j["judged"]:  # the first ranked is first, or shares first place with answers saying the same
            assert j["ranks"][j["shown"][j["ranking"][0]]] == min(j["ranks"].values())
    assert len({tuple(j["shown"].values()) for j in judgements}) > 1  # the order is shuffled
    # The judge knows each resident's days, as the paper's evaluators who watched them did.
    asked_about = {r["body"]["messages"][1]["content"] for r in judge_requests if "Isabella" in r["body"]["messages"][1]["content"]}
    assert asked_about and all("This is what they did and thought" in a and ": did: " in a for a in asked_about)
    assert all(re.search(r"On \w+day \w+ \d+, \d\d:\d\d, the resident was asked", a) for a in asked_about)
    [system] = {r["body"]["messages"][0]["content"] for r in judge_requests}
    assert system.startswith("You judge") and "inner mind" not in system  # a judge, not an NPC
    assert {r["body"]["model"] for r in judge_requests} == {"judge-model"} and not fake_llm.chat_requests("judge")
    summary = json.loads((out / "summary.json").read_text())
    judged = summary["judge"]
    assert judged["calls"] == len(judgements) and judged["judged"] > 0 and judged["model"] == "judge-model"
    report = (out / "report.md").read_text()
    for c in CONDITIONS:
        r = judged["ratings"][c]
        assert r["judged"] == judged["judged"]
        assert f"| {c} | {r['judged']} | {r['mean_rank']:.2f} |" in report
        assert f"{r['mu']:.2f} ({r['sigma']:.2f}) | {PAPER_MU[c]} |" in report
    assert "| human crowdworkers (paper only) |" in report
    # Beside the ratings, the run's emergent behaviour as the sim asked it (diffusion, density, coordination).
    assert "## The run's emergent behaviour" in report and "| network density (asked) | 0.000 -> " in report
    assert summary["emergent"]["density"]["asked"]
    assert (out / "ratings.png").read_bytes().startswith(b"\x89PNG")

    # Judged again by another judge: the same answers, nobody interviewed, the judge's files replaced;
    # the brain's store is not needed (a copy of a run without it is judged again as well).
    (run / "brain-data").rename(tmp_path / "store-elsewhere")
    answers, logs = (out / "answers.jsonl").read_text(), sorted(out.glob("brain-*.log"))
    stamps, interviews = [p.stat().st_mtime_ns for p in logs], len(fake_llm.chat_requests("interview"))
    with FakeOpenAI() as second:
        main(["eval", str(run), "--rejudge", "--judge", "--judge-base-url", second.base_url, "--judge-model", "judge-2"])
        assert len(second.chat_requests("judge")) == len(judgements)
    assert len(fake_llm.chat_requests("interview")) == interviews  # no interview asked again
    assert (out / "answers.jsonl").read_text() == answers and [p.stat().st_mtime_ns for p in logs] == stamps
    again = json.loads((out / "summary.json").read_text())
    assert again["judge"]["model"] == "judge-2" and again["conditions"] == summary["conditions"]
    assert list(again["judge"]["ratings"]) == CONDITIONS


def test_a_condition_the_judge_always_prefers_rates_highest() -> None:
    judgements = [{"ranks": {"full": 1.0, "no_reflection": 2.0, "no_memory": 3.0}}] * 10
    rated = ratings(judgements, ["full", "no_reflection", "no_memory"])
    assert rated["full"]["mu"] > rated["no_reflection"]["mu"] > rated["no_memory"]["mu"]
    assert (rated["full"]["mean_rank"], rated["full"]["first_rate"], rated["full"]["win_rate"]) == (1, 1, 1)
    assert rated["no_memory"]["win_rate"] == 0 and rated["no_reflection"]["win_rate"] == 0.5
    assert all(r["sigma"] < 25 / 3 for r in rated.values())


def test_ratings_do_not_depend_on_the_order_of_the_judgements() -> None:
    # 30 rankings put no_memory first, then 40 put full first: full is ranked higher more often,
    # so it rates higher, and the same judgements read the other way round rate the same.
    judgements = ([{"ranks": {"full": 2.0, "no_memory": 1.0}}] * 30 + [{"ranks": {"full": 1.0, "no_memory": 2.0}}] * 40)
    forward = ratings(judgements, ["full", "no_memory"])
    backward = ratings(judgements[::-1], ["full", "no_memory"])
    assert forward["full"]["mu"] > forward["no_memory"]["mu"]
    for c in ("full", "no_memory"):
        assert forward[c]["mu"] == pytest.approx(backward[c]["mu"]) and forward[c]["sigma"] == pytest.approx(
            backward[c]["sigma"])
    # The games fix the difference; the two mu sit either side of the prior's 25.
    assert forward["full"]["mu"] - 25 == pytest.approx(25 - forward["no_memory"]["mu"])


def test_the_judge_reads_a_residents_days_as_a_timeline() -> None:
    def memory(at: str, kind: str, subject: str, description: str) -> dict[str, str]:
        return {"created": f"2026-02-13T{at}:00Z", "kind": f"MEMORY_KIND_{kind}", "subject": subject,
                "description": description}

    memories = [
        memory("09:15", "OBSERVATION", "Ada Voss", "Ada Voss is mending nets (coiling rope)"),
        memory("09:00", "OBSERVATION", "Ada Voss", "Ada Voss is mending nets (untangling)"),
        memory("09:20", "THOUGHT", "Ada Voss", "Ada Voss takes pride in her nets."),
        memory("09:30", "OBSERVATION", "Ada Voss", "Ada Voss is mending nets (tying knots)"),
        memory("09:40", "OBSERVATION", "Ada Voss", "Ada Voss is chatting with Bo Lind"),
        memory("09:45", "OBSERVATION", "Ada Voss", "Ada Voss is mending nets (tying knots)"),
        memory("09:50", "OBSERVATION", "net rack", "net rack is in use"),
        memory("09:55", "OBSERVATION", "Bo Lind", "Bo Lind is mending nets (watching)"),
        memory("10:00", "PLAN", "Ada Voss", "Ada Voss's plan for 10:00-11:00: selling fish"),
    ]
    assert record(memories, "Ada Voss").splitlines() == [
        "- Friday 09:00-09:30: did: mending nets",
        "- Friday 09:20: thought: Ada Voss takes pride in her nets.",
        "- Friday 09:40: did: chatting with Bo Lind",
        "- Friday 09:45: did: mending nets",
    ]
    assert record(memories, "Ada Voss", lines=2).splitlines()[0] == "- Friday 09:40: did: chatting with Bo Lind"
    assert record([], "Ada Voss") == NO_RECORD


def test_identical_answers_share_their_places() -> None:
    said = {"A": "I keep the cafe.", "B": "I  keep the Cafe.", "C": "I paint.", "D": "I keep the cafe."}
    assert tied({"A": 1, "B": 2, "C": 3, "D": 4}, said) == {"A": 7 / 3, "B": 7 / 3, "D": 7 / 3, "C": 3}
    assert tied(None, said) is None
    # Tied conditions play no game against each other: two always identical rate alike.
    judgements = [{"ranks": tied({"A": 1, "B": 2, "C": 3}, {"A": "x", "B": "x", "C": "y"})}] * 10
    rated = ratings([{"ranks": {c: j["ranks"][x] for c, x in zip(("full", "no_reflection", "no_memory"), "ABC",
                                                                  strict=True)}} for j in judgements],
                    ["full", "no_reflection", "no_memory"])
    assert rated["full"]["mu"] == pytest.approx(rated["no_reflection"]["mu"])
    assert rated["full"]["mu"] > rated["no_memory"]["mu"]


def test_rankings_are_read_tolerantly() -> None:
    assert ranks_from(["B", "A", "C"], "ABC") == {"B": 1, "A": 2, "C": 3}
    # A repeated letter counts once; letters left out share the remaining places.
    assert ranks_from(["C", "C", "Z"], "ABC") == {"C": 1, "A": 2.5, "B": 2.5}
    assert ranks_from(["Z"], "ABC") is None


def test_conditions_and_questions() -> None:
    assert condition("full").ablate == frozenset()
    assert condition("no_reflection_planning").ablate == {"reflection", "planning"}
    assert condition("no_memory").ablate == {"observation", "reflection", "planning"}
    with pytest.raises(ValueError):
        condition("no_sleep")
    names = {"a": "Ann Lee", "b": "Bob Ray", "c": "Cy Dee"}
    memories = [{"description": "Cy Dee is reading"}, {"description": "talked with Cy Dee"}]
    assert someone_known("a", names, {"a": "Ann Lee works with Bob Ray."}, memories) == "Cy Dee"
    assert someone_known("a", names, {"a": "Ann Lee works with Bob Ray."}, []) == "Bob Ray"
    assert someone_known("c", names, {}, []) == "Ann Lee"
    # Asked "Do you know ...?" in the run, Ann said she knows only Bob: Cy, named more often, is not chosen.
    assert someone_known("a", names, {}, memories, said_known={"b"}) == "Bob Ray"
    filled = for_resident(load_templates(), name="Ann Lee", other="Cy Dee", event="a picnic", event_question="")
    assert sum("Cy Dee" in q.text for q in filled) >= 3 and any("a picnic" in q.text for q in filled)
    per_category = {c: sum(q.category == c for q in filled) for c in CATEGORIES}
    assert all(n >= 5 for n in per_category.values())
    # An event is named as a sentence names it, never shown as a slot ("called off: auction at ...").
    called_off = {e: next(q.text for q in for_resident(load_templates(), name="Ann Lee", other="Cy Dee", event=e,
                                                         event_question="") if q.question_id == "called_off")
                  for e in ("a picnic", "auction at the Old Lifeboat House", "")}
    assert called_off["a picnic"].startswith("Suppose you heard that a picnic had been called off.")
    assert "that the auction at the Old Lifeboat House had been called off." in called_off[
        "auction at the Old Lifeboat House"]
    assert "that the next gathering in town had been called off." in called_off[""]
    assert not any(": " in text for text in called_off.values())


def test_eval_says_what_is_wrong(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NPC_BRAIN_LLM_BASE_URL", raising=False)
    with pytest.raises(SystemExit, match="not a run folder"):
        main(["eval", str(tmp_path)])
    with pytest.raises(SystemExit, match="needs an OpenAI-compatible endpoint"):
        main(["eval", str(tmp_path), "--judge"])
    with pytest.raises(SystemExit, match="add --judge"):
        main(["eval", str(tmp_path), "--rejudge"])
    with pytest.raises(SystemExit, match="unknown condition 'no_sleep'"):
        main(["eval", str(tmp_path), "--conditions", "full,no_sleep"])


def _judged_run(folder: Path, mu: dict[str, float]) -> Path:
    """A run folder holding what a judged `npc-lab eval` leaves: summary.json with its ratings."""
    (folder / "eval").mkdir(parents=True)
    rated = {c: {"judged": 40, "mean_rank": 2.0 - (m - 25) / 10, "first_rate": 0.25, "win_rate": 0.5, "mu": m,
                 "sigma": 1.0} for c, m in mu.items()}
    (folder / "eval" / "summary.json").write_text(json.dumps({"judge": {"model": "judge-model", "ratings": rated}}))
    return folder


def test_runs_combine_into_intervals_over_the_seeds(tmp_path: Path) -> None:
    # Full wins every seed by a margin the seeds do not blur; no_reflection only by as much as they vary.
    runs = [_judged_run(tmp_path / f"seed{i}", {"full": 30 + d, "no_reflection": 29 + 2 * d, "no_memory": 20 + d})
            for i, d in enumerate([0.0, 1.0, -1.0, 0.5, -0.5])]
    out = tmp_path / "across"
    main(["eval", *map(str, runs), "--combine", "--across-out", str(out)])
    combined = json.loads((out / "across.json").read_text())
    assert combined["runs"] == 5 and combined["judges"] == ["judge-model"]
    full = combined["conditions"]["full"]["mu"]
    assert full["each"] == [30.0, 31.0, 29.0, 30.5, 29.5] and full["median"] == 30.0 and full["mean"] == 30.0
    assert full["interval"][0] < 30 < full["interval"][1] and (full["min"], full["max"]) == (29.0, 31.0)
    assert combined["baseline_above"] == {"no_reflection": False, "no_memory": True}
    md = (out / "across.md").read_text()
    assert "| no_memory " in md and "| yes " in md and "| no (intervals overlap) " in md


def test_combined_runs_say_where_in_the_interview_full_ranks_ahead(tmp_path: Path) -> None:
    """Over the runs' judged rankings, each question category's mean rank per condition with its
    interval, and the conditions full ranks wholly ahead of there (plans: no planning; memory: no
    memory), in the summary's order of conditions; a run without rankings adds none."""
    runs = []
    for seed, d in enumerate([0.0, 0.1, -0.1, 0.05, -0.05]):
        run = _judged_run(tmp_path / f"seed{seed}", {"full": 30, "no_planning": 29, "no_memory": 25})
        ranked = {"plans": {"full": 1 + d, "no_planning": 3 - d, "no_memory": 2},
                  "memory": {"full": 1.5 + d, "no_planning": 1.5 - d, "no_memory": 3}}
        lines = [{"category": c, "judged": True, "ranks": ranks} for c, ranks in ranked.items() for _ in range(3)]
        lines.append({"category": "plans", "judged": False, "ranks": {}})
        (run / "eval" / "judgements.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n")
        runs.append(run)
    runs.append(_judged_run(tmp_path / "unranked", {"full": 30, "no_planning": 29, "no_memory": 25}))
    out = tmp_path / "across"
    main(["eval", *map(str, runs), "--combine", "--across-out", str(out)])
    categories = json.loads((out / "across.json").read_text())["by_category"]
    assert categories["plans"]["baseline_ahead_of"] == ["no_planning", "no_memory"]
    assert categories["memory"]["baseline_ahead_of"] == ["no_memory"]
    assert categories["plans"]["conditions"]["full"]["each"] == pytest.approx([1.0, 1.1, 0.9, 1.05, 0.95])
    header = next(line for line in (out / "across.md").read_text().splitlines() if line.startswith("| category"))
    assert [cell.strip() for cell in header.strip("|").split("|")][:4] == ["category", "full", "no_planning",
                                                                         "no_memory"]


def test_combining_says_what_is_missing(tmp_path: Path) -> None:
    judged = _judged_run(tmp_path / "a", {"full": 30, "no_memory": 20})
    with pytest.raises(SystemExit, match="needs two or more runs"):
        main(["eval", str(judged), "--combine"])
    with pytest.raises(SystemExit, match=r"b/eval/summary.json does not exist: run `npc-lab eval"):
        main(["eval", str(judged), str(tmp_path / "b"), "--combine"])
    other = _judged_run(tmp_path / "c", {"full": 30, "no_reflection": 20})
    with pytest.raises(SystemExit, match="evaluate every run under the same conditions"):
        main(["eval", str(judged), str(other), "--combine"])
    with pytest.raises(SystemExit, match="--out is one run's folder"):
        main(["eval", str(judged), str(other), "--out", str(tmp_path / "x")])
