"""The hard-to-please stand-in: the cooperative one's reading of the prompt, answering as a
person who is not always interested. Still prompt-only and seeded. It

- declines invitations and says so ("Sorry, I can't make it"): when the prompt shows its
  schedule (lines "HH:MM-HH:MM activity", under a heading that names its day or none) it accepts
  only when nothing but free time overlaps the event, and when no schedule is shown it declines
  a share `RATES.decline`; a declined invitation becomes no plan item;
- forgets news: a share `RATES.forget` of (speaker, listener, news, day) is never passed on, when
  one kind of its memories shown brings the news back; `forget ** k` when k kinds do (what it
  heard, what it reflected on, what it planned for: `reminders`), as a model brings up most readily
  what its prompt keeps returning to; it never tells the same news twice in one conversation;
- paraphrases times ("tomorrow evening", "on Saturday after work"; the clock itself a share
  `RATES.exact_time`), and takes a paraphrase it hears for an hour (PERIODS in reading.py);
- leaves place names out of its plan items' activity text (where a schema asks for a place, it
  still names the one the news names, as a model filling that field would);
- answers a share `RATES.vague` of interview questions vaguely, with or without the topic;
- reflecting on an event still to come, means to tell friends about it for a share `RATES.take_up`
  of them (the cooperative one always);
- writes a share `RATES.off_format` of its plain-text lines in another form (in quotes, after its
  name, as JSON, the tag on the same line or left out), as models that half follow a format do.

Every chance is a hash of the seed and what is decided (who, whom, which news, which day), not
of the whole prompt: a person who forgot to tell a neighbour forgets it all that day.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, timedelta
import json
import re
from typing import Any

from brain_server.prompts.converse_turn import END, GO_ON
from npc_lab.standin.cooperative import INSIGHT, StandIn, own_aims
from npc_lab.standin.reading import (
    ACCEPT,
    AMPM,
    BULLET,
    CLOCK,
    DAY_MONTH,
    DECLINE,
    MONTH_DAY,
    MONTHS,
    NOON,
    ON_WEEKDAY,
    PERIOD,
    RELATIVE,
    WEEKDAYS,
    Draft,
    Fact,
    _day_of,
    _mins,
    _told,
    activity_of,
    first_clause,
    words,
)
from npc_lab.standin.schema import _enum_at


@dataclass(frozen=True)
class Rates:
    """How hard to please: the one place its rates are set (docs/evaluation.md reports them)."""

    decline: float = 0.3  # invitations declined when no schedule is shown to check
    forget: float = 0.8  # news a speaker does not pass on to a listener that day (** kinds of reminders)
    exact_time: float = 0.25  # news told with its clock time (else "tomorrow evening", "after work")
    vague: float = 0.2  # interview answers that stay vague
    take_up: float = 0.4  # events still to come that reflecting on makes it mean to tell friends about
    off_format: float = 0.3  # plain-text lines written otherwise: quoted, after the name, as JSON, tag inline


RATES = Rates()
# "- 17:00-19:00 activity (place)": a schedule's line, as the brain's prompts list plans.
SCHEDULE_LINE = re.compile(r"^\s*-?\s*([01]?\d|2[0-3]):([0-5]\d)\s*[-–]\s*([01]?\d|2[0-4]):([0-5]\d)\s+(.+?)\s*$")
# Blocks that do not stop anyone from going out.
FREE = re.compile(r"\b(free|relax\w*|rest\w*|nothing|idle|leisure|unwind\w*|break)\b", re.I)
# A meal of one's own is moved for an evening out, as people do; one with someone is not.
OWN_MEAL = re.compile(r"^(?:having|eating) (?:dinner|supper)\b(?!.*\bwith\b)", re.I)
_WHEN = rf"(?:{MONTH_DAY.pattern}|{DAY_MONTH.pattern}|{ON_WEEKDAY.pattern}|{RELATIVE.pattern}|{AMPM.pattern}|" \
        rf"{CLOCK.pattern}|{NOON.pattern}|{PERIOD.pattern})"
# A time or date with the words that tie it to the sentence ("on February 14 from 5 pm to 7 pm").
WHEN_PHRASE = re.compile(rf"(?:\s*,?\s*\b(?:on|from|at|until|till|to|between|and|in the|around|by)\b)*\s*{_WHEN}", re.I)
PLAN_MEMORY = "'s plan for "  # a plan memory ("Ann Lee's plan for Friday February 13: ...")
PLACE_NOTE = re.compile(r"\s*\([^)]*\)$")  # a schedule line's "(place)"
# "at Pier Market", "from the Harbour": a place named in a sentence.
PLACE_WORDS = "at|in|to|from|on|near|outside"
AT_PLACE = re.compile(rf"\s+\b(?:{PLACE_WORDS})\s+(?:the\s+)?(?:[A-Z][\w'’-]*\s?)+")


class HardStandIn(StandIn):
    """One answer of the hard-to-please stand-in (see the module's docstring)."""

    def __init__(self, body: dict[str, Any], seed: int = 0, rates: Rates = RATES) -> None:
        super().__init__(body, seed)
        self.p.periods = True
        self.rates = rates

    def _today(self) -> date | None:
        return self.p.now.date() if self.p.now else None

    def tells(self, f: Fact, listener: str, speaker: str = "") -> bool:
        """Never forgets what its own status says it means to ask everyone about (a model reads that
        aim in every prompt); other news it forgets to pass on by the day's draw, the less often the
        more kinds of its memories bring it back."""
        teller = speaker or self.p.name
        currently = self.p.persona.get("currently", "") if teller == self.p.name else self.currently_of(teller)
        if any(_told(f, aim) for aim in own_aims(currently, teller)):
            return True
        topic = " ".join(sorted(set(words(_bare(f.text))))[:6])
        forget = self.rates.forget ** max(1, len(self.reminders(f, teller)))
        return self.odds("forget", teller, listener, topic, self._today()) >= forget

    def reminders(self, f: Fact, teller: str) -> set[str]:
        """The kinds of the teller's memories shown that bring this news back: "heard" (a
        conversation, a memo, a whisper), "reflected" (an insight), "planned" (a schedule line or an
        item of a plan memory), "stated" (the lines after the clock say it is on the teller's mind:
        a conversation's prompt states it there, and leaves the memories that restate it out)."""
        lines = self.p.bullets() if teller == self.p.name else [
            m.group(1) for line in dict.fromkeys([*self.p.under(f"What {teller} has planned"),
                                                  *self.p.under(f"What {teller} remembers")])
            if (m := BULLET.match(line))]
        kinds = set()
        for line in lines:
            if SCHEDULE_LINE.match(line) or PLAN_MEMORY in line:
                if any(_same(part, f.text) for part in re.split(r";\s*", line)):
                    kinds.add("planned")
            elif _told(f, line):
                kinds.add("reflected" if INSIGHT in line else "heard")
        if teller == self.p.name and any(_told(f, line) for line in self.p.context()):
            kinds.add("stated")
        return kinds

    def takes_up(self, f: Fact) -> bool:
        """A share `RATES.take_up` of events, by person and event."""
        return self.odds("take up", self.p.name, _core(f)) < self.rates.take_up

    def said(self, f: Fact, text: str) -> bool:
        """Told already, whole or as `say` tells it: its first clause without its time."""
        return _told(f, text) or _told(replace(f, text=_core(f)), text)

    def say(self, f: Fact) -> str:
        if f.start is None or self.odds("exact", self.p.name, f.text, self._today()) < self.rates.exact_time:
            return f.full()
        return f"{_core(f)} {self.paraphrase(f)}"

    def paraphrase(self, f: Fact) -> str:
        """The event's day and time as people say them: "this evening", "tomorrow after work"."""
        assert f.start is not None
        hour = f.start.hour
        part = "morning" if hour < 12 else "afternoon" if hour < 17 else "evening" if hour < 20 else "night"
        if part == "evening" and self.odds("after work", self.p.name, f.text) < 0.4:
            part = "after work"
        today = self._today()
        day = f.day or today
        if today is None or day is None or day == today:
            return {"night": "tonight", "after work": "after work today"}.get(part, f"this {part}")
        if day == today + timedelta(days=1):
            return f"tomorrow {part}" if part != "night" else "tomorrow night"
        if day < today + timedelta(days=7):
            return f"on {WEEKDAYS[day.weekday()].title()} {part}"
        return f"on {MONTHS[day.month - 1].title()} {day.day} in the {part}"

    def reply(self, f: Fact, listener: str) -> str:
        if f.start is None:
            return super().reply(f, listener)
        busy = self.busy(f, listener)
        if busy is None:
            declines = self.odds("decline", listener, _bare(f.text), f.day) < self.rates.decline
            busy = "I have other plans" if declines else ""
        if busy:
            return f"{DECLINE}: {busy}."
        return f"{ACCEPT}, {self.paraphrase(f)}!"

    def busy(self, f: Fact, listener: str) -> str | None:
        """What `listener`'s shown schedule has at the event's time ("" when free); None when the
        prompt shows no schedule for that day."""
        assert f.start is not None
        day = f.day or self._today()
        begin = _mins(f.start)
        end = _mins(f.end) if f.end else begin + 60
        blocks = self.schedule(listener).get(day)
        if blocks is None:
            return None
        for start, stop, activity in blocks:
            if start < end and begin < stop and not FREE.search(activity) and not OWN_MEAL.search(activity) \
                    and not _same(activity, f.text):
                return f"I am {PLACE_NOTE.sub('', activity)} then"
        return ""

    def schedule(self, person: str) -> dict[date | None, list[tuple[int, int, str]]]:
        """The schedule lines the prompt shows for `person`, by day: those under a heading naming
        them when the prompt speaks for two, else all; a heading's date (else today) is their day."""
        two = "What " in self.p.text and self.p.text.count(" remembers") >= 2
        out: dict[date | None, list[tuple[int, int, str]]] = {}
        day, mine = self._today(), not two
        for line in self.p.lines:
            m = SCHEDULE_LINE.match(line)
            if not m:
                if line.strip() and not line.lstrip().startswith("-"):
                    day = _day_of(line, self.p.now) or self._today()
                    mine = not two or person in line
                continue
            if mine:
                start = int(m.group(1)) * 60 + int(m.group(2))
                out.setdefault(day, []).append((start, int(m.group(3)) * 60 + int(m.group(4)), m.group(5)))
        return out

    def activity(self, f: Fact) -> str:
        text = activity_of(Fact(_bare(f.text), f.day, f.start, f.end, f.shown_as))
        places = [part for p in self.places() for part in p.split(":")[1:]]
        for place in sorted(places, key=len, reverse=True):
            text = re.sub(rf"\s*\b(?:(?:{PLACE_WORDS})\s+)?(?:the\s+)?{re.escape(place)}\b", "", text, flags=re.I)
        return AT_PLACE.sub("", text).strip(" ,.") or "going out"

    def memo_place(self, f: Fact, memo: str = "") -> Draft:
        schema = self.p.schema.get("$defs", {}).get(memo, self.p.schema)
        for key in ("plan_place", "place", "address"):
            places = [p for p in _enum_at(schema, key) if p]
            if places:
                return {key: self.place_for(f.text, places, "")}
        return {}

    def spoken(self, turn: Draft) -> str:
        """A share `RATES.off_format` of lines in a form the prompt did not ask for, as models write them."""
        chance = self.odds("format", self.p.name, self.p.text[-200:])
        if chance >= self.rates.off_format:
            return super().spoken(turn)
        words, tag = turn["utterance"], END if turn["end_conversation"] else GO_ON
        forms = (f'"{words}"\n{tag}', f"{self.p.name}: {words} {tag.upper()}", json.dumps(turn),
                 f'{self.p.name.split()[0] if self.p.name else "Me"}: "{words}"')
        return forms[int(chance / self.rates.off_format * len(forms))]

    def hedge(self, question: str) -> str:
        if self.odds("vague", self.p.name, question) >= self.rates.vague:
            return ""
        topic = re.sub(r"^(?:do|did|have|has|what|who|when|where|how|are|is)\s+(?:you\s+)?(?:know|heard|hear)?\s*"
                       r"(?:about\s+|of\s+)?", "", question.strip(" ?"), flags=re.I)
        if topic and self.odds("vague topic", self.p.name, question) < 0.5:
            return f"Hmm, I think someone mentioned {topic} to me, I'm fuzzy on the details."
        return "Hmm, maybe? It's hard to say."


def _bare(text: str) -> str:
    """A sentence without its dates and times."""
    return re.sub(r"\s{2,}", " ", re.sub(r"\s*\(\s*\)", "", WHEN_PHRASE.sub("", text))).strip(" ,")


def _core(f: Fact) -> str:
    """News as told in a paraphrase: its first clause, without its dates and times."""
    return first_clause(_bare(f.text))


def _same(activity: str, news: str) -> bool:
    """Whether a schedule block is the event itself (already planned)."""
    mine, there = set(words(_bare(news))), set(words(activity))
    return bool(mine) and len(mine & there) >= 0.5 * min(len(mine), len(there) or 1)
