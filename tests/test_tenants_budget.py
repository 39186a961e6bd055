"""A tenant's spending ceilings: past one, its NPCs go on with their fallbacks and Talk with composed
lines, the fake endpoint asked nothing more, until its window rolls over (an injected clock) or, for
the ceiling per game day, until the game's day changes (the game times the requests send); other
tenants think on; its spend in GetUsage (its own only) and /metrics (bounded labels), over both
transports with the real `openai` client against the fake endpoint."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from pydantic import ValidationError
import pytest

from brain_server.config import Settings
from brain_server.llm.client import LLM
from brain_server.llm.scheduler import Priority, Work
from brain_server.llm.spending import Ceilings, Limits, Prices, Spend
from brain_server.model.trace import Trace
from brain_server.prompts import PromptLibrary
from brain_server.prompts.importance import PROMPT as IMPORTANCE
from brain_server.prompts.importance import Importance
from brain_server.runtime.metrics import METRIC_TENANTS, OTHER_TENANTS
from npc_lab.fake_openai import FakeOpenAI
from tests.clients import Clients
from tests.test_tenants import ADMIN_TOKEN, SECRET, T0, Player, mint
from tests.town import spawn_json, world_json

LOOP: asyncio.AbstractEventLoop
VARS = {"npc_name": "Isabella Rodriguez", "persona": "Name: Isabella Rodriguez", "memory": "the cafe opened"}
NINE = datetime(2026, 2, 13, 9, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def rate(llm: LLM, npc_id: str, priority: Priority = Priority.PLAN_NOW, when: datetime = NINE) -> Trace:
    """One completion at game time `when`, on the LLM's own loop (its client's connections belong to it)."""
    trace = Trace(npc_id=npc_id, kind="decide", game_time=when)
    LOOP.run_until_complete(llm.complete(IMPORTANCE, VARS, npc_id=npc_id, trace=trace, work=Work(priority, npc_id),
                                         fallback=lambda: Importance(importance=3)))
    return trace


@pytest.fixture(autouse=True)
def _loop() -> Iterator[None]:
    global LOOP
    LOOP = asyncio.new_event_loop()
    yield
    LOOP.close()


def test_a_tenant_over_its_calls_makes_none_until_its_window_rolls_over(fake_llm: FakeOpenAI) -> None:
    clock = Clock()
    llm = LLM(base_url=fake_llm.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(),
              ceilings=Ceilings(calls=2, window_s=3600, clock=clock))
    for _ in range(2):
        rate(llm, "alice.isabella")
    clock.now += 3599  # within the window: the player's work is refused as well
    for priority in (Priority.PLAN_NOW, Priority.PLAYER):
        [call] = rate(llm, "alice.klaus", priority).llm_calls
        assert call.fallback_used and "NPC_BRAIN_TENANT_CALLS_PER_WINDOW" in call.errors[0]
    assert len(fake_llm.chat_requests()) == 2
    rate(llm, "bob.isabella")  # another tenant, and the admin's own NPCs, count toward nothing of Alice's
    rate(llm, "isabella")
    assert len(fake_llm.chat_requests()) == 4
    clock.now += 1  # the window has closed: the next call opens a fresh one
    assert not rate(llm, "alice.isabella").llm_calls[0].fallback_used
    assert len(fake_llm.chat_requests()) == 5
    spend = llm.ceilings.windows()["alice"]
    assert (spend.calls, spend.refused, spend.opened) == (1, 0, clock.now)
    assert "isabella" not in llm.ceilings.windows()  # no tenant


def test_tokens_and_money_ceilings_count_the_answers_tokens(fake_llm: FakeOpenAI) -> None:
    prices = Prices(input_per_m=2.0, output_per_m=8.0)
    llm = LLM(base_url=fake_llm.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(),
              ceilings=Ceilings(money=1e-9, prices=prices, clock=Clock()))
    rate(llm, "alice.isabella")
    spend = llm.ceilings.windows()["alice"]
    assert spend.prompt_tokens > 0 and spend.cost == pytest.approx(prices.cost(spend.prompt_tokens,
                                                                               spend.completion_tokens))
    assert "TENANT_MONEY" in rate(llm, "alice.isabella").llm_calls[0].errors[0]
    tokens = Ceilings(tokens=spend.prompt_tokens + spend.completion_tokens + 1, clock=Clock())
    tokens.called("alice.x")
    tokens.answered("alice.x", spend.prompt_tokens, spend.completion_tokens)
    assert tokens.refusal("alice.x") is None
    tokens.answered("alice.x", 1, 0)
    assert "TENANT_TOKENS" in (tokens.refusal("alice.x") or "")
    assert len(fake_llm.chat_requests()) == 1
    with pytest.raises(ValidationError, match="needs a price"):
        Settings(tenant_money_per_window=5.0)


def test_a_game_days_ceiling_counts_each_call_toward_its_game_day(fake_llm: FakeOpenAI) -> None:
    llm = LLM(base_url=fake_llm.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(),
              ceilings=Ceilings(per_game_day=Limits(calls=2, span="GAME_DAY"), clock=Clock()))
    for _ in range(2):
        rate(llm, "alice.isabella")
    late = NINE.replace(hour=23, minute=59)
    for priority in (Priority.PLAN_NOW, Priority.PLAYER):  # the player's work too, all day long
        [call] = rate(llm, "alice.klaus", priority, late).llm_calls
        assert call.fallback_used and "NPC_BRAIN_TENANT_CALLS_PER_GAME_DAY" in call.errors[0]
        assert "game day 2026-02-13" in call.errors[0]
    rate(llm, "bob.isabella", when=late)  # another tenant's day is its own
    assert len(fake_llm.chat_requests()) == 3

    tomorrow = NINE + timedelta(days=1)
    assert not rate(llm, "alice.isabella", when=tomorrow.replace(hour=0, minute=1)).llm_calls[0].fallback_used
    assert len(fake_llm.chat_requests()) == 4
    # An NPC still finishing yesterday counts toward yesterday, whose allowance is spent.
    assert rate(llm, "alice.klaus", when=late).llm_calls[0].fallback_used
    # A call with no game time counts toward the latest day the tenant sent: tomorrow, one call made.
    assert llm.ceilings.refusal("alice.klaus") is None
    llm.ceilings.called("alice.klaus")
    assert "game day 2026-02-14" in (llm.ceilings.refusal("alice.klaus") or "")
    assert llm.ceilings.over("alice.isabella") and not llm.ceilings.over("bob.isabella")
    spend = llm.ceilings.windows()["alice"]  # the window counts every call, and every refusal, of any ceiling
    assert (spend.calls, spend.refused) == (4, 4)

    tokens = Ceilings(per_game_day=Limits(tokens=100, span="GAME_DAY"), clock=Clock())
    tokens.answered("alice.x", 60, 40, NINE)
    assert "NPC_BRAIN_TENANT_TOKENS_PER_GAME_DAY (100 tokens)" in (tokens.refusal("alice.x", NINE) or "")
    assert tokens.refusal("alice.x", tomorrow) is None
    with pytest.raises(ValidationError, match="TENANT_MONEY_PER_GAME_DAY needs a price"):
        Settings(tenant_money_per_game_day=5.0)


def test_metrics_labels_are_bounded_however_many_tenants_spend() -> None:
    ceilings = Ceilings(calls=100, clock=Clock())
    for n in range(METRIC_TENANTS + 30):
        for _ in range(n % 7 + 1):
            ceilings.called(f"t{n}.npc")
    top, rest = ceilings.top(METRIC_TENANTS)
    assert len(top) == METRIC_TENANTS and rest is not None
    assert min(s.calls for _, s in top) >= max(s.calls for s in ceilings.windows().values() if s not in
                                               [x for _, x in top])
    assert sum(s.calls for _, s in top) + rest.calls == sum(s.calls for s in ceilings.windows().values())
    assert ceilings.top(1000) == (sorted(ceilings.windows().items(), key=lambda ts: (ts[1].calls, ts[1].cost, ts[0]),
                                         reverse=True), None)
    assert Spend().cost == 0.0


def two_players(brain_factory, **ceiling: int) -> tuple[Clients, Player, Player, Player]:  # noqa: ANN001
    """A priced brain with `ceiling` (a tenant setting), and Alice and Bob each with Isabella in a
    town of their own, beside the admin key; close the clients when done."""
    clients = Clients(brain_factory(jwt_secret=SECRET, auth_token=ADMIN_TOKEN, llm_price_input_per_m=2.0,
                                    llm_price_output_per_m=8.0, **ceiling))
    alice, bob, admin = Player(clients, mint("alice")), Player(clients, mint("bob")), Player(clients, ADMIN_TOKEN)
    for player in (alice, bob):
        player.ok("RegisterWorld", world_json())
        player.ok("SpawnNpc", spawn_json())
    return clients, alice, bob, admin


def test_a_tenant_past_its_ceiling_keeps_playing_on_fallbacks_over_both_transports(brain_factory, fake_llm) -> None:
    ceiling = 2  # a day plan and its first block's steps: what any first Decide asks, whatever the fake plans
    clients, alice, bob, admin = two_players(brain_factory, tenant_calls_per_window=ceiling)
    try:
        assert alice.ok("Decide", {"npcId": "isabella", "gameTime": T0})["action"]["address"]
        made = len(fake_llm.chat_requests())
        assert made == ceiling  # the day plan and what followed, up to the ceiling; the rest fell back

        # Past its ceiling: Decide acts (routine), Talk answers with a composed line, over both transports,
        # and the endpoint is asked nothing.
        later = {"npcId": "isabella", "gameTime": "2026-02-13T11:00:00Z"}
        assert alice.grpc("Decide", later)["action"]["address"] and alice.ok("Decide", later)["action"]["address"]
        talk = {"npcId": "isabella", "speakerName": "Klaus", "text": "Hello! What are you up to today?",
                "gameTime": "2026-02-13T11:05:00Z"}
        said = alice.grpc("Talk", talk)
        assert said["reply"]
        assert alice.ok("Talk", {**talk, "text": "Where do you work?"})["reply"]
        trace = alice.ok("GetTrace", {"traceId": said["traceId"]})["trace"]
        assert any("NPC_BRAIN_TENANT_CALLS_PER_WINDOW" in e for c in trace["llmCalls"] for e in c.get("errors", []))
        assert any(n.startswith("offline lines:") for n in trace["notes"])  # composed, not the model's fallback
        assert len(fake_llm.chat_requests()) == made

        # Bob's town thinks on: the ceiling is Alice's.
        assert bob.ok("Decide", {"npcId": "isabella", "gameTime": T0})["action"]
        assert len(fake_llm.chat_requests()) == made + ceiling

        # Each tenant sees its own spend only; the admin key sees both.
        for name, player in (("alice", alice), ("bob", bob)):
            for usage in (player.grpc("GetUsage", {}), player.ok("GetUsage", {})):
                [spend] = usage["tenants"]
                assert spend["tenant"] == name and int(spend["calls"]) == ceiling
                assert int(spend["promptTokens"]) > 0 and spend["cost"] > 0
                assert usage["tenantCeiling"]["callsPerWindow"] == str(ceiling)
        refused = int(alice.ok("GetUsage", {})["tenants"][0]["refused"])
        assert refused > 0 and "refused" not in bob.ok("GetUsage", {})["tenants"][0]
        assert {t["tenant"] for t in admin.ok("GetUsage", {})["tenants"]} == {"alice", "bob"}

        page = clients.http.get("/metrics", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}).text
        assert f'npc_brain_tenant_llm_calls{{tenant="alice"}} {float(ceiling)}' in page
        assert 'npc_brain_tenant_llm_refused{tenant="alice"}' in page  # later refusals too (Talk's memos)
        assert 'npc_brain_tenant_llm_refused{tenant="bob"} 0.0' in page
        assert f"{{tenant=\"{OTHER_TENANTS}\"}}" not in page  # two tenants: no rest to sum
    finally:
        clients.close()


def test_a_tenant_past_its_game_days_ceiling_plays_on_until_the_game_day_changes(brain_factory, fake_llm) -> None:
    ceiling = 2  # a day plan and its first block's steps: what any first Decide asks, whatever the fake plans
    clients = Clients(brain_factory(jwt_secret=SECRET, auth_token=ADMIN_TOKEN, tenant_calls_per_game_day=ceiling))
    try:
        alice, bob = Player(clients, mint("alice")), Player(clients, mint("bob"))
        for player in (alice, bob):
            player.ok("RegisterWorld", world_json())
            player.ok("SpawnNpc", spawn_json())
        assert alice.grpc("Decide", {"npcId": "isabella", "gameTime": T0})["action"]["address"]
        made = len(fake_llm.chat_requests())
        assert made == ceiling

        # The rest of the game day, over both transports: actions and composed lines, no call.
        for hour, call in ((11, alice.grpc), (16, alice.ok), (23, alice.grpc)):
            assert call("Decide", {"npcId": "isabella", "gameTime": f"2026-02-13T{hour}:00:00Z"})["action"]["address"]
        talk = {"npcId": "isabella", "speakerName": "Klaus", "text": "Hello! What are you up to today?",
                "gameTime": "2026-02-13T23:05:00Z"}
        assert alice.grpc("Talk", talk)["reply"] and alice.ok("Talk", {**talk, "text": "Where do you work?"})["reply"]
        trace = alice.ok("GetTrace", {"traceId": alice.ok("Talk", talk)["traceId"]})["trace"]
        assert any("game day 2026-02-13" in e for c in trace["llmCalls"] for e in c.get("errors", []))
        assert len(fake_llm.chat_requests()) == made
        assert int(alice.grpc("GetUsage", {})["tenants"][0]["refused"]) > 0

        assert bob.ok("Decide", {"npcId": "isabella", "gameTime": T0})["action"]  # Bob's day is his own
        assert len(fake_llm.chat_requests()) == made + ceiling

        # The game's day changes: Alice's next morning is thought again, up to the ceiling.
        plans = len(fake_llm.chat_requests("daily_plan"))
        assert alice.ok("Decide", {"npcId": "isabella", "gameTime": "2026-02-14T08:00:00Z"})["action"]["address"]
        assert len(fake_llm.chat_requests()) == made + 2 * ceiling
        assert len(fake_llm.chat_requests("daily_plan")) == plans + 1
    finally:
        clients.close()
