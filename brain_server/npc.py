"""An NPC as the brain keeps it: persona, spatial knowledge, today's plan and current action."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from pydantic import BaseModel, Field


class Persona(BaseModel):
    name: str
    age: int = 0
    traits: list[str] = Field(default_factory=list)
    identity: str = ""
    lifestyle: str = ""
    currently: str = ""
    home: str = ""
    known_areas: list[str] = Field(default_factory=list)

    def summary(self) -> str:
        """The paper's identity stable set, as prompts see it."""
        lines = [f"Name: {self.name}", f"Age: {self.age}"]
        if self.traits:
            lines.append(f"Innate traits: {', '.join(self.traits)}")
        for label, text in (("Identity", self.identity), ("Lifestyle", self.lifestyle), ("Currently", self.currently)):
            if text:
                lines.append(f"{label}: {text}")
        return "\n".join(lines)


class ObjectState(BaseModel):
    address: str
    state: str


class Action(BaseModel):
    description: str
    emoji: str = ""
    address: str
    start_time: datetime
    duration_minutes: int
    object_states: list[ObjectState] = Field(default_factory=list)
    source: str = "plan"  # plan | new_plan | fallback

    @property
    def end_time(self) -> datetime:
        return self.start_time + timedelta(minutes=self.duration_minutes)


class PlanItem(BaseModel):
    """One block of the day plan, placed at an address the NPC knows."""

    start: datetime
    duration_minutes: int
    activity: str
    emoji: str = ""
    address: str

    @property
    def end(self) -> datetime:
        return self.start + timedelta(minutes=self.duration_minutes)


class NpcState(BaseModel):
    """Everything needed to continue an NPC after a restart; stored as a record."""

    npc_id: str
    world_name: str
    persona: Persona
    address: str = ""
    known_addresses: list[str] = Field(default_factory=list)
    plan_day: date | None = None
    plan: list[PlanItem] = Field(default_factory=list)
    plan_memory_id: str = ""
    action: Action | None = None

    def plan_item_at(self, when: datetime) -> PlanItem | None:
        return next((item for item in self.plan if item.start <= when < item.end), None)
