"""The interview questions: five categories from a TOML file (questions.toml beside this module,
or the user's own), filled in per resident so that memory and reflection questions name someone
the resident actually knows and the scenario's news."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
import tomllib
from typing import Any

QUESTIONS = Path(__file__).with_name("questions.toml")
NO_EVENT = "the latest news in town"
NO_EVENT_PLANNED = "the next gathering in town"  # what may be called off where a run names no event


@dataclass(frozen=True)
class Question:
    category: str
    question_id: str
    text: str
    about: str = ""  # what the category asks about, for the judge


def load_templates(path: Path = QUESTIONS) -> list[Question]:
    """Every question of the file, still with its {placeholders}."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    templates = [Question(c["name"], q["id"], q["text"], c.get("about", "")) for c in data.get("category", [])
                 for q in c["questions"]]
    if not templates:
        raise ValueError(f"{path} has no [[category]] with questions")
    ids = [q.question_id for q in templates]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path} repeats a question id (ids key the answers, so they must be unique)")
    return templates


def someone_known(npc_id: str, names: dict[str, str], identities: dict[str, str],
                  memories: list[dict[str, Any]], said_known: set[str] | None = None) -> str:
    """The other resident named most often in this one's memories (its identity breaks ties;
    without either, the next resident by id, so every resident gets someone). When the run asked
    "Do you know <name>?" (`said_known`: the ids this resident said it knows), only those count."""
    others = {i: n for i, n in names.items() if i != npc_id and (not said_known or i in said_known)}
    if not others:
        return "your neighbour"
    text = [m.get("description", "") for m in memories]
    counts = Counter({i: sum(n in t for t in text) for i, n in others.items()})
    identity = identities.get(npc_id, "")
    best = max(sorted(others), key=lambda i: (counts[i], others[i] in identity))
    if counts[best] or others[best] in identity:
        return others[best]
    ids = sorted(names)
    return names[ids[(ids.index(npc_id) + 1) % len(ids)]]


def _with_article(event: str) -> str:
    """The event as a sentence names it ("the auction at the Old Lifeboat House"), not as a slot
    ("this had been called off: auction at ...", which read as a form to the judge and the interviewee)."""
    if not event:
        return NO_EVENT_PLANNED
    return event if event.split(" ", 1)[0].lower() in {"a", "an", "the"} else f"the {event}"


def for_resident(templates: list[Question], *, name: str, other: str, event: str, event_question: str) -> list[Question]:
    """The templates with this resident's placeholders filled in."""
    values = {"name": name, "other": other, "event": event or NO_EVENT, "the_event": _with_article(event),
              "event_question": event_question or f"What have you heard about {event or NO_EVENT}?"}
    return [Question(q.category, q.question_id, q.text.format_map(values), q.about) for q in templates]
