"""A tenant's spending ceilings: LLM calls, tokens and money per rolling window of real time, so one
player's town cannot spend what the game pays for everyone's, and per game day, so a town's
thinking is spread over its days (docs/deployment.md, "Hosting for many players").

A tenant is the part of an npc id before its first dot: the service edge puts `tenant.` before every
name a tenant's token sends (tenants.py), so the mind's LLM client knows each call's tenant from the
npc id alone. Ids without a dot (the admin/dev key's own NPCs) belong to no tenant and count toward
nothing.

The window is real time, not game time: a tenant sends its own game times, so a window in game time
would be one it could roll over at will, and money is spent in real time. Each tenant's window opens
at its first call and closes WINDOW_S later; the next call after that opens a fresh one. The game
day is the calendar day of each call's game time (its trace's: what the Decide, Talk or SkipTime
said), counted per (tenant, day): an NPC still finishing yesterday counts toward yesterday, a save
of an earlier day played again finds that day's count (while it is kept), and a call with no game
time counts toward the latest day the tenant has sent. It paces thinking as the game's clock runs,
and is no bound on cost (the clock is the client's): the window is. Every class
of work is counted and refused alike, the player's too (a player's Talk is what costs most): a call
over a ceiling is not made and gets its fallback, as the per-hour allowance's are (llm/allowance.py);
Talk then answers with lines composed without the model (cognition/offline/offline_lines.py). Tokens and
money are known only once an answer comes, so the calls already under way when a tenant reaches a
token or money ceiling still finish: the overshoot is at most those calls' tokens.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
import time
from typing import TypeVar

TENANTS_KEPT = 100_000  # tenants' windows kept, the least recently calling forgotten first
TENANT_DAYS_KEPT = 100_000  # (tenant, game day) counts kept, likewise: days are what callers send
K = TypeVar("K")
V = TypeVar("V")


@dataclass(frozen=True)
class Prices:
    """What the endpoint charges per million input (prompt) and output (completion) tokens, in the
    operator's currency; 0 and 0: unpriced (no money figures)."""

    input_per_m: float = 0.0
    output_per_m: float = 0.0

    @property
    def priced(self) -> bool:
        return bool(self.input_per_m or self.output_per_m)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input_per_m + completion_tokens * self.output_per_m) / 1_000_000


@dataclass
class Spend:
    """One tenant's window or game day: `opened` (the clock's seconds; a window's), calls made, their
    tokens, their cost, and calls refused for being over a ceiling (any: the window's or the day's)."""

    opened: float = 0.0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    refused: int = 0

    def charge(self, prompt_tokens: int, completion_tokens: int, cost: float) -> None:
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.cost += cost

    def add(self, other: Spend) -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost += other.cost
        self.refused += other.refused


def tenant_of(npc_id: str) -> str | None:
    tenant, dot, _ = npc_id.partition(".")
    return tenant if dot else None


@dataclass(frozen=True)
class Limits:
    """Ceilings on a tenant's spend over one span (0: none); `span` ends their settings' names."""

    calls: int = 0
    tokens: int = 0
    money: float = 0.0
    span: str = "WINDOW"

    @property
    def any(self) -> bool:
        return bool(self.calls or self.tokens or self.money)

    def over(self, spend: Spend) -> str | None:
        """Which ceiling `spend` has reached (the setting and the figure), or None."""
        if self.calls and spend.calls >= self.calls:
            return f"NPC_BRAIN_TENANT_CALLS_PER_{self.span} ({spend.calls} calls)"
        if self.tokens and spend.prompt_tokens + spend.completion_tokens >= self.tokens:
            return f"NPC_BRAIN_TENANT_TOKENS_PER_{self.span} ({spend.prompt_tokens + spend.completion_tokens} tokens)"
        if self.money and spend.cost >= self.money:
            return f"NPC_BRAIN_TENANT_MONEY_PER_{self.span} ({spend.cost:.4f} spent)"
        return None


class Ceilings:
    """Each tenant's spend in its current window and per game day, and whether it may make another
    call; 0 means no ceiling. `clock` is seconds (time.monotonic; a test passes its own). A call's
    game time (None: not known) says which game day it counts toward."""

    def __init__(self, calls: int = 0, tokens: int = 0, money: float = 0.0, window_s: float = 86_400.0,
                 prices: Prices = Prices(), clock: Callable[[], float] = time.monotonic,
                 per_game_day: Limits = Limits(span="GAME_DAY")) -> None:
        self.calls, self.tokens, self.money, self.window_s = calls, tokens, money, window_s
        self.prices, self.clock = prices, clock
        self.per_window, self.per_game_day = Limits(calls, tokens, money, "WINDOW"), per_game_day
        self._spend: OrderedDict[str, Spend] = OrderedDict()
        self._days: OrderedDict[tuple[str, date], Spend] = OrderedDict()
        self._latest: OrderedDict[str, date] = OrderedDict()  # each tenant's latest game day sent

    @property
    def enabled(self) -> bool:
        return self.per_window.any or self.per_game_day.any

    def window(self, tenant: str) -> Spend:
        """The tenant's current window (a fresh one once the last has closed)."""
        now = self.clock()
        spend = self._spend.pop(tenant, None)
        if spend is None or now >= spend.opened + self.window_s:
            spend = Spend(opened=now)
        _keep(self._spend, tenant, spend, TENANTS_KEPT)
        return spend

    def game_day(self, tenant: str, game_time: datetime | None) -> tuple[date, Spend] | None:
        """The tenant's spend on `game_time`'s day (None: the latest day it has sent), or None when no
        game-day ceiling is set or no day is known yet."""
        if not self.per_game_day.any:
            return None
        latest = self._latest.pop(tenant, None)
        day = game_time.date() if game_time is not None else latest
        if day is None:
            return None
        _keep(self._latest, tenant, max(day, latest or day), TENANTS_KEPT)
        spend = self._days.pop((tenant, day), None) or Spend()
        _keep(self._days, (tenant, day), spend, TENANT_DAYS_KEPT)
        return day, spend

    def refusal(self, npc_id: str, game_time: datetime | None = None) -> str | None:
        """Why this NPC's tenant may not make a call now (counted as refused), else None."""
        tenant = tenant_of(npc_id)
        if tenant is None or not self.enabled:
            return None
        spend, day = self.window(tenant), self.game_day(tenant, game_time)
        if (why := self.why(tenant, spend, day)) is not None:
            spend.refused += 1
            if day is not None:
                day[1].refused += 1
        return why

    def why(self, tenant: str, window: Spend, day: tuple[date, Spend] | None) -> str | None:
        """Which ceiling `tenant` is over with this window and game day, its figure and when it ends, in
        the words of the refused calls' traces and GetUsage's `over` (the setting to raise), or None."""
        if (over := self.per_window.over(window)) is not None:
            why = f"its window's allowance (a fresh one in {self.left_s(window):.0f} s)"
        elif day is not None and (over := self.per_game_day.over(day[1])) is not None:
            why = f"game day {day[0].isoformat()}'s allowance (a fresh one when the game's day changes)"
        else:
            return None
        return f"over {over}: tenant {tenant} has spent {why}"

    def left_s(self, spend: Spend) -> float:
        """Seconds until `spend`'s window closes."""
        return max(0.0, spend.opened + self.window_s - self.clock())

    def over(self, npc_id: str, game_time: datetime | None = None) -> bool:
        """Whether this NPC's tenant is past a ceiling (nothing counted)."""
        tenant = tenant_of(npc_id)
        if tenant is None or not self.enabled:
            return False
        return self.why(tenant, self.window(tenant), self.game_day(tenant, game_time)) is not None

    def called(self, npc_id: str, calls: int = 1, game_time: datetime | None = None) -> None:
        """A call made (or, -1, one taken back: dropped before the endpoint was asked)."""
        if (tenant := tenant_of(npc_id)) is not None:
            self.window(tenant).calls += calls
            if (day := self.game_day(tenant, game_time)) is not None:
                day[1].calls += calls

    def answered(self, npc_id: str, prompt_tokens: int, completion_tokens: int,
                 game_time: datetime | None = None) -> None:
        if (tenant := tenant_of(npc_id)) is not None:
            cost = self.prices.cost(prompt_tokens, completion_tokens)
            self.window(tenant).charge(prompt_tokens, completion_tokens, cost)
            if (day := self.game_day(tenant, game_time)) is not None:
                day[1].charge(prompt_tokens, completion_tokens, cost)

    def windows(self) -> dict[str, Spend]:
        """Every tenant's open window (those closed are gone: they would read as 0). A copy taken at
        once, since /metrics reads it from the transports' thread while the mind's loop counts."""
        now = self.clock()
        return {t: s for t, s in list(self._spend.items()) if now < s.opened + self.window_s}

    def today(self, tenant: str) -> tuple[date, Spend] | None:
        """The tenant's current game day (the latest it sent) and that day's spend, read without
        counting or keeping anything; None when no game-day ceiling is set or no day is known yet."""
        if not self.per_game_day.any or (day := self._latest.get(tenant)) is None:
            return None
        return day, self._days.get((tenant, day)) or Spend()

    def standings(self) -> list[tuple[str, Spend, tuple[date, Spend] | None]]:
        """Every tenant with an open window, by name: its window and its current game day (`today`).
        A tenant that has called in no open window is left out, as `windows` leaves it: its next call,
        made or refused, opens a window and shows it again."""
        return [(tenant, spend, self.today(tenant)) for tenant, spend in sorted(self.windows().items())]

    def top(self, n: int, spends: dict[str, Spend] | None = None) -> tuple[list[tuple[str, Spend]], Spend | None]:
        """The `n` tenants that spent most (calls, then cost) of `spends` (their windows unless given),
        and the rest summed (None when there is no rest): /metrics' labels, bounded however many
        tenants there are."""
        spends = self.windows() if spends is None else spends
        ranked = sorted(spends.items(), key=lambda ts: (ts[1].calls, ts[1].cost, ts[0]), reverse=True)
        if len(ranked) <= n:
            return ranked, None
        rest = Spend()
        for _, spend in ranked[n:]:
            rest.add(spend)
        return ranked[:n], rest


def _keep(kept: OrderedDict[K, V], key: K, value: V, most: int) -> None:
    """`value` kept under `key` as the most recent, the least recent forgotten past `most`."""
    kept[key] = value
    kept.move_to_end(key)
    while len(kept) > most:
        kept.popitem(last=False)
