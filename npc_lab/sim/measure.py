"""Measurements from a sim run folder, next to the paper's (Park et al. 2023, section 7):

- information diffusion: who knows the scenario's news at the end (interview answers that
  mention the topic's keywords, or say yes to a question that names it, and memories that do); knowledge claimed in an interview with no
  related memory is flagged as hallucinated; the same from memories hour by hour;
- relationship network density: the paper's undirected graph of mutual knowledge: pairs {A, B}
  where A, asked "Do you know B?" (an Interview, as the paper asked), says it does and B says it
  knows A, over the n(n-1)/2 possible pairs, at the start and at the end of the run; hour by hour
  only the pairs who name each other in persona or memories (a bound, not the paper's measure),
  and the pairs who have had a conversation (the partner of a chat, not anyone it mentions);
- coordination: who heard of the event in a conversation (invited: a chat that names it by its keywords,
  or by its place and hours, as a model that calls it "the event" does), who has a plan or thought
  about it (planned; by place and hours too, for one invited), who was at the place during its window
  (attended, from moves.jsonl);
- exposure and leakage (`exposure.py`): what the brain showed its model, from the recorded requests.

`report(run)` writes report.md, measurements.json and PNG plots (matplotlib, if installed).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
import json
from pathlib import Path
import re
import statistics
from typing import Any

from npc_lab.sim.exposure import exposure, leakage, requests

PAPER = {"diffusion_candidacy": "4% -> 32% (1 -> 8 of 25)", "diffusion_party": "4% -> 52% (1 -> 13 of 25)",
         "density": "0.167 -> 0.74", "coordination": "12 invited, 5 attended (Hobbs Cafe, Feb 14 5-7 pm)",
         "hallucinated": "none reported (checked by interview)",
         "reflections": "2-3 a day (the paper); 6 on the released run's first day (Klaus Mueller, 476 events)"}
# Negative words that do not deny knowing: "I can't wait for the party", "I don't know her very well",
# "No one throws a party like Isabella" (a comparison).
NOT_DENIALS = re.compile(r"\b(can't|cannot|can not|won't|wouldn't) (wait|miss)\b|\bdon't miss\b|\bnot to be missed\b|"
                         r"\bno doubt\b|\bnot only\b|\bno matter\b|"
                         r"\b(no one|nobody|nothing|none)\b[^.!?]*\b(like|better than|compares)\b|"
                         r"(n't|\bnot) know (\w+ ){0,3}(very |that |too |all that )?well\b|"
                         # unsure of going, not of the news: blind32's "Yes, I heard about it. I'm not sure yet
                         # whether I'll go." was counted as not knowing, in every town
                         r"\bnot (\w+ )?sure (\w+ )?(whether|if) (I|we)(['’]ll| will| can| could| should| might| shall)?"
                         r"\s+(go|come|make|manage|join|be able)\b", re.I)
# A denial is about knowing: a negation shortly before a verb of knowing or hearing ("I haven't heard",
# "there is no party that I know of", "nobody told me"), or after one ("I know nothing about it"), a bare
# "No"/"Not really" opening the clause, or a word that is a denial by itself. "I haven't decided whether
# to go to the party" or "The party isn't until 5" deny nothing.
_NEG = r"(?:\w+n't|not|never|no|nothing|none|nobody|no one|neither|nor)"
_KNOW = r"(?:know|knew|heard|hear|aware|told|tell|met|meet|seen|familiar|recall|remember|recognize|clue|idea|sure)"
DENIALS = re.compile(rf"\b{_NEG}\b(?:\W+\w+){{0,3}}?\W+{_KNOW}\b|\b{_KNOW}\b(?:\W+\w+){{0,2}}?\W+{_NEG}\b|"
                     r"^\W*(?:no|nope|not really|not at all|never)\b|\b(?:unaware|no idea|never heard)\b", re.I)
# "Who doesn't know Tom?", "Who hasn't heard about the party?": a question that says yes.
RHETORICAL = re.compile(r"^\W*who\s+(?:\w+n't|does not|has not|did not|would not)\b.*\?\s*$", re.I)
# Clause ends: after ! ? ; or a single full stop (an ellipsis trails off, it does not end a clause),
# and before a turn ("..., but ..."). The end mark stays with its clause, so a question can be told.
CLAUSES = re.compile(r"(?<=[!?;])\s+|(?<=[^.]\.)\s+|,?\s+\b(?:but|however|although|though)\b\s*|\s+-+\s+", re.I)
# A yes opening an answer, after an interjection too ("Oh yes, ...": blind22's interviewee answered
# so, and it read as no when its words after it named nothing of the news).
YES = re.compile(r"^\W*(?:(?:oh|ah|ooh|why|well)\W+)?(yes|yeah|yep|aye|of course|sure|certainly|absolutely|indeed|i do)\b",
                 re.I)


def clauses(answer: str) -> list[str]:
    """An answer's clauses: split at sentence ends, semicolons and "but"/"however" turns."""
    return [c for c in CLAUSES.split(answer) if c and c.strip()]


def denies(clause: str) -> bool:
    """Whether a clause denies knowing (a negation about knowing or hearing, not any negation)."""
    return not RHETORICAL.match(clause) and bool(DENIALS.search(NOT_DENIALS.sub(" ", clause)))


def news_keywords(topic: str, keywords: list[str]) -> list[str]:
    """The keywords that say the news, without those naming its date: in "Valentine's Day party"
    "valentine" is the day itself (a greeting knows no party); all of them if nothing else is left."""
    dates = {w.lower().removesuffix("'s") for w in re.findall(r"([\w']+)\s+day\b", topic, re.I)}
    kept = [k for k in keywords if k.lower() not in dates]
    return kept or keywords


def news_names(topic: str, host_name: str) -> list[str]:
    """The host's names, when the news is about the host ("Sam Moore's candidacy for mayor": an
    answer that only names the candidate knows it); none when the topic does not name them."""
    parts = host_name.split()
    if not parts or not any(_names(topic, [p]) for p in parts):
        return []
    return [host_name, *parts]


def claims_to_know(answer: str, keywords: Sequence[str], names: Sequence[str] = (), *, named: bool = False) -> bool:
    """Whether an answer says it knows the news: some clause names the topic (a keyword, or one
    of `names` as a whole word) and denies nothing; a question back counts only when it says yes.
    `named`: the question itself named the news ("Have you heard about a Morse code lesson?"), so an
    answer that opens with a yes and denies nothing says it knows ("Yes, I heard about it: ...",
    whatever follows; blind7 answered so, and the topic's words alone counted it a no)."""
    if named and YES.match(answer) and not any(denies(c) for c in clauses(answer)):
        return True
    return any((_mentions(c, keywords) or _names(c, names)) and not denies(c)
               and (RHETORICAL.match(c) or not c.rstrip().endswith("?")) for c in clauses(answer))


def says_knows(answer: str, name: str) -> bool:
    """Whether an answer to "Do you know <name>?" says yes: it affirms, or names them (the full or
    first name as a whole word, so "tomorrow" is not Tom), and no clause denies knowing them ("No,
    I don't know Tom", "I have seen Tom, but I don't know him")."""
    parts = name.split()
    names = [name, *parts[:1]] if parts else [name]
    pieces = clauses(answer)
    if any(denies(c) and (_names(c, names) or re.search(r"\b(know|him|her|them|who)\b", c, re.I) or i == 0)
           for i, c in enumerate(pieces)):
        return False
    return bool(YES.match(answer)) or any(RHETORICAL.match(c) or _names(c, names) for c in pieces)


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


def _mentions(text: str, keywords: Sequence[str]) -> bool:
    """A keyword at the start of a word ("party", "parties", "mayoral"), in any case."""
    return any(re.search(rf"\b(?:{re.escape(k)}|{re.escape(k[:-1])}ies)" if k.endswith("y") else rf"\b{re.escape(k)}",
                         text, re.I) for k in keywords if k)


# A clock time as people write one: "5 pm", "5:30 p.m.", "17:00", "noon", "midday".
_CLOCK = re.compile(r"\b(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?\s*(?P<half>[ap])\.?m\b|\b(?P<h24>[01]?\d|2[0-3]):(?P<m24>\d{2})\b|"
                    r"\b(?P<noon>noon|midday)\b", re.I)


def _clock_hours(text: str) -> list[float]:
    """The hours of day the clock times in `text` say (an independent reading: the lab does not
    measure the brain with the brain's own reader of times)."""
    hours = []
    for c in _CLOCK.finditer(text):
        if c["noon"]:
            hours.append(12.0)
        elif c["half"]:
            h = int(c["h"]) % 12 + (12 if c["half"].lower() == "p" else 0)
            hours.append(h + int(c["m"] or 0) / 60)
        else:
            hours.append(int(c["h24"]) + int(c["m24"]) / 60)
    return hours


def names_place_and_hours(text: str, place: str, window: Sequence[datetime]) -> bool:
    """Whether `text` names the event's place (its sector, as "the mudbank at Egret Spit" does) and a
    time within an hour of its window: told of it without its name. blind32 calls most events "the event"
    ("I'm holding the event tomorrow from 5 pm to 7 pm in the mudbank at Egret Spit"), and by keywords
    alone the lab counted nobody invited in Hijaltola while 8 of 9 came."""
    parts = place.split(":")
    sector = parts[1] if len(parts) > 1 else parts[0]
    if len(window) != 2 or not sector or not re.search(rf"\b{re.escape(sector)}\b", text, re.I):
        return False
    first, last = window[0].hour + window[0].minute / 60 - 1, window[1].hour + window[1].minute / 60 + 1
    return any(first <= h <= last for h in _clock_hours(text))


def _names(text: str, names: Sequence[str]) -> bool:
    """A name as a whole word, capitalised as names are: "Tom" is not in "tomorrow", "John" not in
    "Johnson Park", "Will" not in "I will"."""
    return any(re.search(rf"\b{re.escape(n)}\b", text) for n in names if n)


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
    host = m.get("host", "")
    keywords = news_keywords(m.get("topic", ""), [k.lower() for k in m.get("keywords", [])])
    host_names = news_names(m.get("topic", ""), names.get(host, ""))
    start, end = _time(cfg["start"]), _time(cfg["end"])
    hours = _hours(start, end)
    window = [_time(t) for t in m.get("window", [])]

    # --- information diffusion ---------------------------------------------------------------
    first_known: dict[str, datetime] = {}
    for npc_id, mems in memories.items():
        times = [_time(x["created"]) for x in mems if keywords and _mentions(x.get("description", ""), keywords)]
        if times:
            first_known[npc_id] = min(times)
    knows_memory = set(first_known)
    news = [i for i in data["interviews"] if i.get("asks", "news") == "news"]
    claims = {i["npc_id"] for i in news if claims_to_know(i["answer"], keywords, host_names,
                                                          named=_mentions(i.get("question", ""), keywords))}
    interviewed = bool(news)
    knows = (claims & knows_memory) if interviewed else knows_memory
    seeded = _seeded(memories, cfg.get("identities", {}), keywords, first_known)
    diffusion = {
        "topic": m.get("topic", ""), "question": m.get("question", ""), "keywords": keywords,
        "start": len(seeded), "seeded": sorted(seeded), "end": len(knows), "n": n,
        "start_pct": len(seeded) / n if n else 0, "end_pct": len(knows) / n if n else 0,
        "knows": sorted(knows), "claims_in_interview": sorted(claims), "with_related_memory": sorted(knows_memory),
        "hallucinated": sorted(claims - knows_memory), "interviewed": interviewed,
        # Held before the event began: one who passes its place while it runs sees "X is hosting ...",
        # which is no news that reached them (blind20 in Tarnbeck: 100% held, none who said so asked).
        "with_related_memory_before": sorted(npc for npc, t in first_known.items() if len(window) == 2 and t < window[0]),
        "by_hour": [[h.isoformat(), sum(t <= h for t in first_known.values())] for h in hours],
    }

    # --- relationship network density: undirected, an edge where each says it knows the other -----
    def named_at(h: datetime) -> set[tuple[str, str]]:
        edges = set()
        for a in ids:
            text = cfg.get("identities", {}).get(a, "") + " " + " ".join(
                x.get("description", "") for x in memories.get(a, []) if _time(x["created"]) <= h)
            edges |= {(a, b) for b in ids if b != a and _names(text, [names[b]])}
        return _mutual(edges)

    def asked(when: str) -> tuple[set[tuple[str, str]], set[tuple[str, str]]] | None:
        answers = [i for i in data["interviews"] if i.get("asks") == "knows" and i.get("when") == when]
        if not answers:
            return None
        said = {(i["npc_id"], i["about"]) for i in answers
                if i["about"] in names and says_knows(i["answer"], names[i["about"]])}
        return said, _mutual(said)

    chats: dict[frozenset[str], datetime] = {}
    by_name = {v: k for k, v in names.items()}
    for a, mems in memories.items():
        for x in mems:
            partner = _partner(x)
            if partner in by_name and by_name[partner] != a:
                key, t = frozenset((a, by_name[partner])), _time(x["created"])
                chats[key] = min(chats.get(key, t), t)
    possible = n * (n - 1) / 2 if n > 1 else 1
    knows_start, knows_end = asked("start"), asked("end")
    named_by_hour = [[h.isoformat(), len(named_at(h)) / possible] for h in hours]
    density = {"asked": knows_start is not None or knows_end is not None,
               "start": len(knows_start[1]) / possible if knows_start is not None else None,
               "end": len(knows_end[1]) / possible if knows_end is not None else None,
               "edges_start": sorted(map(list, knows_start[1] if knows_start else ())),
               "edges_end": sorted(map(list, knows_end[1] if knows_end else ())),
               "one_way_start": len(knows_start[0]) if knows_start else 0,
               "one_way_end": len(knows_end[0]) if knows_end else 0,
               "named_start": len(named_at(start - timedelta(seconds=1))) / possible,
               "named_by_hour": named_by_hour, "chatted_pairs": len(chats),
               "chatted_density": len(chats) / possible,
               # Whom the one with the news talked with (issue 42: a host who meets nobody tells nobody).
               "host_chatted": sorted(other for pair in chats if host in pair for other in pair - {host})}

    # --- coordination --------------------------------------------------------------------------
    coordination: dict[str, Any] = {}
    if m.get("place") and len(window) == 2:
        w0, w1 = window
        place = m["place"]

        def about(x: dict[str, Any]) -> bool:
            text = x.get("description", "")
            return _mentions(text, keywords) or names_place_and_hours(text, place, window)

        invited = set(m.get("invited", [])) | {
            a for a, mems in memories.items() if a != host and any(
                x.get("kind") == "MEMORY_KIND_CHAT" and about(x) for x in mems)}
        planned = {a for a, mems in memories.items() if any(
            x.get("kind") in ("MEMORY_KIND_PLAN", "MEMORY_KIND_THOUGHT")
            and (_mentions(x.get("description", ""), keywords) or (a in invited and about(x))) for x in mems)}
        attended: set[str] = set()
        where: dict[str, tuple[str, datetime]] = {}
        for mv in sorted(data["moves"], key=lambda x: x["game_time"]):
            t = _time(mv["game_time"])
            prev = where.get(mv["npc_id"])
            if prev and prev[0].startswith(place) and prev[1] < w1 and t > w0:
                attended.add(mv["npc_id"])
            where[mv["npc_id"]] = (mv["arena"], t)
        attended |= {a for a, (arena, t) in where.items() if arena.startswith(place) and t < w1 and end > w0}
        # Commitment fidelity: of those (the host apart) whose plan held the event, who was there.
        committed = {a for a, mems in memories.items() if a != host and any(
            x.get("kind") == "MEMORY_KIND_PLAN" and (_mentions(x.get("description", ""), keywords)
                                                     or (a in invited and about(x))) for x in mems)}
        coordination = {"place": place, "window": m["window"], "invited": sorted(invited), "planned": sorted(planned),
                        "attended": sorted(attended), "invited_attended": sorted(invited & attended),
                        "planned_attended": sorted(invited & planned & attended), "committed": sorted(committed),
                        "kept": sorted(committed & attended), "window_in_run": w0 < end}
    known, calls = {npc: t.replace(tzinfo=None) for npc, t in first_known.items()}, requests(run)
    return {"run": str(run), "scenario": cfg.get("scenario_name", ""), "npcs": n, "start": cfg["start"],
            "end": cfg["end"], "diffusion": diffusion, "density": density, "coordination": coordination,
            "exposure": exposure(calls, known, names, host, lambda text: _mentions(text, keywords)),
            "leakage": leakage(calls, memories, names),
            "flow": flow(memories, names, keywords, claims, set(coordination.get("attended", []))),
            "reflections": reflections(run, ids, (end - start).total_seconds() / 86400)}


def reflections(run: Path, ids: Sequence[str], days: float) -> dict[str, Any] | None:
    """Reflections per resident per game day, from the brain's usage counters (one `reflection_insights`
    call a reflection): the paper's threshold of 150 points was set for a world perceived every 10 s,
    and a game that perceives less often reflects less often (docs/configuration.md)."""
    path = run / "usage.json"
    if not path.is_file() or days <= 0:
        return None
    counts = dict.fromkeys(ids, 0)
    for c in json.loads(path.read_text()).get("counters", []):
        if c.get("purpose") == "reflection_insights" and c.get("npc_id") in counts:
            counts[c["npc_id"]] += int(c.get("calls", 0))
    per_day = {npc_id: n / days for npc_id, n in counts.items()}
    return {"days": days, "by_npc": counts, "per_day_mean": statistics.fmean(per_day.values()) if per_day else 0.0,
            "per_day_min": min(per_day.values(), default=0.0), "per_day_max": max(per_day.values(), default=0.0)}


def _partner(memory: dict[str, Any]) -> str:
    """Who a conversation memory was with ("conversation with Ana Berg: ..."); "" for other memories."""
    found = re.match(r"conversation with ([^:\n]+)", memory.get("description", "")) \
        if memory.get("kind") == "MEMORY_KIND_CHAT" else None
    return found.group(1).strip() if found else ""


def _mutual(said: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The undirected edges (a, b), a < b, where each said it knows the other."""
    return {(a, b) for a, b in said if a < b and (b, a) in said}


def _seeded(memories: dict[str, list[dict[str, Any]]], identities: dict[str, str], keywords: list[str],
            first_known: dict[str, datetime]) -> set[str]:
    """Who knew the news before anyone talked about it (a whisper, the persona): the measured start
    of diffusion, not an assumed single host."""
    chats = [_time(x["created"]) for mems in memories.values() for x in mems
             if x.get("kind") == "MEMORY_KIND_CHAT" and _mentions(x.get("description", ""), keywords)]
    first_chat = min(chats, default=None)
    return {a for a, t in first_known.items() if first_chat is None or t < first_chat} | \
        {a for a, text in identities.items() if keywords and _mentions(text, keywords)}


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
        out.append({"npc_id": npc_id, "first": about[0]["created"], "first_kind": about[0].get("kind", ""),
                    "heard_at": chat["created"] if chat else "", "heard_from": _partner(chat) if chat else "",
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
               f"{len(g['edges_end'])} of {d['n'] * (d['n'] - 1) // 2} pairs who each say they know the other; "
               f"{g['one_way_start']} -> {g['one_way_end']} one-way)") if g["asked"] else \
        f"not asked (named in memories: {g['named_start']:.3f} -> {g['named_by_hour'][-1][1]:.3f})"
    rows = [
        ("information diffusion", f"{d['start_pct']:.0%} -> {d['end_pct']:.0%} ({d['start']} -> {d['end']} of {d['n']})"
         + (f"; {len(d['with_related_memory'])} with a related memory" if d["interviewed"]
            else ", from memories (no interviews)")
         + (f", {len(d['with_related_memory_before'])} before it began" if c else ""), paper_diffusion),
        ("hallucinated knowledge", f"{len(d['hallucinated'])} ({', '.join(d['hallucinated']) or 'none'})",
         PAPER["hallucinated"]),
        ("network density", density, PAPER["density"]),
        ("pairs who chatted", f"{g['chatted_pairs']} (density {g['chatted_density']:.3f})"
         + (f"; the host with {len(g['host_chatted'])}" if "host_chatted" in g else ""), "-"),
    ]
    if e := result["exposure"]:
        rows.append(("exposure: prompts of those who knew that showed the news", f"{e['showed']} of {e['prompts']}"
                     f" ({_share(e['share'])}); the host {e['host']['showed']} of {e['host']['prompts']}", "-"))
    if leak := result["leakage"]:
        rows.append(("leakage: memory lines shown as the wrong speaker's", f"{leak['leaked']} of {leak['lines']}", "-"))
    if r := result["reflections"]:
        rows.append(("reflections per resident per game day", f"{r['per_day_mean']:.1f} ({r['per_day_min']:.1f}-"
                     f"{r['per_day_max']:.1f}) over {r['days']:.1f} days", PAPER["reflections"]))
    if c:
        rows.append(("coordination", f"{len(c['invited'])} invited, {len(c['planned'])} planned, "
                     f"{len(c['attended'])} attended ({len(c['invited_attended'])} of the invited, "
                     f"{len(c['planned_attended'])} of them with it in a plan or thought)"
                     + ("" if c["window_in_run"] else "; the window is after the run's end"), PAPER["coordination"]))
        rows.append(("commitment fidelity: of those (the host apart) whose plan held the event, at the place in its "
                     "window", f"{len(c['kept'])} of {len(c['committed'])}", "-"))
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
