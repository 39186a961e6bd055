"""Measurements from a sim run folder, next to the paper's (Park et al. 2023, section 7):

- information diffusion: who knows the scenario's news at the end (interview answers that
  mention the topic's keywords, and memories that do); knowledge claimed in an interview with no
  related memory is flagged as hallucinated; the same from memories hour by hour;
- relationship network density: ordered pairs (A, B) where A, asked "Do you know B?" (an
  Interview, as the paper asked), says it does, over possible pairs, at the start and at the end
  of the run; hour by hour only the pairs where B is named in A's persona or memories (a bound,
  not the paper's measure), and the pairs who have chatted;
- coordination: who heard of the event in a conversation (invited), who has a plan or thought
  about it (planned), who was at the place during its window (attended, from moves.jsonl).

`report(run)` writes report.md, measurements.json and PNG plots (matplotlib, if installed).
"""

from __future__ import annotations

from datetime import datetime, timedelta
import json
from pathlib import Path
import re
from typing import Any

PAPER = {"diffusion_candidacy": "4% -> 32% (1 -> 8 of 25)", "diffusion_party": "4% -> 52% (1 -> 13 of 25)",
         "density": "0.167 -> 0.74", "coordination": "12 invited, 5 attended (Hobbs Cafe, Feb 14 5-7 pm)",
         "hallucinated": "none reported (checked by interview)"}
# A clause that denies: "I haven't heard about a party", "No, I do not know Tom", "never", "no idea".
NEGATIONS = re.compile(r"n't\b|\b(no|not|never|nothing|none|nobody|unaware|cannot|neither|nor|nope)\b", re.I)
# Negative words that do not deny knowing: "I can't wait for the party", "I don't know her very well".
NOT_DENIALS = re.compile(r"\b(can't|cannot|can not|won't|wouldn't) (wait|miss)\b|\bdon't miss\b|\bnot to be missed\b|"
                         r"\bno doubt\b|\bnot only\b|\bno matter\b|"
                         r"(n't|\bnot) know (\w+ ){0,3}(very |that |too |all that )?well\b", re.I)
# Clause ends: after ! ? ; or a single full stop (an ellipsis trails off, it does not end a clause),
# and before a turn ("..., but ..."). The end mark stays with its clause, so a question can be told.
CLAUSES = re.compile(r"(?<=[!?;])\s+|(?<=[^.]\.)\s+|,?\s+\b(?:but|however|although|though)\b\s*|\s+-+\s+", re.I)
YES = re.compile(r"^\W*(yes|yeah|yep|of course|sure|certainly|absolutely|indeed|i do)\b", re.I)


def clauses(answer: str) -> list[str]:
    """An answer's clauses: split at sentence ends, semicolons and "but"/"however" turns."""
    return [c for c in CLAUSES.split(answer) if c and c.strip()]


def denies(clause: str) -> bool:
    return bool(NEGATIONS.search(NOT_DENIALS.sub(" ", clause)))


def claims_to_know(answer: str, keywords: list[str]) -> bool:
    """Whether an answer says it knows the news: some clause names the topic and denies nothing
    (a negation anywhere in that clause counts, not only at the start of the answer)."""
    return any(_mentions(c, keywords) and not denies(c) for c in clauses(answer) if not c.rstrip().endswith("?"))


def says_knows(answer: str, name: str) -> bool:
    """Whether an answer to "Do you know <name>?" says yes: it affirms, or names them, and no
    clause denies knowing them ("No, I don't know Tom", "I have seen Tom, but I don't know him")."""
    parts = [p.lower() for p in name.split()]
    names = [name.lower(), *parts[:1]] if parts else [name.lower()]
    pieces = clauses(answer)
    if any(denies(c) and (_mentions(c, names) or re.search(r"\b(know|him|her|them|who)\b", c, re.I) or i == 0)
           for i, c in enumerate(pieces)):
        return False
    return bool(YES.match(answer)) or any(_mentions(c, names) for c in pieces)


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def load_run(run: Path) -> dict[str, Any]:
    config = json.loads((run / "config.json").read_text())
    memories = {}
    for path in sorted((run / "memories").glob("*.json")):
        memories[path.stem] = json.loads(path.read_text()).get("memories", [])
    interviews = json.loads((run / "interviews.json").read_text()) if (run / "interviews.json").exists() else []
    moves = [json.loads(x) for x in (run / "moves.jsonl").read_text().splitlines()] if (run / "moves.jsonl").exists() \
        else []
    return {"config": config, "memories": memories, "interviews": interviews, "moves": moves}


def _mentions(text: str, keywords: list[str]) -> bool:
    text = text.lower()
    return any(k in text for k in keywords)


def _hours(start: datetime, end: datetime) -> list[datetime]:
    out, t = [], start
    while t <= end:
        out.append(t)
        t += timedelta(hours=1)
    if out[-1] != end:
        out.append(end)
    return out


def measure(run: Path) -> dict[str, Any]:
    data = load_run(run)
    cfg, memories = data["config"], data["memories"]
    names: dict[str, str] = cfg["names"]
    ids = sorted(names)
    n = len(ids)
    m = cfg.get("measure", {})
    keywords = [k.lower() for k in m.get("keywords", [])]
    start, end = _time(cfg["start"]), _time(cfg["end"])
    hours = _hours(start, end)

    # --- information diffusion ---------------------------------------------------------------
    first_known: dict[str, datetime] = {}
    for npc_id, mems in memories.items():
        times = [_time(x["created"]) for x in mems if keywords and _mentions(x.get("description", ""), keywords)]
        if times:
            first_known[npc_id] = min(times)
    knows_memory = set(first_known)
    news = [i for i in data["interviews"] if i.get("asks", "news") == "news"]
    claims = {i["npc_id"] for i in news if claims_to_know(i["answer"], keywords)}
    interviewed = bool(news)
    knows = (claims & knows_memory) if interviewed else knows_memory
    host = m.get("host", "")
    diffusion = {
        "topic": m.get("topic", ""), "question": m.get("question", ""), "keywords": keywords,
        "start": 1 if host else 0, "end": len(knows), "n": n,
        "start_pct": (1 if host else 0) / n if n else 0, "end_pct": len(knows) / n if n else 0,
        "knows": sorted(knows), "claims_in_interview": sorted(claims), "with_related_memory": sorted(knows_memory),
        "hallucinated": sorted(claims - knows_memory), "interviewed": interviewed,
        "by_hour": [[h.isoformat(), sum(t <= h for t in first_known.values())] for h in hours],
    }

    # --- relationship network density --------------------------------------------------------
    def named_at(h: datetime) -> set[tuple[str, str]]:
        edges = set()
        for a in ids:
            text = cfg.get("identities", {}).get(a, "") + " " + " ".join(
                x.get("description", "") for x in memories.get(a, []) if _time(x["created"]) <= h)
            edges |= {(a, b) for b in ids if b != a and names[b] in text}
        return edges

    def asked(when: str) -> set[tuple[str, str]] | None:
        answers = [i for i in data["interviews"] if i.get("asks") == "knows" and i.get("when") == when]
        if not answers:
            return None
        return {(i["npc_id"], i["about"]) for i in answers
                if i["about"] in names and says_knows(i["answer"], names[i["about"]])}

    chats: dict[frozenset[str], datetime] = {}
    for a, mems in memories.items():
        for x in mems:
            if x.get("kind") == "MEMORY_KIND_CHAT":
                for b in ids:
                    if b != a and names[b] in x.get("description", ""):
                        key = frozenset((a, b))
                        chats[key] = min(chats.get(key, _time(x["created"])), _time(x["created"]))
    possible = n * (n - 1) if n > 1 else 1
    knows_start, knows_end = asked("start"), asked("end")
    named_by_hour = [[h.isoformat(), len(named_at(h)) / possible] for h in hours]
    density = {"asked": knows_start is not None or knows_end is not None,
               "start": len(knows_start) / possible if knows_start is not None else None,
               "end": len(knows_end) / possible if knows_end is not None else None,
               "edges_start": sorted(map(list, knows_start or ())), "edges_end": sorted(map(list, knows_end or ())),
               "named_start": len(named_at(start - timedelta(seconds=1))) / possible,
               "named_by_hour": named_by_hour, "chatted_pairs": len(chats),
               "chatted_density": len(chats) / (possible / 2)}

    # --- coordination --------------------------------------------------------------------------
    coordination: dict[str, Any] = {}
    if m.get("place") and len(m.get("window", [])) == 2:
        w0, w1 = (_time(t) for t in m["window"])
        invited = set(m.get("invited", [])) | {
            a for a, mems in memories.items() if a != host and any(
                x.get("kind") == "MEMORY_KIND_CHAT" and _mentions(x.get("description", ""), keywords) for x in mems)}
        planned = {a for a, mems in memories.items() if any(
            x.get("kind") in ("MEMORY_KIND_PLAN", "MEMORY_KIND_THOUGHT") and _mentions(x.get("description", ""), keywords)
            for x in mems)}
        place = m["place"]
        attended: set[str] = set()
        where: dict[str, tuple[str, datetime]] = {}
        for mv in sorted(data["moves"], key=lambda x: x["game_time"]):
            t = _time(mv["game_time"])
            prev = where.get(mv["npc_id"])
            if prev and prev[0].startswith(place) and prev[1] < w1 and t > w0:
                attended.add(mv["npc_id"])
            where[mv["npc_id"]] = (mv["arena"], t)
        attended |= {a for a, (arena, t) in where.items() if arena.startswith(place) and t < w1 and end > w0}
        coordination = {"place": place, "window": m["window"], "invited": sorted(invited), "planned": sorted(planned),
                        "attended": sorted(attended), "invited_attended": sorted(invited & attended),
                        "planned_attended": sorted(invited & planned & attended), "window_in_run": w0 < end}
    return {"run": str(run), "scenario": cfg.get("scenario_name", ""), "npcs": n, "start": cfg["start"],
            "end": cfg["end"], "diffusion": diffusion, "density": density, "coordination": coordination,
            "flow": flow(memories, names, keywords, claims, set(coordination.get("attended", [])))}


def flow(memories: dict[str, list[dict[str, Any]]], names: dict[str, str], keywords: list[str], claims: set[str],
         attended: set[str]) -> list[dict[str, Any]]:
    """How the news travelled, per resident who met it: when and from whom it was first heard in a
    conversation, whether a memo (thought) and a plan kept it, whether the interview answer says it,
    whether they were at the place in its window. The first hop that is missing is where it stopped."""
    out = []
    for npc_id in sorted(names):
        mems = sorted(memories.get(npc_id, []), key=lambda x: x["created"])
        about = [x for x in mems if keywords and _mentions(x.get("description", ""), keywords)]
        if not about:
            continue
        chat = next((x for x in about if x.get("kind") == "MEMORY_KIND_CHAT"), None)
        partner = re.match(r"conversation with ([^:\n]+)", chat["description"]) if chat else None
        out.append({"npc_id": npc_id, "first": about[0]["created"], "first_kind": about[0].get("kind", ""),
                    "heard_at": chat["created"] if chat else "", "heard_from": partner.group(1) if partner else "",
                    "thought": any(x.get("kind") == "MEMORY_KIND_THOUGHT" for x in about),
                    "planned": any(x.get("kind") == "MEMORY_KIND_PLAN" for x in about),
                    "says_so": npc_id in claims, "attended": npc_id in attended})
    return out


def report(run: Path) -> dict[str, Any]:
    """measurements.json, report.md and plots in the run folder; returns the measurements."""
    result = measure(run)
    (run / "measurements.json").write_text(json.dumps(result, indent=1))
    d, g, c = result["diffusion"], result["density"], result["coordination"]
    paper_diffusion = PAPER["diffusion_party"] if c else PAPER["diffusion_candidacy"]  # an event with a place: the party
    density = (f"{_share(g['start'])} -> {_share(g['end'])} (asked \"Do you know ...?\": {len(g['edges_start'])} -> "
               f"{len(g['edges_end'])} of {d['n'] * (d['n'] - 1)} ordered pairs)") if g["asked"] else \
        f"not asked (named in memories: {g['named_start']:.3f} -> {g['named_by_hour'][-1][1]:.3f})"
    rows = [
        ("information diffusion", f"{d['start_pct']:.0%} -> {d['end_pct']:.0%} ({d['start']} -> {d['end']} of {d['n']})"
         + (f"; {len(d['with_related_memory'])} with a related memory" if d["interviewed"]
            else ", from memories (no interviews)"), paper_diffusion),
        ("hallucinated knowledge", f"{len(d['hallucinated'])} ({', '.join(d['hallucinated']) or 'none'})",
         PAPER["hallucinated"]),
        ("network density", density, PAPER["density"]),
        ("pairs who chatted", f"{g['chatted_pairs']} (density {g['chatted_density']:.3f})", "-"),
    ]
    if c:
        rows.append(("coordination", f"{len(c['invited'])} invited, {len(c['planned'])} planned, "
                     f"{len(c['attended'])} attended ({len(c['invited_attended'])} of the invited, "
                     f"{len(c['planned_attended'])} of them with it in a plan or thought)"
                     + ("" if c["window_in_run"] else "; the window is after the run's end"), PAPER["coordination"]))
    lines = [f"# Measurements: {result['scenario']}", "",
             f"Run `{run}`: {result['npcs']} NPCs, {result['start']} -> {result['end']}.", "",
             "| measure | this run | paper (25 agents, 2 game days) |", "| --- | --- | --- |",
             *(f"| {a} | {b} | {p} |" for a, b, p in rows), ""]
    if result["flow"]:
        lines += ["## How the news travelled", "",
                  "| resident | first met it | heard in a conversation | memo/thought | plan | says so when asked | "
                  "at the place in its window |", "| --- | --- | --- | --- | --- | --- | --- |"]
        for f in result["flow"]:
            heard = f"{f['heard_at'][:16]} from {f['heard_from']}" if f["heard_at"] else "-"
            lines.append(f"| {f['npc_id']} | {f['first'][:16]} ({f['first_kind'].removeprefix('MEMORY_KIND_').lower()}) "
                         f"| {heard} | {_yes(f['thought'])} | {_yes(f['planned'])} | {_yes(f['says_so'])} | "
                         f"{_yes(f['attended']) if c else '-'} |")
        lines.append("")
    plots = _plots(run, result)
    lines += [f"![{p.stem}]({p.name})" for p in plots]
    (run / "report.md").write_text("\n".join(lines) + "\n")
    return result


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _plots(run: Path, result: dict[str, Any]) -> list[Path]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    d, g, c, n = result["diffusion"], result["density"], result["coordination"], max(1, result["npcs"])
    hours = (_time(result["end"]) - _time(result["start"])).total_seconds() / 3600
    out = []
    for name, series, asked, paper, ylabel in (
            ("diffusion", [(t, k / n) for t, k in d["by_hour"]],
             [(0, d["start_pct"]), (hours, d["end_pct"])] if d["interviewed"] else [],
             (0.04, 0.52 if c else 0.32), "share who know"),
            ("density", [(t, v) for t, v in g["named_by_hour"]],
             [(x, v) for x, v in ((0, g["start"]), (hours, g["end"])) if v is not None],
             (0.167, 0.74), "network density")):
        fig, ax = plt.subplots(figsize=(6, 3.2), dpi=100)
        xs = [(_time(t) - _time(series[0][0])).total_seconds() / 3600 for t, _ in series]
        memory_label = "from memories" if name == "diffusion" else "named in memories (a bound, not asked)"
        ax.plot(xs, [v for _, v in series], color="grey" if name == "density" else None, label=memory_label)
        if asked:
            ax.plot(*zip(*asked, strict=True), "o-", label="asked by interview (this run)")
        ax.plot([0, 48], list(paper), "--", label="paper, start -> end of 2 days")
        ax.set_xlabel("game hours")
        ax.set_ylabel(ylabel)
        ax.set_ylim(0, 1)
        ax.legend(loc="upper left", fontsize=8)
        fig.tight_layout()
        path = run / f"{name}.png"
        fig.savefig(path)
        plt.close(fig)
        out.append(path)
    return out
