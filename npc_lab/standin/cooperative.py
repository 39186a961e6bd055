"""The cooperative stand-in: it shares every piece of news it was shown, accepts every invitation,
names the place in every plan item and quotes its memories in interviews."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
import hashlib
import re
from typing import Any

from brain_server.model.names import addressing
from brain_server.prompts.converse_turn import END, GO_ON
from npc_lab.standin.reading import (
    DECLINED,
    MEMORY_DAY,
    NUMBERED,
    VERB_ARGUMENT,
    VERB_LINE,
    Draft,
    Fact,
    Prompt,
    _at_or_after,
    _facts,
    _hour_near,
    _mins,
    _minutes,
    _schedule_like,
    _times,
    _told,
    _unlead,
    activity_of,
    best_match,
    first_clause,
    importance,
    rarity,
    words,
)
from npc_lab.standin.schema import _enum_at, _resolve, conform

# "to ask everyone she meets", "to invite as many of her customers and friends as she can", "to ask
# whoever he meets to come"
MEET_PEOPLE = re.compile(r"\b(?:ask|invit|tell)\w*\b[^.;]{0,40}?\b(?:everyone|everybody|whoever|anyone|anybody|"
                         r"people|customers|friends|neighbou?rs|the town|the village)\b|\bspread the word\b", re.I)
INSIGHT = "learned that"  # how its insights read ("Ann Lee learned that ..."), to know them again when shown
# "She", "he", "they": a sentence about the persona itself.
PRONOUN = re.compile(r"^(?:she|he|they)\b", re.I)


def own_aims(currently: str, name: str) -> list[str]:
    """The sentences of a status in which `name` itself (by its name or a pronoun, not someone it
    heard of) means to ask, invite or tell people about something."""
    first = name.split()[0] if name else ""
    return [s for s in re.split(r"(?<=[.!?])\s+", currently) if MEET_PEOPLE.search(s)
            and first and (s.startswith((name, first)) or PRONOUN.match(s))]


# Workplaces shut on Saturdays and Sundays, by their names.
CLOSED_AT_WEEKENDS = re.compile(r"\b(?:school|classroom|office|surgery|clinic|bank|workshop|library|college|"
                                r"university|factory)\b", re.I)
# Rooms nobody gathers in (a cafe's kitchen is not the cafe).
PRIVATE = re.compile(r"\b(?:kitchen|bedroom|bathroom|main room|back room|storeroom|office)\b", re.I)
# Places people gather in, by their names.
GATHERING = re.compile(r"\b(?:inn|tavern|pub|taproom|bar|cafe|café|coffee|market|square|green|park|plaza)\b", re.I)
# "Tomas Reyes's room": whose place a place name says it is.
OWNER = re.compile(r"((?:[A-Z][\w-]*\s)*[A-Z][\w-]*)['’]s\b")

# --- the answers ------------------------------------------------------------------------------------


class StandIn:
    """One answer: a draft from the prompt, made valid for the schema by `conform`."""

    def __init__(self, body: dict[str, Any], seed: int = 0) -> None:
        self.p = Prompt.read(body)
        self.seed = seed

    @classmethod
    def of(cls, prompt: Prompt, seed: int = 0) -> StandIn:
        """A reader of an already read (or narrowed) prompt."""
        reader = cls.__new__(cls)
        reader.p, reader.seed = prompt, seed
        return reader

    def odds(self, *what: object) -> float:
        """A chance in [0, 1) that depends only on the seed and `what` is decided."""
        key = ":".join(str(w) for w in (self.seed, *what))
        return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 16**8

    def chance(self, salt: str) -> float:
        return ((self.p.seed(f"{self.seed}:{salt}") % 10_000) / 10_000)

    def answer(self) -> Any:
        schema = self.p.schema
        if not schema and GO_ON in self.p.text and END in self.p.text:  # a line of dialogue asked as plain text
            return self.spoken(self.turn())
        props = set(_resolve(schema, schema).get("properties", {})) if schema else set()
        draft = self.draft(props)
        if not schema:
            return draft
        return conform(draft, schema, schema, self)

    def draft(self, props: set[str]) -> Draft:
        if "talk" in props and "memos" in props:
            return self.told_group()
        if "talk" in props and "lines" in props:
            return self.told()
        if "utterance" in props:
            return self.turn() | ({"addressed_to": self.addressee()} if "addressed_to" in props else {})
        if "blocks" in props:
            return self.day_plan()
        if "new_blocks" in props:
            return self.replan()
        if "steps" in props:
            return self.steps()
        if "place" in props:
            return self.place()
        if "choice" in props:
            return self.react()
        if "ratings" in props:
            return {"ratings": [importance(b) for b in self.p.bullets()]}
        if "insights" in props:
            return self.insights()
        if "questions" in props:
            return self.questions()
        if "answer" in props:
            return {"answer": self.interview()}
        if "currently" in props:
            return {"currently": self.currently()}
        if "plan_activity" in props or ("summary" in props and self.p.dialogue()):
            return self.memo()
        if "summary" in props:
            return {"summary": self.relationship()}
        if "importance" in props:
            quoted = re.findall(r'"([^"]{3,})"', self.p.text)
            return {"importance": importance(max(quoted, key=len) if quoted else self.p.text)}
        return {}

    # Conversation.
    def partner(self) -> str:
        m = re.search(r"(?:talking with|conversation with|remembers about) ([^:.\n]+?)[:.\n]", self.p.text)
        return m.group(1).strip() if m else ""

    # What the hard-to-please stand-in (npc_lab/standin/hard.py) answers otherwise.
    def tells(self, f: Fact, listener: str, speaker: str = "") -> bool:
        """Whether `speaker` (this NPC when empty) passes this news on to `listener`: always."""
        return True

    def said(self, f: Fact, text: str) -> bool:
        """Whether `text` (lines already spoken) holds this news as this stand-in tells it."""
        return _told(f, text)

    def say(self, f: Fact) -> str:
        """How news is told: the line with its date and time spelled out."""
        return f.full()

    def reply(self, f: Fact, listener: str) -> str:
        """What `listener` answers to news: accepts what has a time, notes the rest."""
        if f.start is None:
            return f"I heard that {f.text}. Good to know!"
        return f"That sounds good, I will be there: {self.activity(f)} {f.when()}!"

    def activity(self, f: Fact) -> str:
        """A plan item's words for news: the line itself, place and all."""
        return activity_of(f)

    def memo_place(self, f: Fact, memo: str = "") -> Draft:
        """Where a plan item from a conversation happens, when the memo's schema (or its definition
        `memo`, where one call holds two memos) asks: none."""
        return {}

    def hedge(self, question: str) -> str:
        """A vague answer to an interview question instead of the memory it found: never."""
        return ""

    def turn(self) -> Draft:
        name, partner, said = self.p.name, self.partner(), self.p.dialogue()
        spoken = " ".join(t for _, t in said)
        mine = [f for f in self.p.news() if not self.said(f, spoken + self.shared_with(partner)) and self.tells(f, partner)]
        theirs = [f for f in self.p.ahead(self.p.facts(memory=False)) if f.speaker != name]
        answered = " ".join(t for s, t in said if s == name)
        news = [f for f in theirs if not _told(f, answered)]
        if news:
            return {"utterance": self.reply(news[-1], name), "end_conversation": len(said) >= 5 and not mine}
        if mine:
            return {"utterance": f"Have you heard? {self.say(mine[0])}.", "end_conversation": False}
        if not said:
            about = self.about(partner)
            return {"utterance": f"Hi{addressing(partner, ' ')}! " + (f"I remember that {about}." if about else "How are you doing?"),
                    "end_conversation": False}
        return {"utterance": f"It was good to talk{addressing(partner)}. See you around!", "end_conversation": True}

    def spoken(self, turn: Draft) -> str:
        """A line as the prompt asks for it: the words, then the tag on a line of its own."""
        return f"{turn['utterance']}\n{END if turn['end_conversation'] else GO_ON}"

    def addressee(self) -> str:
        """Whom a line in a group is for: whoever told the news it answers, else everyone."""
        theirs = [f for f in self.p.ahead(self.p.facts(memory=False)) if f.speaker != self.p.name]
        answered = " ".join(t for s, t in self.p.dialogue() if s == self.p.name)
        return next((f.speaker for f in reversed(theirs) if not _told(f, answered)), "everyone")

    def shared_with(self, person: str) -> str:
        """What the remembered conversations with `person` said (news already exchanged with them)."""
        return " ".join(b for b in self.p.bullets() if person and person in b.split("\n")[0] and "\n" in b)

    def about(self, person: str) -> str:
        """The shown line that says the most about `person` (not a schedule)."""
        lines = [line for b in self.p.bullets() if not _schedule_like(b) for line in b.split("\n")
                 if not line.endswith(":")]
        i, score = best_match(person, lines)
        return lines[i].rstrip(".") if i >= 0 and score > 0 else ""

    def memo(self) -> Draft:
        name, said = self.p.name, self.p.dialogue()
        partner = self.partner() or next((s for s, _ in said if s != name), "someone")
        gist = next((t for s, t in said if s != name), said[0][1] if said else "")
        props = _resolve(self.p.schema, self.p.schema).get("properties", {}) if self.p.schema else {}
        dated = any(re.search(r"date|day", k) for k in props)  # the schema can take another day
        declined = any(DECLINED.search(t) for s, t in said if s == name)
        heard = [f for f in self.p.ahead(self.p.facts(memory=False)) if f.speaker != name]  # not its own news
        return self._memo(name, partner, heard, gist, dated=dated, declined=declined)

    def _memo(self, name: str, partner: str, facts: list[Fact], gist: str, *, dated: bool,
              declined: bool = False, memo: str = "") -> Draft:
        """What `name` takes away from hearing `facts` from `partner`: the first as a plan item,
        unless `name` said it cannot come."""
        if not facts:
            summary = f"{name} chatted with {partner}" + (f", who said: {gist}" if gist else "")
            return {"summary": summary[:400], "importance": 2, "activity": "", "start": None, "minutes": 0}
        f = facts[0]
        summary = f"{name} heard from {partner}: {f.full()}"
        today = self.p.now.date() if self.p.now else None
        day = f.day or today
        if declined:
            summary += f"; {name} cannot go"
        if declined or f.start is None or day is None or (day != today and not dated):
            return {"summary": summary[:400], "importance": importance(f.text), "activity": "", "start": None,
                    "day": None, "minutes": 0}
        minutes = _minutes(f.start, f.end) if f.end else 60
        return {"summary": summary[:400], "importance": importance(f.text), "activity": self.activity(f),
                "start": f.start, "day": day, "minutes": minutes, **self.memo_place(f, memo)}

    def told(self) -> Draft:
        """A conversation told in one call: each speaker shares the first news among their own
        memories that the other has not heard from them, the other accepts it, and each memo takes
        away what the other said; with no news they talk by chance, as `react` would have them."""
        name = self.p.name
        m = re.search(r"\band sees ([^,\n]+?), who was", self.p.text)
        partner = m.group(1).strip() if m else "someone"
        mine, theirs = self._to_share(name, partner), self._to_share(partner, name)
        if not (mine or theirs or self.chance("talk") < 0.35):
            return {"talk": False, "lines": []}
        lines = [{"speaker": name, "text": f"Hi{addressing(partner, ' ')}! How are you doing?"}]
        heard: dict[str, list[Fact]] = {name: [], partner: []}
        replies: dict[str, str] = {name: "", partner: ""}
        for speaker, listener, news in ((name, partner, mine), (partner, name, theirs)):
            if news:
                told = f"Have you heard? {self.say(news[0])}."
                heard[listener] = self.heard(told, speaker)
                replies[listener] = self.reply((heard[listener] or news)[0], listener)
                lines += [{"speaker": speaker, "text": told}, {"speaker": listener, "text": replies[listener]}]
        if len(lines) == 1:
            lines.append({"speaker": partner, "text": f"Fine, thanks{addressing(name)}. See you around!"})
        gist = lambda speaker: next((line["text"] for line in lines[1:] if line["speaker"] == speaker), "")  # noqa: E731
        memo = lambda me, other, of: self._memo(me, other, heard[me], gist(other), dated=True,  # noqa: E731
                                                declined=bool(DECLINED.search(replies[me])), memo=of)
        return {"talk": True, "lines": lines, "first": memo(name, partner, "ConversationMemo"),
                "second": memo(partner, name, "PartnerMemo")}

    def told_group(self) -> Draft:
        """A conversation of three or more told in one call, as `told`: each shares the first news
        among its own memories that someone there has not heard from it, the others accept it,
        and each memo takes away the first news another told."""
        people = _enum_at(self.p.schema, "name")
        shares = {name: list({f.key(): f for other in people if other != name
                              for f in self._to_share(name, other)}.values())[:1] for name in people}
        if not (any(shares.values()) or self.chance("talk") < 0.35):
            return {"talk": False, "lines": [], "memos": []}
        lines = [{"speaker": people[0], "text": "Hi everyone! How are you doing?"}]
        replies: dict[str, str] = {}
        for speaker, news in shares.items():
            for f in news:
                told = f"Have you heard? {self.say(f)}."
                lines.append({"speaker": speaker, "text": told})
                shares[speaker] = self.heard(told, speaker) or news
                f = shares[speaker][0]
                for listener in people:
                    if listener != speaker:
                        replies.setdefault(listener, self.reply(f, listener))
                        lines.append({"speaker": listener, "text": self.reply(f, listener)})
        memos = []
        for name in people:
            teller = next((other for other in people if other != name and shares[other]), "")
            memo = self._memo(name, teller or ", ".join(o for o in people if o != name), shares.get(teller, []),
                              "", dated=True, declined=bool(DECLINED.search(replies.get(name, ""))))
            memos.append(memo | {"name": name})
        return {"talk": True, "lines": lines, "memos": memos}

    def heard(self, told: str, speaker: str) -> list[Fact]:
        """The news in a line as its listener takes it: the time said ("this evening"), which is
        what the listener answers to and plans by, not the teller's own note of it."""
        return self.p.ahead(_facts(_unlead(told), self.p.now, "dialogue", speaker, periods=self.p.periods))

    def _to_share(self, speaker: str, listener: str) -> list[Fact]:
        """News among what `speaker` remembers (its section of the prompt) not yet told to `listener`."""
        heard = Prompt(self.p.system, "", self.p.schema, self.p.under(f"What {speaker} remembers"), speaker, self.p.now,
                       periods=self.p.periods)
        heard.persona["currently"] = self.currently_of(speaker)  # what they are about: news, as in view
        return [f for f in heard.news() if not self.said(f, StandIn.of(heard, self.seed).shared_with(listener))
                and self.tells(f, listener, speaker)]

    def currently_of(self, person: str) -> str:
        """The "Currently:" line of `person`'s persona, where the prompt shows several."""
        name = ""
        for line in self.p.lines:
            if m := re.match(r"^(Name|Currently):\s*(.*)$", line.strip()):
                if m.group(1) == "Name":
                    name = m.group(2).strip()
                elif name == person:
                    return m.group(2).strip()
        return ""

    def relationship(self) -> str:
        partner = self.partner() or "them"
        about = self.about(partner)
        if about:
            return f"{partner} is someone {self.p.name} knows: {about}."
        return f"{self.p.name} does not know {partner} well yet."

    def react(self) -> Draft:
        offered = _enum_at(self.p.schema, "choice")
        talk_line = next((line for line in self.p.lines if re.search(r'"talk"', line)), "")
        can_talk = "talk" in (offered or ["talk"]) and bool(talk_line) and \
            not re.search(r"\b(not possible|busy|cannot)\b", talk_line)
        observed = self.p.quoted()[0] if self.p.quoted() else ""
        subject = self.p.dialogue_partner_of(observed)
        news = [f for f in self.p.news() if not self.said(f, self.shared_with(subject)) and self.tells(f, subject)]
        if can_talk and (news or self.chance("talk") < 0.35):
            reason = f"wants to tell them: {news[0].text}" if news else f"says hello after noticing: {observed}"
            return {"choice": "talk", "reason": reason[:300], "new_activity": ""}
        return {"choice": "continue", "reason": f"keeps to the plan after noticing: {observed}"[:300],
                "new_activity": ""}

    # Interviews and thoughts.
    def interview(self) -> str:
        question = next((q for q in reversed(self.p.quoted()) if "?" in q), self.p.quoted()[-1] if self.p.quoted() else "")
        lines = self.p.bullets()
        lines += [s for key in ("identity", "currently") for s in re.split(r"(?<=[.;])\s+", self.p.persona.get(key, ""))
                  if s]
        flat = [_unlead(line.replace("\n", " ")) for line in lines]
        focus = [w for w in dict.fromkeys(words(question)) if w not in words(self.p.name)]
        weights = rarity(flat)
        need = min(2, len(focus))
        hits = [(sum(weights.get(w, 0.0) for w in set(focus) & set(words(t))), len(set(focus) & set(words(t))), t)
                for t in flat]
        hits = [h for h in hits if h[1] >= need and h[1] > 0]
        if not hits:
            if m := re.match(r"(?:do|did) you (?:know|remember) (?:about |of )?(.+)", question.strip(" ?"), re.I):
                return f"No, I do not know {m.group(1)}."
            topic = re.sub(r"^(?:(?:do|did|have|has|what|who|when|where|how|are|is)\s+)?(?:you\s+)?(?:heard\s+)?"
                           r"(?:about\s+|of\s+)?", "", question.strip(" ?"), flags=re.I)
            return f"No, I have not heard anything about {topic}." if topic else "No, I could not say."
        best = max(hits, key=lambda h: (h[1], h[0]))[2]
        return self.hedge(question) or f"Yes. {best}"[:600]

    def currently(self) -> str:
        old = self.p.persona.get("currently", "").strip()
        news = [f for f in self.p.news() if f.shown_as == "memory"]
        news.sort(key=lambda f: not own_aims(f.text, self.p.name))  # what it resolved to do first
        add = next((f"{f.full()}." for f in news if not _told(f, old)), "")
        glue = (". " if not old.endswith(".") else " ") if old and add else ""
        return (old + glue + add)[:500] or f"{self.p.name} is going about the usual days."

    def questions(self) -> Draft:
        counts: dict[str, int] = {}
        for b in self.p.bullets():
            for n in re.findall(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b", b):
                if n != self.p.name:
                    counts[n] = counts.get(n, 0) + 1
        names = sorted(counts, key=lambda n: (-counts[n], n))
        qs = [f"What does {self.p.name} know about {n}?" for n in names[:3]]
        news = self.p.facts(dialogue=False)
        if news:
            qs.insert(0, f"What is {self.p.name} going to do about this: {news[0].text}?")
        return {"questions": qs or [f"What has {self.p.name} been doing lately?"]}

    def insights(self) -> Draft:
        numbered = [(int(m.group(1)), m.group(2)) for line in self.p.lines if (m := NUMBERED.match(line))]
        ranked = sorted(numbered, key=lambda s: (-importance(s[1]), s[0]))
        out = []
        for number, text in ranked[:5]:
            day = MEMORY_DAY.match(text)  # the statement's date stays with it, outside what is read
            lead = day.group(0) if day else ""
            flat = lead + _unlead(text[len(lead):].replace("\n", " "))
            about = (re.findall(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b", flat[len(lead):]) or ["daily life"])[0]
            out.append({"insight": f"{self.p.name} {INSIGHT} {flat}"[:300], "about": about, "evidence": [number],
                        "importance": importance(flat)})
            if aim := self.aim(flat):
                out.append({"insight": aim[:300], "about": about, "evidence": [number], "importance": importance(aim)})
        return {"insights": out[:5]}

    def aim(self, statement: str) -> str:
        """What reflecting on an event still to come that others hold makes of it: the wish to tell
        friends (as the paper's agents, reflecting, resolve to act), when it `takes_up` the event."""
        events = [f for f in self.p.ahead(_facts(statement, self.p.now, "memory")) if f.day and f.start]
        if not events or statement.startswith(self.p.name) or not self.takes_up(events[0]):
            return ""
        return f"{self.p.name} means to tell friends that {first_clause(events[0].text)}"  # its date kept

    def takes_up(self, f: Fact) -> bool:
        """Whether reflecting on this event makes it something to tell friends about: always."""
        return True

    # Plans and places.
    def places(self) -> list[str]:
        """The places the schema allows for a block (the prompt's list otherwise)."""
        found = _enum_at(self.p.schema, "address")
        return found or self.p.section("places")

    def where(self, text: str, places: Sequence[str] = ()) -> str:
        """What a line says about a place: without who does it (a person's name is not where they go,
        even when their home bears it), nor the names of those whose `places` are listed unless it
        names the place as theirs ("at Tomas Reyes's room"): living with someone says nothing of
        working in their room."""
        text = re.sub(r"^(?:going to:\s*)?(?:[A-Z][\w'-]*\s){1,3}(?=[a-z])", "", text)
        text = " ".join(w for w in text.split() if w.strip(".,:;'\"").removesuffix("'s") not in self.p.name.split())
        for owner in {m.group(1) for p in places for m in OWNER.finditer(p.rsplit(":", 1)[-1])}:
            if not re.search(rf"{re.escape(owner)}['’]s\b", text):
                text = re.sub(rf"\b{re.escape(owner)}\b", " ", text)
        return text

    def place_for(self, text: str, places: list[str], default: str) -> str:
        i, score = best_match(self.where(text, places), places, rarity(places))
        return places[i] if i >= 0 and score > 0 else default

    def day_plan(self) -> Draft:
        """The persona's usual day (its lifestyle's hours, at the place its text names most), with a
        block at the time of every dated line for today it was shown, at the place that line names."""
        p, places = self.p, self.places()
        home = places[0] if places else ""
        lifestyle = p.persona.get("lifestyle", "")
        wake = _hour_near(lifestyle, r"wak\w*|get\w* up|rise\w*") or 7
        bed = _hour_near(lifestyle, r"bed|sleep") or 23
        bed = bed if bed > wake + 8 else min(23, wake + 16)
        hours = sorted({t.hour for t in _times(lifestyle)} - {wake, bed})
        begin = max(hours[0] if hours else 9, wake + 1)
        finish = hours[-1] if len(hours) > 1 and hours[-1] > begin + 2 else max(begin + 4, 17)
        finish = min(finish, bed - 1)
        persona = " ".join(p.persona.get(k, "") for k in ("lifestyle", "identity", "currently"))
        others = places[1:] or places
        work = self.place_for(persona, others, others[0] if others else home)
        out = [x for x in others if x.rsplit(":", 1)[0] != home.rsplit(":", 1)[0]] or others
        today = p.now.date() if p.now else None
        meet = self.meeting_places(out, work, today) if self.means_to_meet_people(today) else []
        # where to eat drawn from the seed, the person and the day, not from the prompt's wording
        lunch = meet[0] if meet else out[int(self.odds("lunch", p.name, today or "") * len(out))] if out else home
        arena = lambda a: a.rsplit(":", 1)[-1]  # noqa: E731
        # a school, an office or a workshop is shut at the weekend the prompt's date names
        closed = today is not None and today.weekday() >= 5 and bool(CLOSED_AT_WEEKENDS.search(work.split(":", 1)[-1]))
        working = ("relaxing on a day off", "🛋️", home) if closed else (f"busy at the {arena(work)}", "💼", work)
        plan = [(wake * 60, "waking up and getting ready", "🪥", home),
                (wake * 60 + 30, "having breakfast", "🍳", home), (begin * 60, *working)]
        if begin < 12 < finish - 1:
            plan += [(12 * 60, f"having lunch at the {arena(lunch)}", "🥪", lunch), (13 * 60, *working)]
        dinner = max(finish, 18) * 60 + 30
        rounds = [(finish * 60 + 60 * i, "asking people to come along", "📣", place) for i, place in enumerate(meet[:2])
                  if finish * 60 + 60 * (i + 1) <= dinner]
        evening = [(dinner + 60, "relaxing at home", "🛋️", home)] if dinner + 60 < bed * 60 else []  # dinner takes an hour
        plan += [*rounds, (finish * 60 + 60 * len(rounds), "relaxing at home", "🛋️", home),
                 (dinner, "having dinner", "🍲", home), *evening, (bed * 60, "sleeping", "😴", home)]
        if closed and (outing := (meet or self.meeting_places(out, work, today))[:1]):
            # a day off has an outing among people, as the brain's own routine has (14:00-16:00)
            after = max((b for b in plan if b[0] <= 16 * 60), key=lambda b: b[0])
            plan = [b for b in plan if not 14 * 60 <= b[0] <= 16 * 60]
            plan += [(14 * 60, f"relaxing at the {arena(outing[0])}", "🚶", outing[0]), (16 * 60, *after[1:])]
        plan = sorted({b[0]: b for b in plan}.values())
        events = [f for f in p.facts(dialogue=False) if f.start and f.day == today]
        for f in events:
            begin, end = _mins(f.start), _mins(f.end) if f.end else _mins(f.start) + 60
            if not wake * 60 < begin < bed * 60:
                continue
            end = min(max(end, begin + 15), bed * 60 - 5)
            resume = max(((s, a, e, ad) for s, a, e, ad in plan if s <= end), key=lambda x: x[0])
            plan = [b for b in plan if not begin <= b[0] < end]
            plan += [(begin, self.activity(f), "📅", self.place_for(f.text, places, work))]
            if resume[1] != "sleeping" and all(b[0] != end for b in plan):
                plan.append((end, resume[1], resume[2], resume[3]))
        plan.sort(key=lambda b: b[0])
        blocks = []
        for (start, activity, emoji, address), nxt in zip(plan, [*plan[1:], None], strict=True):
            minutes = (nxt[0] - start) if nxt else 8 * 60
            blocks.append({"start": f"{start // 60 % 24:02d}:{start % 60:02d}", "duration_minutes": max(5, minutes),
                           "activity": activity, "emoji": emoji, "address": address})
        outline = [b["activity"] + f" at {b['start']}" for b in blocks if b["activity"] != "sleeping"]
        return {"wake_up_hour": wake, "outline": outline[:8], "blocks": blocks}

    def means_to_meet_people(self, today: date | None) -> bool:
        """Whether the persona's status says it means to ask, invite or tell people about something
        not yet past ("... and to ask everyone she meets to come along"): a model given that plans
        its free hours where people are."""
        for aim in own_aims(self.p.persona.get("currently", ""), self.p.name):
            days = [f.day for f in _facts(aim, self.p.now, "persona") if f.day]
            if not days or today is None or max(days) >= today:
                return True
        return False

    def meeting_places(self, out: list[str], work: str, today: date | None) -> list[str]:
        """Where it would go to find people: the places it knows that people gather in (an inn, a
        market, a green), then the other places away from home; each kind in an order drawn from
        the seed, the person and the day. A workplace where people gather (a cafe) comes first: they
        come to it."""
        away = [x for x in out if x != work and not PRIVATE.search(x.rsplit(":", 1)[-1])]
        gather = [x for x in away if GATHERING.search(x.split(":", 1)[-1])]
        # by its room's name: a bakery in a market hall is not where people gather
        found = [work] if GATHERING.search(work.rsplit(":", 1)[-1]) else []
        for kind in (gather, [x for x in away if x not in gather]):
            turn = int(self.odds("meet", self.p.name, today or "") * len(kind))
            found += kind[turn:] + kind[:turn]
        return found

    def replan(self) -> Draft:
        p, places = self.p, self.places()
        starts = _enum_at(p.schema, "start")
        planned = [m for line in p.section("Planned so far") if (m := re.match(
            r"(\d{1,2}:\d{2})-\d{1,2}:\d{2}\s+(.*?)\s+\(([^()]*)\)$", line))]
        blocks = [{"start": _at_or_after(m.group(1), starts), "activity": m.group(2), "emoji": "🗓️",
                   "address": m.group(3)} for m in planned]
        today = p.now.date() if p.now else None
        for f in p.news():
            if f.start and f.day == today and f"{f.start:%H:%M}" in starts[1:]:
                blocks.append({"start": f"{f.start:%H:%M}", "activity": self.activity(f), "emoji": "📅",
                               "address": self.place_for(f.text, places, places[0] if places else "")})
        blocks = list({b["start"]: b for b in sorted(blocks, key=lambda b: b["start"])}.values())
        if blocks and starts:
            blocks[0]["start"] = starts[0]
        return {"new_blocks": blocks[:6] or [{"start": starts[0] if starts else "", "activity": "carrying on",
                                              "emoji": "🙂", "address": places[0] if places else ""}]}

    def steps(self) -> Draft:
        m = re.search(r"\((\d+) minutes\) .*? is (.+), at ([^\n]+?)\.\s*$", self.p.text, re.M)
        activity = m.group(2) if m else "getting on with it"
        minutes = int(m.group(1)) if m else 30
        node = _resolve(self.p.schema, self.p.schema.get("properties", {}).get("steps", {}))
        count = max(1, node.get("minItems", 1))
        objects = [o for o in _enum_at(self.p.schema, "object") if o]
        thing = self.place_for(activity, objects, "") if objects else ""
        names = [f"starting: {activity}", activity, f"finishing: {activity}"]
        steps = []
        for i in range(count):
            label = names[0] if i == 0 and count > 2 else names[2] if i == count - 1 and count > 2 else names[1]
            steps.append({"activity": label[:80], "duration_minutes": max(5, min(15, minutes // count)),
                          "object": thing, "object_state": "in use" if thing else "", "verb": "", "arguments": []})
        if verb := self.verb_for(activity):
            steps[0].update(verb)
        return {"steps": steps}

    def verb_for(self, doing: str) -> Draft:
        """The offered verb whose description shares the most telling words with what the step does
        (its object the first it applies to, each argument its first choice or its least value), or {}."""
        offered = [m for m in VERB_LINE.finditer(self.p.text) if m.group(1) in _enum_at(self.p.schema, "verb")]
        if not offered:
            return {}
        texts = [m.group(3) for m in offered]
        i, score = best_match(self.where(doing), texts, rarity(texts))
        if i < 0 or score <= 0:
            return {}
        chosen = offered[i]
        arguments = [{"name": a.group(1), "value": a.group(2) or a.group(3)}
                     for a in VERB_ARGUMENT.finditer(chosen.group(4) or "")]
        step: Draft = {"verb": chosen.group(1), "arguments": arguments}
        if chosen.group(2):
            step.update(object=chosen.group(2).split(" or the ")[0], object_state="in use")
        return step

    def place(self) -> Draft:
        m = re.search(r'about to do this: "([^"]*)"', self.p.text)
        activity = m.group(1) if m else self.p.text
        branches = _resolve(self.p.schema, self.p.schema.get("properties", {}).get("place", {})).get("anyOf", [])
        options = [(b["properties"]["sector"]["enum"][0], b["properties"]["arena"]["enum"][0],
                    b["properties"]["object"]["enum"]) for b in branches if "properties" in b]
        if not options:
            return {"place": {}}
        labels = [f"{s} {a}" for s, a, _ in options]
        i, score = best_match(self.where(activity), labels, rarity(labels))
        sector, arena, objects = options[i if i >= 0 and score > 0 else 0]
        things = [o for o in objects if o]
        j, hit = best_match(activity, things) if things else (-1, 0)
        return {"place": {"sector": sector, "arena": arena, "object": things[j] if j >= 0 and hit > 0 else ""}}
