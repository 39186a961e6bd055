"""Game verbs: what a game lets its NPCs do beyond walking and setting object states ("ring_bell"
on the chapel's bell), declared on the world or per NPC.

The model only ever proposes a verb; `check_call` admits it only as declared (known name, usable by
this NPC, a target it applies to, every argument typed and in range), so the game never receives
an undeclared verb or a bad argument whatever the model writes. A refused proposal says why, for
the trace, and the step goes on as a plain action.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import math
from typing import Literal

from pydantic import BaseModel, Field

Value = str | int | float
SEPARATOR = ":"  # world.SEPARATOR: world.py imports this module for its declarations


class VerbArgument(BaseModel):
    name: str
    description: str = ""
    type: Literal["choice", "number", "integer"] = "choice"
    choices: list[str] = Field(default_factory=list)
    minimum: float | None = None
    maximum: float | None = None

    def admits(self, value: object) -> str:
        """Why `value` is refused ("" when it is admitted)."""
        if self.type == "choice":
            return "" if isinstance(value, str) and value in self.choices else \
                f"{self.name}={value!r} is not one of {self.choices}"
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return f"{self.name}={value!r} is not a number"
        if self.type == "integer" and value != int(value):
            return f"{self.name}={value!r} is not a whole number"
        if (self.minimum is not None and value < self.minimum) or (self.maximum is not None and value > self.maximum):
            return f"{self.name}={value!r} is outside {self.minimum}..{self.maximum}"
        return ""

    def typed(self, value: Value) -> Value:
        return int(value) if self.type == "integer" else float(value) if self.type == "number" else value

    def shown(self) -> str:
        """The argument as the model reads it."""
        kind = (" or ".join(f'"{c}"' for c in self.choices) if self.type == "choice" else
                f"{'a whole number' if self.type == 'integer' else 'a number'}"
                f"{f' from {self.minimum:g}' if self.minimum is not None else ''}"
                f"{f' to {self.maximum:g}' if self.maximum is not None else ''}")
        return f"{self.name}: {kind}" + (f" ({self.description})" if self.description else "")


class Verb(BaseModel):
    name: str
    description: str = ""
    arguments: list[VerbArgument] = Field(default_factory=list)
    place: Literal["anywhere", "object", "arena"] = "anywhere"
    # Names (or full addresses) of the objects or arenas it applies to; empty: any.
    targets: list[str] = Field(default_factory=list)
    # npc ids that may use it; empty: every NPC it is declared for.
    users: list[str] = Field(default_factory=list)

    def aims_at(self, address: str) -> bool:
        """Whether this verb applies to the object or arena at `address`."""
        parts = address.split(SEPARATOR)
        if len(parts) != (4 if self.place == "object" else 3):
            return False
        return not self.targets or parts[-1] in self.targets or address in self.targets


class VerbCall(BaseModel):
    """A verb the NPC asks the game to perform: validated, its arguments typed as declared."""

    name: str
    arguments: dict[str, Value] = Field(default_factory=dict)
    target: str

    def words(self) -> str:
        shown = ", ".join(f"{k}={v}" for k, v in self.arguments.items())
        return f"{self.name}({shown})" if shown else self.name


def own_verbs(world_verbs: Sequence[Verb], npc_verbs: Sequence[Verb]) -> tuple[list[Verb], list[str]]:
    """An NPC's verbs beside its world's: those it declares as the world does are one verb, the
    world's (left out of the NPC's); the names it declares otherwise (clashes). One name, one verb:
    the model would read both, and the game be sent the world's."""
    world = {v.name: v for v in world_verbs}
    return [v for v in npc_verbs if v.name not in world], [v.name for v in npc_verbs if world.get(v.name, v) != v]


def declared_for(verbs: Sequence[Verb], npc_id: str, asked: VerbCall | None = None) -> list[str]:
    """The names of the verbs this NPC may use somewhere (its world's and its own), and of the verb
    it was last asked to do (`asked`: the game may have dropped it since)."""
    return [v.name for v in verbs if not v.users or npc_id in v.users] + ([asked.name] if asked else [])


def usable(verbs: Sequence[Verb], npc_id: str, arena: str, objects: Sequence[str]) -> list[Verb]:
    """The verbs this NPC may use in `arena` (an arena's address) among its `objects` (names)."""
    return [v for v in verbs if (not v.users or npc_id in v.users) and (
        v.place == "anywhere" or (v.place == "arena" and v.aims_at(arena))
        or (v.place == "object" and any(v.aims_at(f"{arena}{SEPARATOR}{o}") for o in objects)))]


def menu(verbs: Sequence[Verb], arena: str, objects: Sequence[str]) -> str:
    """The verbs as the model reads them: name, what it does, on what, with which arguments."""
    lines = []
    for verb in verbs:
        on = [o for o in objects if verb.aims_at(f"{arena}{SEPARATOR}{o}")] if verb.place == "object" else []
        where = f" (on the {' or the '.join(on)})" if on else ""
        args = "; ".join(a.shown() for a in verb.arguments)
        lines.append(f'- "{verb.name}"{where}: {verb.description}' + (f" Arguments: {args}." if args else ""))
    return "\n".join(lines)


def check_call(name: str, arguments: Mapping[str, object], obj: str, verbs: Sequence[Verb], arena: str,
               objects: Sequence[str]) -> VerbCall | str:
    """The model's proposal (verb `name` with `arguments`, on object `obj` for an object verb) as a
    call the game may receive, or why it is refused. `verbs` are those usable here (`usable`)."""
    verb = next((v for v in verbs if v.name == name), None)
    if verb is None:
        return f"verb {name!r} is not declared for this NPC here"
    if verb.place == "object":
        target = f"{arena}{SEPARATOR}{obj}"
        if obj not in objects or not verb.aims_at(target):
            return f"verb {name!r} does not apply to object {obj!r} here"
    else:
        target = arena
    declared = {a.name: a for a in verb.arguments}
    if extra := sorted(set(arguments) - set(declared)):
        return f"verb {name!r} has no argument {extra[0]!r}"
    typed: dict[str, Value] = {}
    for argument in verb.arguments:
        if argument.name not in arguments:
            return f"verb {name!r} is missing argument {argument.name!r}"
        value = arguments[argument.name]
        value = _number(value) if argument.type != "choice" and isinstance(value, str) else value
        if why := argument.admits(value):
            return f"verb {name!r}: {why}"
        typed[argument.name] = argument.typed(value)  # type: ignore[arg-type]
    return VerbCall(name=name, arguments=typed, target=target)


def _number(text: str) -> float | str:
    """A number the model wrote as text ("12"), or the text itself (refused as not a number)."""
    try:
        return float(text.strip())
    except ValueError:
        return text
