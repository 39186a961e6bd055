"""What a text says happens: the statement of an event's thought that says what there will be and
when (`what_clause`, `_what_at`), what the event is called (`event_named`), who may come
(`who_may_come`), how it came about (`before_when`), and the thought with the host's act first
(`act_first`). `said_clock` reads the days and times these statements say."""

from __future__ import annotations

import re

from brain_server.cognition.offline.heard import EVENT, HOSTED, NAMED_FIRST, SENTENCE, event_in, named_first
from brain_server.cognition.offline.said_clock import more_than_when, says_when


def after_when(text: str) -> str:
    """`text` from its first comma clause that says more than when, where it opens with clauses that
    say only when; else `text`. News passed on as "Tomorrow (Thursday November 19), between two and
    four in the afternoon, there will be indigo dyeing ..." was told by blind22 as "Netta Bramall is
    going to Tomorrow": a model took its first words for what it is. A clause that goes on from the
    one before ("..., but I can't make it") is not where what it is begins: an event whose name
    says nothing but when ("the be up there tomorrow (Thursday June 11)", blind31's) was told as
    "but I can't make it"."""
    rest = text
    while (parts := rest.partition(","))[1] and not more_than_when(parts[0]) and not _COLON.search(parts[0]) \
            and not SENTENCE.search(parts[0]):
        rest = parts[2].lstrip()
    return rest if rest != text and more_than_when(rest) and not _AND.match(rest) else text


def event_named(said: str, *, anywhere: bool = False) -> str:
    """What an event's news calls it: "wants to teach a Morse code lesson ..." is "a Morse code
    lesson" (the intent at its start, or `anywhere` in it), "there will be indigo dyeing ..."
    "indigo dyeing", "A flotsam auction in the boat hall ..." "a flotsam auction"; "" where it names
    none ("the Workshop is open to anybody")."""
    what = what_clause(said)
    pattern = EVENT if anywhere else HOSTED  # a host's own event is read with its verbs (`HOSTED`)
    match = (pattern.search if anywhere else pattern.match)(said) or event_in(what, pattern) or named_first(what)
    if match is None:
        return ""
    found = match["what"]
    return found[0].lower() + found[1:] if NAMED_FIRST.match(found) else found


def what_clause(text: str) -> str:
    """What a text says happens, and when: its first statement (to a sentence's end, a semicolon or
    a colon) that says when, else its first, from its first comma clause that says more than when
    to the first that says when (all of it, if none does).
    "On Saturday April 11, between 10 in the morning and noon, the Workshop is open to anybody ..."
    is about the Workshop's opening, not "On Saturday April 11", which a host's plan showed as
    "hosting: On Saturday April 11" (blind18's writer); "Anyone whose bicycle squeaks, wobbles or
    won't change gear can wheel it round to ... on Saturday" is not "Anyone whose bicycle squeaks";
    and what follows a colon ("A flotsam auction ..., on October 15 ...: Sorcha Gault is getting it
    up herself ...") is why, not what. A whisper that began with how the event came about ("In a
    cupboard at the Surgery Lena came across a bundle of old letters; tomorrow, one o'clock to three,
    she will read some of them aloud in the nave ...") is about the reading, not the cupboard. Where
    the statement that says when says nothing more ("On Thursday she will be up there from half past
    five in the morning, when the sun comes over the ridge, until ..."), what happens is the first
    statement before it that says more than when ("Under the overhang at Kef Rock ... there are
    engravings of giraffes"): read from the clauses after the hour, a town's first untuned whisper of
    its kind was told as "an event they are hosting: when the sun comes over the ridge, ...". Where the
    statement after the one that says when says what happens then ("The moon is full on the 3rd and
    rises over the dunes at nine. That is the one night Ned can fly his owl kite: ..."), it is that
    ("Ned can fly his owl kite"), not the moonrise."""
    every = _all_statements(text)
    at = _what_at(every)
    after = every[at + 1].strip() if at + 1 < len(every) else ""
    if says_when(every[at]) and (then := _THEN.match(after)) and _says_what(done := after[then.end():].rstrip(".!? ")):
        return done  # what happens at the time the statement before said ("That is when ...")
    statements = [s.split(",") for s in every[:at + 1]]
    # the statement that says when, else (it says when and no more) the first before it that says more,
    # else the one after it ("Thursday, 5 pm: Greta's lantern procession sets off from ...")
    after_at = [every[at + 1].split(",")] if at + 1 < len(every) else []
    clauses = next((c for c in (statements[-1], *statements[:-1], *after_at) if any(map(_says_what, c))), statements[-1])
    start = next((i for i, c in enumerate(clauses) if _INTENT.search(c)), None)
    if start is None or any(map(_says_what, clauses[:start])) and not _AND.match(clauses[start].strip()):
        start = next((i for i, c in enumerate(clauses) if _says_what(c)), 0)
    end = next((i for i in range(start, len(clauses)) if says_when(clauses[i])), len(clauses) - 1)
    return _AND.sub("", ",".join(clauses[start:end + 1]).strip())


def act_first(text: str, name: str) -> str:
    """`text` (a thought of `name`'s own event) with the statement that says what `name` will do
    first, where the statement that says when opened it with a circumstance (`_what_at`: "Tomorrow the
    sun comes back to <the town>. ... He will set the sundial ..."): put back whole into a status,
    Ravnholmen's thought opened with the sun and was cut before the sundial, and a model copying the
    status's first sentence (blind33's declared habit) told the sun. Its pronoun is `name`."""
    every = _all_statements(text)
    at = _what_at(every)
    first = next((i for i, s in enumerate(every) if says_when(s)), 0)
    sentence = every[at].strip()
    whole = sentence in (s.strip() for s in SENTENCE.split(text))  # a sentence of its own, no clause before it
    if at == first or not whole or not _WILL_DO.match(sentence) or _REFERS_BACK.search(sentence):
        return text
    said = re.sub(r"^(?:[Hh]e|[Ss]he|[Tt]hey)\b", name, sentence)
    return " ".join([said, *(s.strip() for s in SENTENCE.split(text) if s.strip() != sentence)])


_REFERS_BACK = re.compile(r"\b(?:it|them)\b", re.IGNORECASE)  # "will climb it": what it is is said before


def _says_what(clause: str) -> bool:
    """Whether a comma clause says more than when and who: not only days, dates, hours and names
    ("On Sunday Rosa Vane will be up there from six"), nor a time said by what happens then ("when the
    sun comes over the ridge")."""
    first, _, rest = clause.strip().partition(" ")
    return more_than_when(f"{first} {_NAME.sub('', rest)}") and not _TIME_CLAUSE.match(clause)


_NAME = re.compile(r"\b[A-Z][\w'\u2019-]*")  # a capitalised word after a clause's first: a name
# A statement that opens by pointing back at a time said before it: "That is when", "That's the only time".
_THEN = re.compile(r"(?:that|this|it)(?:['\u2019]s|\s+is|\s+will\s+be)\s+(?:when|then|(?:the\s+)?(?:(?:only|one|best|last)"
                   r"\s+)?(?:time|moment|hour|night|evening|morning|day|chance)(?:\s+(?:when|that))?)\s+", re.IGNORECASE)
_TIME_CLAUSE = re.compile(r"\s*(?:when|whenever|until|till|while|once|as soon as)\b", re.IGNORECASE)


_COLON = re.compile(r";|(?<!\d):|:(?!\d)")  # a clock's colon ("10:30") ends nothing


def who_may_come(text: str) -> str:
    """Who an event is for, where a statement after the one `what_clause` reads says it: from its
    comma clause that names anyone or everyone nearest before what they may do, to the statement's
    end ("" if none). blind21 told Cauldwell only "indigo dyeing in the drying shed at Bramall's
    Laundry": its whisper's "...: she has kept a vat going ..., and anyone who brings something pale
    ... may dip it" never reached the host's line, and nobody came; the host's asking ("she will
    tell whoever she runs into") is not who may come."""
    statements = _all_statements(text)
    at_read, read = _what_at(statements), what_clause(text)  # only what follows what it reads counts
    after = statements[at_read].partition(read)[2] if read in statements[at_read] else ""
    for statement in (after, *statements[at_read + 1:]):
        clauses = statement.split(",")
        may = next((i for i, c in enumerate(clauses) if _MAY.search(c)), None)
        if may is None:
            continue
        # of those named before what they may do, the nearest
        at = max((i for i, c in enumerate(clauses[:may + 1]) if _ANYONE.search(c)), default=None)
        if at is None:
            continue
        said = _AND.sub("", ",".join(clauses[at:]).strip()).rstrip(".")
        if not _ASKING.search(said):
            return said
    return ""


_ANYONE = re.compile(r"\b(?:any|every)(?:one|body)\b|\bwhoever\b|\ball (?:are|comers)\b", re.IGNORECASE)
_MAY = re.compile(r"\b(?:may|can|could|welcome|invited|free to|should come)\b", re.IGNORECASE)
_ASKING = re.compile(r"\b(?:tells?|told|ask(?:s|ed)?|runs? into|meets?)\b", re.IGNORECASE)
_AND = re.compile(r"^(?:and|but|so)\s+", re.IGNORECASE)


def before_when(text: str) -> str:
    """The statements of a text before the one `what_clause` reads ("" if it reads the first), as the
    text says them (a colon kept: joined, "made up their mind: on Wednesday it goes ..." read "made up
    their mind  on Wednesday"): how the event came about, which says what "them" in "read some of them
    aloud" is."""
    statements, at = _statements(text), 0
    for statement in statements[:-1]:
        at = text.index(statement.strip(), at) + len(statement.strip())
    return text[:at].strip() if len(statements) > 1 else ""


def first_statement(text: str) -> str:
    """A text's first statement (`_all_statements`), which the text, stripped, begins with."""
    return _all_statements(text)[0]


def _all_statements(text: str) -> list[str]:
    """A text's statements: its sentences, split at semicolons and colons."""
    return [part for sentence in SENTENCE.split(text.strip()) for part in _COLON.split(sentence)]


def _what_at(statements: list[str]) -> int:
    """Which of a text's statements `what_clause` reads: its first that says when, else its first;
    but where that one is a circumstance (it says nothing of anyone: no intent, `EVENT`, no person,
    `_PERSONAL`) and a later statement says what a person will do (`_WILL_DO`: "He will set the
    sundial ...", not "he will be up there"), that one: an untuned town's whisper opened with the
    day's circumstance ("Tomorrow the sun comes back to <the town>.") and said the host's act three
    statements on, and the host's news, plan and listeners all held "Tomorrow the sun comes back" as
    his event. An event a host's verb holds without an article ("Netta will hold indigo dyeing ...") is
    no circumstance either (`HOSTED`). "Anyone whose bicycle squeaks ... can wheel it round ... on Saturday" is no circumstance."""
    when = next((i for i, s in enumerate(statements) if says_when(s)), 0)
    if HOSTED.search(statements[when]) or _INTENT.search(statements[when]) or _PERSONAL.search(statements[when]):
        return when
    return next((i for i in range(when + 1, len(statements)) if _WILL_DO.search(statements[i].strip())), when)


_PERSONAL = re.compile(r"\b(?:he|she|they|we|I|you|any(?:one|body)|every(?:one|body)|whoever|some(?:one|body)|people)\b",
                       re.IGNORECASE)
# A statement saying what a person will do: a pronoun or a name, then "will" and a verb other than "be".
# (at the statement's start or after a clause before it: "Before it does, Greta will climb it ...")
_WILL_DO = re.compile(r"(?:^|(?<=,\s))(?:[Hh]e|[Ss]he|[Tt]hey|(?!(?:The|A|An|It|This|That|There|Then|Now)\b)"
                      r"(?:[A-Z][\w'\u2019-]*\s+){1,3}?)\s*(?:will|['\u2019]ll)\s+(?!be\b)[a-z]+")
# Someone's intent, with or without what it is named ("means to skate from the Top Lock"; `EVENT` wants a named thing).
_INTENT = re.compile(r"\b(?:wants|plans|means|hopes|intends|is going|is planning|is hoping|has decided|would like)\s+to\s+\w+",
                     re.IGNORECASE)


def _statements(text: str) -> list[str]:
    """A text's statements up to the one `what_clause` reads."""
    statements = _all_statements(text)
    return statements[:_what_at(statements) + 1]
