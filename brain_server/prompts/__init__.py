"""Prompts: one template file per purpose (`<purpose>.md`) with its output schema beside it
(`<purpose>.py`). Users override a template by putting a file of the same name in
NPC_BRAIN_PROMPTS_DIR; placeholders are `$name` (string.Template), so JSON braces stay literal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import copy
from dataclasses import dataclass, field
import functools
import itertools
from pathlib import Path
import re
import string
from string import Template
from typing import Annotated, Any, Generic, TypeVar

from pydantic import AfterValidator, BaseModel

from brain_server.model.errors import ConfigError
from brain_server.model.memory import unstamped
from brain_server.prompts.style import Style

Out = TypeVar("Out", bound=BaseModel)
BUILTIN_DIR = Path(__file__).parent
SYSTEM_PURPOSE = "system"


@dataclass(frozen=True)
class Prompt(Generic[Out]):
    """A named LLM task: its template, its output schema and how to patch the schema per call."""

    purpose: str
    schema: type[Out]
    # Narrows the JSON schema for one call (e.g. an enum of the addresses this NPC knows).
    refine_schema: Callable[[dict[str, Any], Mapping[str, Any]], None] | None = field(default=None)
    # Room for the longest valid answer: a truncated JSON answer is a wasted call.
    max_tokens: int = 300
    # The system prompt's file: every NPC's mind shares one; a task outside the NPC (a judge) has its own.
    system: str = SYSTEM_PURPOSE
    # An answer in plain text (the file says its form), read by this (ValueError: unusable) and
    # asked without response_format; None: JSON for `schema`.
    read: Callable[[str, Mapping[str, Any]], Out] | None = None
    # Placeholders whose text the answer must give back as shown ("start at $time" in HH:MM): a
    # prompt set's date and clock style (style.py) leaves them as the brain wrote them.
    verbatim: frozenset[str] = frozenset()

    def json_schema(self, variables: Mapping[str, Any]) -> dict[str, Any]:
        """The output schema for this call: a fresh copy that refine_schema may narrow."""
        schema = copy.deepcopy(_model_schema(self.schema))
        if self.refine_schema:
            self.refine_schema(schema, variables)
        return schema


@functools.cache
def _model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """pydantic builds a model's JSON schema anew on every call (milliseconds each): once per model."""
    return model.model_json_schema()


class PromptLibrary:
    """Loads templates from the override folder first, then from `more_dirs` (a caller's own prompts,
    such as the lab's judge), then the built-in ones; and the first `style.json` of those folders.
    ConfigError if the override folder is not one or its style is none (serve stops with the message)."""

    def __init__(self, override_dir: Path | None = None, *, more_dirs: Sequence[Path] = ()) -> None:
        if override_dir is not None and not override_dir.is_dir():
            raise ConfigError(f"NPC_BRAIN_PROMPTS_DIR={override_dir} is not a folder: point it at your prompt files, "
                              "or unset it")
        self._dirs = [d for d in (override_dir, *more_dirs, BUILTIN_DIR) if d]
        self._cache: dict[str, Template] = {}
        self.style = Style.load(self._dirs)

    def template(self, purpose: str) -> Template:
        if purpose not in self._cache:
            path = next((d / f"{purpose}.md" for d in self._dirs if (d / f"{purpose}.md").is_file()), None)
            if path is None:
                raise FileNotFoundError(f"no prompt file {purpose}.md in {', '.join(map(str, self._dirs))}")
            self._cache[purpose] = Template(path.read_text(encoding="utf-8"))
        return self._cache[purpose]

    def render(self, purpose: str, variables: Mapping[str, Any], system: str = SYSTEM_PURPOSE,
               verbatim: frozenset[str] = frozenset()) -> list[dict[str, str]]:
        """Chat messages: the system prompt (the shared one unless named), then this purpose's filled
        template, its placeholders' dates and clock times in the set's style but those `verbatim`."""
        if not self.style.plain:
            variables = {k: v if k in verbatim else self.style.restyle(str(v)) for k, v in variables.items()}
        return [
            {"role": "system", "content": self.style.tidy(self.template(system).substitute(variables).strip())},
            {"role": "user", "content": self.style.tidy(self.template(purpose).substitute(variables).strip())},
        ]


# A character's spoken line, as the schemas of lines check it. A model's assistant voice ("As an
# AI language model, I cannot...", "I'm sorry, but I can't assist with that request") is a refusal,
# not something a character says: it fails validation as malformed JSON does, so the call is asked
# again and then falls back, and the player never reads it in a baker's mouth. The phrases are the
# assistant's own, not words a character may use ("I can't help you with that" passes, and so does
# a station's AI saying "I am an AI"). They are literal, so a line streamed to the player can hold
# back a tail that may still become one (`assistant_tail`) and drop the attempt as soon as one is whole.
def _each(*parts: tuple[str, ...]) -> list[str]:
    return [" ".join(filter(None, words)) for words in itertools.product(*parts)]


ASSISTANT_PHRASES = (
    *_each(("ai", "large"), ("language model",)), "as a language model", "as an ai assistant", "openai", "chatgpt",
    *_each(("i'm", "i am"), ("", "just"), ("an ai assistant",)),
    *_each(("i can't", "i cannot", "i am unable to", "i'm unable to"), ("assist", "comply"), ("with",)),
    # blind31's "I'm sorry, but as an AI I can't continue this role-play.", kept in 37 captured prompts' memories
    *_each(("continue",), ("this", "the"), ("role-play", "roleplay")),
    # a thinking model's reasoning let into its answer (blind33's "Okay, let me think about this. I'm Rasa here. The
    # request wants a short answer in a set form.", kept as a resident's line)
    *_each(("the request", "the user", "the prompt"), ("wants", "asks", "asked", "is asking", "says")),
)
_ASSISTANT = re.compile(r"\b(?:" + "|".join(map(re.escape, ASSISTANT_PHRASES)) + r")\b", re.IGNORECASE)
# What the assistant voice opens with: held back with the phrase it may lead to, so a refused line
# shows none of its words ("As an" of "As an AI language model"), though a line may begin so too.
_LEAD_INS = ("", "as an ", "as a ", "sorry, but ", "sorry. ", "i'm sorry, but ", "i'm sorry. ", "i apologize, but ")
_HELD = frozenset(f"{lead}{phrase}"[:end] for lead in _LEAD_INS for phrase in ASSISTANT_PHRASES
                  for end in range(1, len(lead + phrase) + 1))  # every start of one: a set lookup per word
_LONGEST = max(map(len, _HELD))
_WORD_START = re.compile(r"\b\w")
_PLAIN = str.maketrans(string.ascii_uppercase + "\u2019", string.ascii_lowercase + "'")  # keeps each index


def assistant_phrase(text: str, *, growing: bool = False) -> str | None:
    """The first assistant phrase in `text`, if any. While the text is `growing`, one that ends it
    is not yet whole ("ChatGPT" may be the start of "ChatGPTs")."""
    found = _ASSISTANT.search(text.translate(_PLAIN))
    return None if found is None or (growing and found.end() == len(text)) else text[found.start():found.end()]


def assistant_tail(text: str) -> int:
    """Where the tail of `text` that may still grow into an assistant phrase, or its lead-in,
    begins ("... As an", "I'm sorry, but I can"); len(text) where none may."""
    plain = text.translate(_PLAIN)
    for start in _WORD_START.finditer(plain, max(0, len(plain) - _LONGEST)):
        if plain[start.start():] in _HELD:
            return start.start()
    return len(text)


def _in_character(text: str) -> str:
    """A line as the character says it: never in the assistant's voice, without the memory stamps
    a model copied from its prompt ("[Wednesday April 15, 07:00] Ilsa Merrow wants to ..."), and
    each sentence said once (`_said_once`)."""
    if found := assistant_phrase(text):
        raise ValueError(f"the model answered as an assistant ({found!r}), not as the character")
    said = unstamped(text).strip()
    if not said:
        raise ValueError("the line holds nothing but a memory's stamp")
    return _said_once(said)


_SENTENCE_GAP = re.compile(r"(?<=[.!?])\s+")
SAID_ONCE_WORDS = 4  # a sentence this long said twice in one line is a loop, not emphasis


def _said_once(line: str) -> str:
    """`line` with a sentence it says again left out: blind25, looping, answered "That sounds lovely,
    I'll come along to the event." eight times in one line, which the listener's memo was shown and
    her next prompts remembered. A person says it once; the words said once are the same. Short
    sentences stay, said again or not: "Yes. No. Yes." ends on a yes."""
    seen: set[str] = set()
    kept = []
    for sentence in _SENTENCE_GAP.split(line):
        key = re.findall(r"\w+", sentence.lower())
        if len(key) < SAID_ONCE_WORDS or " ".join(key) not in seen:
            kept.append(sentence)
        seen.add(" ".join(key))
    return " ".join(kept)


Spoken = Annotated[str, AfterValidator(_in_character)]

_NOTHING = re.compile(r"^\W*(n/?a|none|null|nil|nothing|unknown|tbd|-+|\.+)\W*$", re.IGNORECASE)


# A JSON object's opening in a text field ('{"summary": ', escaped or not): an answer pasted into it.
_ANSWER_INSIDE = re.compile(r'\{\s*\\?"\w+\\?"\s*:')


def _says_something(text: str) -> str:
    """A summary that says something: blind19 summed a conversation up as "N/A" at its declared
    rate, and the brain kept "Agata Wilk told Anselm Rook: N/A" as news told; asked again after a
    summary too long, it pasted its first answer into the new one ('... heard from Ivo Kranjc that
    {"summary": "Agata Wilk heard ...'), which the brain kept as news heard and retold."""
    if _NOTHING.match(text):
        raise ValueError(f"{text!r} says nothing: say what was said")
    if _ANSWER_INSIDE.search(text):
        raise ValueError("the summary holds a JSON answer: write the summary's sentence alone")
    return text


Summary = Annotated[str, AfterValidator(_says_something)]
