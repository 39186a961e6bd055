"""A tenant's spending ceiling: LLM calls, tokens and money per rolling window of real time, so one
player's town cannot spend what the game pays for everyone's (docs/deployment.md, "Hosting for many
players").

A tenant is the part of an npc id before its first dot: the service edge puts `tenant.` before every
name a tenant's token sends (tenants.py), so the mind's LLM client knows each call's tenant from the
npc id alone. Ids without a dot (the admin/dev key's own NPCs) belong to no tenant and count toward
nothing.

The window is real time, not game time: a tenant sends its own game times, so a window in game time
would be one it could roll over at will, and money is spent in real time. Each tenant's window opens
at its first call and closes WINDOW_S later; the next call after that opens a fresh one. Every class
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
import time

TENANTS_KEPT = 100_000  # tenants' windows kept, the least recently calling forgotten first


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
    """One tenant's window: `opened` (the clock's seconds), calls made, their tokens, their cost,
    and calls refused for being over a ceiling."""

    opened: float = 0.0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    refused: int = 0

    def add(self, other: Spend) -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost += other.cost
        self.refused += other.refused


def tenant_of(npc_id: str) -> str | None:
    tenant, dot, _ = npc_id.partition(".")
    return tenant if dot else None


class Ceilings:
    """Each tenant's spend in its current window, and whether it may make another call; 0 means no
    ceiling. `clock` is seconds (time.monotonic; a test passes its own)."""

    def __init__(self, calls: int = 0, tokens: int = 0, money: float = 0.0, window_s: float = 86_400.0,
                 prices: Prices = Prices(), clock: Callable[[], float] = time.monotonic) -> None:
        self.calls, self.tokens, self.money, self.window_s = calls, tokens, money, window_s
        self.prices, self.clock = prices, clock
        self._spend: OrderedDict[str, Spend] = OrderedDict()

    @property
    def enabled(self) -> bool:
        return bool(self.calls or self.tokens or self.money)

    def window(self, tenant: str) -> Spend:
        """The tenant's current window (a fresh one once the last has closed)."""
        now = self.clock()
        spend = self._spend.pop(tenant, None)
        if spend is None or now >= spend.opened + self.window_s:
            spend = Spend(opened=now)
        self._spend[tenant] = spend
        while len(self._spend) > TENANTS_KEPT:
            self._spend.popitem(last=False)
        return spend

    def refusal(self, npc_id: str) -> str | None:
        """Why this NPC's tenant may not make a call now (counted as refused), else None."""
        tenant = tenant_of(npc_id)
        if tenant is None or not self.enabled:
            return None
        spend = self.window(tenant)
        over = self._over(spend)
        if over is None:
            return None
        spend.refused += 1
        return f"over {over}: tenant {tenant} has spent its window's allowance (a fresh one in {self.left_s(spend):.0f} s)"

    def left_s(self, spend: Spend) -> float:
        """Seconds until `spend`'s window closes."""
        return max(0.0, spend.opened + self.window_s - self.clock())

    def over(self, npc_id: str) -> bool:
        """Whether this NPC's tenant is past a ceiling (nothing counted)."""
        tenant = tenant_of(npc_id)
        return tenant is not None and self.enabled and self._over(self.window(tenant)) is not None

    def _over(self, spend: Spend) -> str | None:
        if self.calls and spend.calls >= self.calls:
            return f"NPC_BRAIN_TENANT_CALLS_PER_WINDOW ({spend.calls} calls)"
        if self.tokens and spend.prompt_tokens + spend.completion_tokens >= self.tokens:
            return f"NPC_BRAIN_TENANT_TOKENS_PER_WINDOW ({spend.prompt_tokens + spend.completion_tokens} tokens)"
        if self.money and spend.cost >= self.money:
            return f"NPC_BRAIN_TENANT_MONEY_PER_WINDOW ({spend.cost:.4f} spent)"
        return None

    def called(self, npc_id: str, calls: int = 1) -> None:
        """A call made (or, -1, one taken back: dropped before the endpoint was asked)."""
        if (tenant := tenant_of(npc_id)) is not None:
            self.window(tenant).calls += calls

    def answered(self, npc_id: str, prompt_tokens: int, completion_tokens: int) -> None:
        if (tenant := tenant_of(npc_id)) is not None:
            spend = self.window(tenant)
            spend.prompt_tokens += prompt_tokens
            spend.completion_tokens += completion_tokens
            spend.cost += self.prices.cost(prompt_tokens, completion_tokens)

    def windows(self) -> dict[str, Spend]:
        """Every tenant's open window (those closed are gone: they would read as 0). A copy taken at
        once, since /metrics reads it from the transports' thread while the mind's loop counts."""
        now = self.clock()
        return {t: s for t, s in list(self._spend.items()) if now < s.opened + self.window_s}

    def top(self, n: int) -> tuple[list[tuple[str, Spend]], Spend | None]:
        """The `n` tenants that spent most in their windows (calls, then cost), and the rest summed
        (None when there is no rest): /metrics' labels, bounded however many tenants there are."""
        ranked = sorted(self.windows().items(), key=lambda ts: (ts[1].calls, ts[1].cost, ts[0]), reverse=True)
        if len(ranked) <= n:
            return ranked, None
        rest = Spend()
        for _, spend in ranked[n:]:
            rest.add(spend)
        return ranked[:n], rest
