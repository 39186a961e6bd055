"""The LLM judge and the ratings it leads to.

For every resident and question the judge sees the resident's identity, a record of their latest
hours (`life.py`), when they were asked, the question and the conditions' answers under letters in
a shuffled order (seeded, so a rerun shows the same order), and ranks them by believability. The paper's human evaluators did the same and the paper rated
the conditions with TrueSkill; here each ranking is split into its pairs (A above B), each pair a
game without draws in TrueSkill's model on its default scale (prior mu 25, sigma 25/3; performance
noise beta sigma/2), so the paper's mu values can stand beside ours. The ratings are that model's
most probable skills given all games at once, not TrueSkill's online updates: those settle after
the first few dozen games, so the same judgements read in another order gave mu values apart by
more than the conditions were. Splitting a ranking into pairs counts it as several games, so
sigma is optimistic; mean rank and first-place rate are given too: they need no model.
"""

from __future__ import annotations

import asyncio
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime
import json
import math
from pathlib import Path
import random
from string import ascii_uppercase
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from brain_server.config import Settings
from brain_server.llm.client import LLM
from brain_server.llm.scheduler import Priority, Work
from brain_server.prompts import Prompt, PromptLibrary
from npc_lab.evaluate.life import NO_RECORD

# Park et al. 2023, figure 8: TrueSkill mu of each condition (100 human evaluators' rankings).
PAPER_MU = {"full": 29.89, "no_reflection": 26.88, "no_reflection_planning": 25.64, "human crowdworkers": 22.95,
            "no_memory": 21.21}
MU0 = 25.0
SIGMA0 = MU0 / 3
BETA = SIGMA0 / 2
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


async def judge_all(rows: Sequence[dict[str, Any]], identities: dict[str, str], lives: dict[str, str],
                    about: dict[str, str], llm: LLM, asked_at: datetime, seed: int = 0) -> list[dict[str, Any]]:
    """One judgement per resident and question that two or more conditions answered."""
    groups: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = defaultdict(dict)
    for r in rows:
        groups[r["npc_id"], r["category"], r["question_id"]][r["condition"]] = r
    asked = [g for g in groups.values() if len(g) >= 2]
    return list(await asyncio.gather(*(_judge(g, identities, lives, about, llm, asked_at, seed) for g in asked)))


async def _judge(answers: dict[str, dict[str, Any]], identities: dict[str, str], lives: dict[str, str],
                 about: dict[str, str], llm: LLM, asked_at: datetime, seed: int) -> dict[str, Any]:
    first = next(iter(answers.values()))
    conditions = sorted(answers)
    random.Random(f"{seed}:{first['npc_id']}:{first['category']}:{first['question_id']}").shuffle(conditions)
    letters = list(ascii_uppercase[: len(conditions)])
    judgement = await llm.complete(JUDGE, {
        "resident_name": first["name"], "identity": identities.get(first["npc_id"], ""),
        "life": lives.get(first["npc_id"]) or NO_RECORD, "asked_at": f"{asked_at:%A %B %d, %H:%M}",
        "category": first["category"], "category_about": about.get(first["category"], ""),
        "question": first["question"], "count": len(letters), "labels": ", ".join(json.dumps(x) for x in letters),
        "answers": "\n".join(f'{x}. "{answers[c]["answer"]}"' for x, c in zip(letters, conditions, strict=True)),
    }, npc_id=JUDGE_ID, work=Work(Priority.PLAN_NOW, JUDGE_ID), fallback=lambda: Judgement(reason="", ranking=[]))
    by_letter = dict(zip(letters, conditions, strict=True))
    ranks = tied(ranks_from(judgement.ranking, letters), {x: answers[c]["answer"] for x, c in by_letter.items()})
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


def tied(ranks: dict[str, float] | None, said: Mapping[str, str]) -> dict[str, float] | None:
    """`ranks` with the answers that say the same words (`said`, per letter; case and spacing aside)
    sharing their places (the mean): the schema makes a judge order them, and an order among
    identical answers is the judge's position bias and noise, not a preference (blind30's writer:
    382 of 609 rankings held identical answers, 21 all four)."""
    if ranks is None:
        return None
    same: dict[str, list[str]] = defaultdict(list)
    for x in ranks:
        same[" ".join(said[x].split()).casefold()].append(x)
    return {x: sum(ranks[y] for y in group) / len(group) for group in same.values() for x in group}


def ratings(judgements: Sequence[dict[str, Any]], conditions: Sequence[str]) -> dict[str, dict[str, float]]:
    """Per condition: judgements it took part in, mean rank, first-place rate, pairwise win rate
    and TrueSkill's (mu, sigma) fitted to every pair of every ranking at once (`skills`)."""
    ranks: dict[str, list[float]] = {c: [] for c in conditions}
    wins = {c: [0, 0] for c in conditions}  # won, played
    games: list[tuple[str, str]] = []
    for j in judgements:
        for c, r in j["ranks"].items():
            ranks[c].append(r)
        for a, ra in j["ranks"].items():
            for b, rb in j["ranks"].items():
                if ra < rb:
                    games.append((a, b))
                    wins[a][0] += 1
                if ra != rb:
                    wins[a][1] += 1
    skill = skills(games, conditions)
    return {c: {"judged": len(ranks[c]), "mean_rank": sum(ranks[c]) / len(ranks[c]) if ranks[c] else math.nan,
                "first_rate": sum(r == 1 for r in ranks[c]) / len(ranks[c]) if ranks[c] else math.nan,
                "win_rate": wins[c][0] / wins[c][1] if wins[c][1] else math.nan,
                "mu": skill[c][0], "sigma": skill[c][1]} for c in conditions}


def skills(games: Sequence[tuple[str, str]], players: Sequence[str]) -> dict[str, tuple[float, float]]:
    """TrueSkill's model without draws, solved for all (winner, loser) games at once: the mu that
    maximise the prior N(MU0, SIGMA0^2) times P(winner ahead) = Phi((mu_w - mu_l) / (sqrt 2 beta)) of
    every game (Newton's method; the log-posterior is concave), and sigma from its curvature there
    (Laplace), of mu less the players' mean: games fix only differences, the prior alone sets the
    level. The result does not depend on the order of the games."""
    index = {p: i for i, p in enumerate(players)}
    played = Counter((index[w], index[lo]) for w, lo in games)  # each pairing once, with how often it was played
    scale = math.sqrt(2) * BETA
    mu = np.full(len(players), MU0)
    for _ in range(100):
        grad = -(mu - MU0) / SIGMA0**2
        hess = np.diag(np.full(len(players), -1 / SIGMA0**2))
        for (w, lo), n in played.items():
            t = (mu[w] - mu[lo]) / scale
            lam = _pdf(t) / max(_cdf(t), 1e-300)
            curve = n * lam * (t + lam) / scale**2
            grad[w] += n * lam / scale
            grad[lo] -= n * lam / scale
            hess[w, w] -= curve
            hess[lo, lo] -= curve
            hess[w, lo] += curve
            hess[lo, w] += curve
        step = np.linalg.solve(hess, grad)
        mu = mu - step
        if np.max(np.abs(step)) < 1e-9:
            break
    centred = np.eye(len(players)) - 1 / len(players)
    sigma = np.sqrt(np.diag(centred @ np.linalg.inv(-hess) @ centred))
    return {p: (float(mu[i]), float(sigma[i])) for p, i in index.items()}


def _pdf(x: float) -> float:
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def _cdf(x: float) -> float:
    return (1 + math.erf(x / math.sqrt(2))) / 2
