"""`npc-lab eval RUN [RUN ...]`: interview a sim run's residents under each condition, save the answers
side by side, and with --judge rank them and rate the conditions; over several runs of a town (its
seeds), the ratings' intervals across them (`seeds.py`)."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
import sys
import time
from typing import Any

from pydantic import ValidationError

from brain_server.config import Settings
from npc_lab.evaluate import report, seeds
from npc_lab.evaluate.interview import (
    PAPER_CONDITIONS,
    Condition,
    Run,
    condition,
    interview_condition,
    open_run,
    write_answers,
)
from npc_lab.evaluate.judge import JUDGE_ID, judge_all, judge_llm, ratings
from npc_lab.sim.measure import measure


def add_parser(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("eval", help="interview a sim run's residents under the paper's ablations",
                            description="Interview every resident of a run folder (from `npc-lab sim`) in five "
                            "categories, once per condition, each on a brain started over a copy of the run's store "
                            "with NPC_BRAIN_ABLATE set; answers go to RUN/eval/. The brains and the judge use the "
                            "NPC_BRAIN_LLM_* settings in the environment.")
    p.add_argument("runs", type=Path, nargs="+", metavar="RUN",
                   help="run folder of `npc-lab sim`; several (a town's seeds): each evaluated, then with --judge the "
                   "conditions' ratings over them with 95%% intervals (across.md, across.json)")
    p.add_argument("--combine", action="store_true", help="evaluate nothing: combine the judged evaluations the runs "
                   "already hold (RUN/eval/summary.json)")
    p.add_argument("--across-out", type=Path, help="where several runs' combined ratings go (default: the first run's "
                   "parent folder / eval-across)")
    p.add_argument("--conditions", default=",".join(PAPER_CONDITIONS),
                   help="comma-separated: full, no_memory, or no_ plus observation/reflection/planning joined by _ "
                   f"(default: the paper's, {','.join(PAPER_CONDITIONS)})")
    p.add_argument("--judge", action="store_true", help="rank each question's answers with the LLM and rate the "
                   "conditions (report.md, ratings.png)")
    p.add_argument("--rejudge", action="store_true", help="interview nobody: judge again the answers RUN/eval already "
                   "holds (answers.jsonl, under the conditions they were given in), e.g. with another judge; the "
                   "judge's files there are replaced")
    p.add_argument("--npcs", type=int, help="only the first N residents by npc_id")
    p.add_argument("--questions", type=Path, help="a questions TOML file (default: npc_lab/evaluate/questions.toml)")
    p.add_argument("--concurrency", type=int, default=4, help="residents interviewed at once")
    p.add_argument("--judge-base-url", help="the judge's OpenAI-compatible endpoint, when it is not the one the "
                   "residents answer with (default: NPC_BRAIN_LLM_BASE_URL): a larger model judging a small one")
    p.add_argument("--judge-model", help="the judge's model name at that endpoint (default: NPC_BRAIN_LLM_MODEL)")
    p.add_argument("--seed", type=int, default=0, help="seed of the order the judge sees the answers in")
    p.add_argument("--out", type=Path, help="output folder of a single run (default: RUN/eval)")


def run(args: argparse.Namespace) -> None:
    if args.combine:
        return across(args.runs, args.across_out)
    try:
        conditions = [condition(c.strip()) for c in args.conditions.split(",") if c.strip()]
        settings = Settings()
        if settings.qdrant_url or settings.qdrant_path:
            raise ValueError("eval starts brains over copies of the run's embedded store: unset "
                             "NPC_BRAIN_QDRANT_URL / NPC_BRAIN_QDRANT_PATH")
        if args.judge and len(conditions) < 2:
            raise ValueError("--judge ranks conditions against each other: give two or more")
        if args.rejudge and not args.judge:
            raise ValueError("--rejudge judges answers again: add --judge and the judge's endpoint")
        if args.rejudge and args.out:
            raise ValueError("--rejudge judges the answers in RUN/eval and writes there: leave out --out")
        if args.out and len(args.runs) > 1:
            raise ValueError("--out is one run's folder: several runs each write to RUN/eval")
        judging = settings.model_copy(update={k: v for k, v in (("llm_base_url", args.judge_base_url),
                                                                 ("llm_model", args.judge_model)) if v})
        if (args.judge_base_url or args.judge_model) and not args.judge:
            raise ValueError("--judge-base-url and --judge-model choose the judge: add --judge")
        if args.judge:
            judge_llm(judging)
        the_runs = [open_run(r, args.npcs, args.questions, store=not args.rejudge) for r in args.runs]
        answered = {r.folder: answers_of(r.folder / "eval") for r in the_runs} if args.rejudge else {}
    except (ValueError, ValidationError, OSError) as exc:
        sys.exit(f"npc-brain: {exc}")
    for the_run in the_runs:
        out = args.out or the_run.folder / "eval"
        asyncio.run(evaluate(the_run, conditions, out, judge=judging if args.judge else None,
                             concurrency=args.concurrency, seed=args.seed, answered=answered.get(the_run.folder)))
        print((out / "report.md").read_text(), flush=True)
    if args.judge and len(the_runs) > 1:
        across(args.runs, args.across_out)


def across(runs: list[Path], out: Path | None) -> None:
    """Several runs' judged evaluations combined (seeds.py): across.json and across.md in `out`."""
    try:
        combined = seeds.combine([(str(r), seeds.read_summary(r)) for r in runs])
        combined["by_category"] = seeds.by_category([ranked for r in runs if (ranked := seeds.category_ranks(r))],
                                                    combined["baseline"], list(combined["conditions"]))
    except (ValueError, OSError) as exc:
        sys.exit(f"npc-brain: {exc}")
    out = out or runs[0].parent / "eval-across"
    out.mkdir(parents=True, exist_ok=True)
    (out / "across.json").write_text(json.dumps(combined, indent=1), encoding="utf-8")
    text = (f"The judge's ratings over {combined['runs']} runs (judge: {', '.join(combined['judges'])}); "
            f"intervals: 95% bootstrap of the mean over the runs.\n\n{seeds.table(combined)}\n")
    if combined["by_category"]:
        text += (f"\nMean rank by question category (1 is the best), over the runs with the judge's rankings; "
                 f"intervals as above.\n\n{seeds.category_table(combined['by_category'], combined['baseline'])}\n")
    (out / "across.md").write_text(text, encoding="utf-8")
    print(text, flush=True)


def answers_of(folder: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The answers an evaluation left in `folder` and what each condition cost, for --rejudge."""
    if not (folder / "answers.jsonl").is_file() or not (folder / "summary.json").is_file():
        raise ValueError(f"{folder} holds no evaluation's answers (answers.jsonl, summary.json): run `npc-lab eval` "
                         "without --rejudge first")
    rows = [json.loads(x) for x in (folder / "answers.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    return rows, json.loads((folder / "summary.json").read_text(encoding="utf-8"))["conditions"]


async def evaluate(the_run: Run, conditions: list[Condition], out: Path, *, judge: Settings | None = None,
                   concurrency: int = 4, seed: int = 0,
                   answered: tuple[list[dict[str, Any]], list[dict[str, Any]]] | None = None) -> dict[str, Any]:
    """Answers of every condition (or those `answered` already), then the judge's rankings if asked;
    returns summary.json's content."""
    out.mkdir(parents=True, exist_ok=True)
    if answered:
        rows, costs = answered
        names = list(dict.fromkeys(r["condition"] for r in rows))
    else:
        rows, costs = [], []
        for cond in conditions:
            answers, cost = await interview_condition(the_run, cond, out, concurrency)
            rows += answers
            costs.append(cost)
        write_answers(rows, out / "answers.jsonl")
        names = [c.name for c in conditions]
        report.answers_markdown(rows, names, out / "answers.md")
    summary: dict[str, Any] = {"run": str(the_run.folder), "residents": len(the_run.questions),
                               "questions": len(next(iter(the_run.questions.values()), [])), "conditions": costs}
    judged = await _judge(the_run, rows, names, out, judge, seed) if judge else None
    if judged:
        summary["judge"] = judged
    summary["emergent"] = emergent = measure(the_run.folder)
    report.report_markdown(out, run=the_run.folder, residents=summary["residents"], questions=summary["questions"],
                           costs=costs, rows=rows, judged=judged, emergent=emergent)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


async def _judge(the_run: Run, rows: list[dict[str, Any]], names: list[str], out: Path, settings: Settings,
                 seed: int) -> dict[str, Any]:
    about = {q.category: q.about for qs in the_run.questions.values() for q in qs}
    llm = judge_llm(settings)
    started = time.perf_counter()
    print(f"eval judge: ranking {len(rows) // len(names)} questions' answers", file=sys.stderr, flush=True)
    try:
        judgements = await judge_all(rows, the_run.identities, the_run.lives, about, llm, the_run.end, seed)
    finally:
        await llm.close()
    (out / seeds.JUDGEMENTS).write_text("".join(json.dumps(j, ensure_ascii=False) + "\n" for j in judgements),
                                          encoding="utf-8")
    rated = ratings([j for j in judgements if j["judged"]], names)
    counters = [c for (npc, _), c in llm.usage.counters.items() if npc == JUDGE_ID]
    plot = report.ratings_plot(rated, out / "ratings.png")
    return {"model": settings.llm_model, "asked": len(judgements), "judged": sum(j["judged"] for j in judgements),
            "complete": sum(j["complete"] for j in judgements), "calls": sum(c.calls for c in counters),
            "tokens": sum(c.prompt_tokens + c.completion_tokens for c in counters),
            "wall_s": round(time.perf_counter() - started, 2), "ratings": rated, "plot": plot.name if plot else ""}
