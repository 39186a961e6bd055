"""The LLM judge and the ratings it leads to.

For every resident and question the judge sees the resident's identity, the question and the
conditions' answers under letters in a shuffled order (seeded, so a rerun shows the same order),
and ranks them by believability. The paper's human evaluators did the same and the paper rated
the conditions with TrueSkill; here each ranking is split into its pairs (A above B) and each
pair is a two-player TrueSkill game without draws, on TrueSkill's default scale (mu 25,
sigma 25/3, beta sigma/2, tau sigma/100), so the paper's mu values can stand beside ours.
Splitting a ranking into pairs counts it as several games, so sigma shrinks faster than in the
paper's multi-player model; mu is comparable, sigma is optimistic. Mean rank and first-place
rate are given too: they need no model.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Mapping, Sequence
import json
import math
from pathlib import Path
import random
from string import ascii_uppercase
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from brain_server.config import Settings
from brain_server.llm.client import LLM
from brain_server.llm.scheduler import Priority, Work
from brain_server.prompts import Prompt, PromptLibrary

# Park et al. 2023, figure 8: TrueSkill mu of each condition (100 human evaluators' rankings).
PAPER_MU = {"full": 29.89, "no_reflection": 26.88, "no_reflection_planning": 25.64, "human crowdworkers": 22.95,
            "no_memory": 21.21}
MU0 = 25.0
SIGMA0 = MU0 / 3
BETA = SIGMA0 / 2
TAU = SIGMA0 / 100
JUDGE_ID = "judge"  # the npc_id the judge's calls are counted under
# The judge's templates (judge.md, judge_system.md) are the lab's package data: the brain never asks them.
PROMPTS_DIR = Path(__file__).with_name("prompts")


class Judgement(BaseModel):
    """A judge's ranking of anonymized interview answers: the paper's believability ranking, asked of
    an LLM instead of human evaluators."""

    model_config = ConfigDict(extra="forbid")
    reason: str = Field(max_length=600, description="what decided the order, before the order itself")
    ranking: list[str] = Field(max_length=26, description="the answers' letters, most believable first")


def _only_shown_letters(schema: dict[str, Any], variables: Mapping[str, Any]) -> None:
    """A ranking of exactly the letters shown, so constrained decoders cannot invent or drop one."""
    letters = json.loads(f"[{variables['labels']}]")
    schema["properties"]["ranking"].update(
        items={"type": "string", "enum": letters}, minItems=len(letters), maxItems=len(letters))


JUDGE = Prompt("judge", Judgement, refine_schema=_only_shown_letters, max_tokens=400, system="judge_system")


def judge_prompts(override_dir: Path | None = None) -> PromptLibrary:
    """The brain's prompt library with the judge's templates (a user's override folder still first)."""
    return PromptLibrary(override_dir, more_dirs=[PROMPTS_DIR])


def judge_llm(settings: Settings) -> LLM:
    """The same LLM layer the brain uses, on the endpoint the settings name."""
    if not settings.llm_base_url:
        raise ValueError("--judge needs an OpenAI-compatible endpoint (NPC_BRAIN_LLM_BASE_URL): the embedded "
                         "SmolLM2-135M is too small to judge believability")
    return LLM(base_url=settings.llm_base_url, model=settings.llm_model, api_key=settings.llm_api_key.get_secret_value(),
               prompts=judge_prompts(settings.prompts_dir), timeout_s=settings.llm_timeout_s,
               max_attempts=settings.llm_max_attempts, json_schema=settings.llm_json_schema,
               max_concurrency=settings.llm_max_concurrency, extra_body=settings.llm_extra_body,
               extra_tokens=settings.llm_extra_tokens)


async def judge_all(rows: Sequence[dict[str, Any]], identities: dict[str, str], about: dict[str, str], llm: LLM,
                    seed: int = 0) -> list[dict[str, Any]]:
    """One judgement per resident and question that two or more conditions answered."""
    groups: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = defaultdict(dict)
    for r in rows:
        groups[r["npc_id"], r["category"], r["question_id"]][r["condition"]] = r
    asked = [g for g in groups.values() if len(g) >= 2]
    return list(await asyncio.gather(*(_judge(g, identities, about, llm, seed) for g in asked)))


async def _judge(answers: dict[str, dict[str, Any]], identities: dict[str, str], about: dict[str, str], llm: LLM,
                 seed: int) -> dict[str, Any]:
    first = next(iter(answers.values()))
    conditions = sorted(answers)
    random.Random(f"{seed}:{first['npc_id']}:{first['category']}:{first['question_id']}").shuffle(conditions)
    letters = list(ascii_uppercase[: len(conditions)])
    judgement = await llm.complete(JUDGE, {
        "resident_name": first["name"], "identity": identities.get(first["npc_id"], ""),
        "category": first["category"], "category_about": about.get(first["category"], ""),
        "question": first["question"], "count": len(letters), "labels": ", ".join(json.dumps(x) for x in letters),
        "answers": "\n".join(f'{x}. "{answers[c]["answer"]}"' for x, c in zip(letters, conditions, strict=True)),
    }, npc_id=JUDGE_ID, work=Work(Priority.PLAN_NOW, JUDGE_ID), fallback=lambda: Judgement(reason="", ranking=[]))
    by_letter = dict(zip(letters, conditions, strict=True))
    ranks = ranks_from(judgement.ranking, letters)
    return {"npc_id": first["npc_id"], "category": first["category"], "question_id": first["question_id"],
            "question": first["question"], "shown": by_letter, "ranking": judgement.ranking,
            "reason": judgement.reason, "judged": ranks is not None,
            "complete": ranks is not None and sorted(set(judgement.ranking) & set(letters)) == sorted(letters),
            "ranks": {by_letter[x]: r for x, r in ranks.items()} if ranks else {}}


def ranks_from(ranking: Sequence[str], letters: Sequence[str]) -> dict[str, float] | None:
    """Rank 1 = most believable. Repeated or unknown letters are ignored; letters the judge left
    out share the remaining places (their mean). None when nothing usable came back."""
    seen = list(dict.fromkeys(x for x in ranking if x in letters))
    if not seen:
        return None
    ranks: dict[str, float] = {x: float(i) for i, x in enumerate(seen, 1)}
    missing = [x for x in letters if x not in ranks]
    shared = (len(seen) + 1 + len(letters)) / 2
    return ranks | {x: shared for x in missing}


def ratings(judgements: Sequence[dict[str, Any]], conditions: Sequence[str]) -> dict[str, dict[str, float]]:
    """Per condition: judgements it took part in, mean rank, first-place rate, pairwise win rate
    and pairwise TrueSkill (mu, sigma): each pair of a ranking is a game against the ratings from
    before that ranking (mu moves by the sum of its games, sigma shrinks by each game's factor),
    rankings taken in their saved order."""
    skill = {c: (MU0, SIGMA0) for c in conditions}
    ranks: dict[str, list[float]] = {c: [] for c in conditions}
    wins = {c: [0, 0] for c in conditions}  # won, played
    for j in judgements:
        before = dict(skill)  # a ranking's games are played at once, so their order within it cannot matter
        for c, r in j["ranks"].items():
            ranks[c].append(r)
        for a, ra in j["ranks"].items():
            for b, rb in j["ranks"].items():
                if ra < rb:
                    (mw, sw), (ml, sl) = _pairwise(before[a], before[b])
                    skill[a] = (skill[a][0] + mw - before[a][0], skill[a][1] * sw / before[a][1])
                    skill[b] = (skill[b][0] + ml - before[b][0], skill[b][1] * sl / before[b][1])
                    wins[a][0] += 1
                if ra != rb:
                    wins[a][1] += 1
    return {c: {"judged": len(ranks[c]), "mean_rank": sum(ranks[c]) / len(ranks[c]) if ranks[c] else math.nan,
                "first_rate": sum(r == 1 for r in ranks[c]) / len(ranks[c]) if ranks[c] else math.nan,
                "win_rate": wins[c][0] / wins[c][1] if wins[c][1] else math.nan,
                "mu": skill[c][0], "sigma": skill[c][1]} for c in conditions}


def _pairwise(winner: tuple[float, float], loser: tuple[float, float]) -> tuple[tuple[float, float], ...]:
    """One two-player TrueSkill game without draws (Herbrich et al. 2006)."""
    (mw, sw), (ml, sl) = winner, loser
    vw, vl = sw**2 + TAU**2, sl**2 + TAU**2
    c = math.sqrt(2 * BETA**2 + vw + vl)
    t = (mw - ml) / c
    v = _pdf(t) / max(_cdf(t), 1e-12)
    w = v * (v + t)
    return ((mw + vw / c * v, math.sqrt(vw * (1 - vw / c**2 * w))),
            (ml - vl / c * v, math.sqrt(vl * (1 - vl / c**2 * w))))


def _pdf(x: float) -> float:
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def _cdf(x: float) -> float:
    return (1 + math.erf(x / math.sqrt(2))) / 2
