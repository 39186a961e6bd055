"""A tenant's spend per game day where a developer looks: GetUsage's `tenants` (the current game
day, its calls, tokens, cost and refusals, and `over`, the ceiling the tenant is over now) and
`/metrics` (npc_brain_tenant_game_day_llm_*, top tenants plus "~other"), so a town cut to routine
by NPC_BRAIN_TENANT_*_PER_GAME_DAY says why. The day is the game's: it rolls over when the game
times sent with Decide pass midnight, with no wall clock involved."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
import re

from brain_server.api.convert import tenant_ceiling_to_pb, tenants_to_pb
from brain_server.llm.spending import Ceilings, Limits, Prices
from brain_server.runtime.metrics import METRIC_TENANTS, OTHER_TENANTS, tenant_families
from npc_lab.fake_openai import FakeOpenAI
from tests.test_tenants import ADMIN_TOKEN, T0
from tests.test_tenants_budget import Clock, two_players

NINE = datetime(2026, 2, 13, 9, tzinfo=UTC)
PER_DAY = "NPC_BRAIN_TENANT_CALLS_PER_GAME_DAY"


def test_a_tenants_game_day_and_the_ceiling_it_is_over_are_read_without_counting() -> None:
    clock = Clock()
    ceilings = Ceilings(calls=10, window_s=3600, clock=clock, prices=Prices(input_per_m=2.0, output_per_m=8.0),
                        per_game_day=Limits(calls=2, tokens=1000, span="GAME_DAY"))
    ceilings.called("alice.isabella", game_time=NINE)
    ceilings.answered("alice.isabella", 300, 20, NINE)
    [spend] = tenants_to_pb(ceilings)
    assert (spend.game_day, spend.game_day_calls, spend.game_day_prompt_tokens, spend.over) == ("2026-02-13", 1,
                                                                                              300, "")
    assert spend.game_day_cost == spend.cost > 0  # one day, one window: the same call

    ceilings.called("alice.klaus", game_time=NINE.replace(hour=23))
    for _ in range(2):
        ceilings.refusal("alice.isabella", NINE.replace(hour=23, minute=30))
    for _ in range(3):  # reading it counts nothing: GetUsage and /metrics may be asked at will
        [spend] = tenants_to_pb(ceilings)
    assert (spend.game_day_calls, spend.game_day_refused, spend.calls, spend.refused) == (2, 2, 2, 2)
    assert spend.over == (f"over {PER_DAY} (2 calls): tenant alice has spent game day 2026-02-13's allowance "
                          "(a fresh one when the game's day changes)")

    # Past midnight in the game the tenant's current day is the new one, its figures from 0; the
    # window (real time) still holds the day before's calls.
    tomorrow = NINE + timedelta(days=1)
    assert ceilings.refusal("alice.isabella", tomorrow.replace(hour=0, minute=1)) is None
    ceilings.called("alice.isabella", game_time=tomorrow.replace(hour=0, minute=1))
    [spend] = tenants_to_pb(ceilings)
    assert (spend.game_day, spend.game_day_calls, spend.game_day_refused, spend.calls, spend.over) == (
        "2026-02-14", 1, 0, 3, "")
    ceilings.called("alice.klaus", game_time=NINE.replace(hour=23, minute=59))  # yesterday's, counted there
    assert tenants_to_pb(ceilings)[0].game_day_calls == 1

    # The window's ceiling is named first: it is the one that ends on its own (in real time).
    for _ in range(7):
        ceilings.called("alice.isabella", game_time=tomorrow)
    assert tenants_to_pb(ceilings)[0].over.startswith("over NPC_BRAIN_TENANT_CALLS_PER_WINDOW (11 calls)")
    assert ceilings.refusal("alice.isabella", tomorrow) is not None  # a refusal counts on its day, whatever the ceiling
    assert tenants_to_pb(ceilings)[0].game_day_refused == 1

    # A window that closed leaves the tenant out, as before; its next call (refused here: the game
    # day's ceiling) opens a window and shows it again, with the reason.
    clock.now += 3600
    assert tenants_to_pb(ceilings) == []
    assert ceilings.refusal("alice.isabella") is not None  # no game time: the latest day sent
    [spend] = tenants_to_pb(ceilings)
    assert (spend.calls, spend.refused, spend.game_day, spend.game_day_calls, spend.game_day_refused) == (
        0, 1, "2026-02-14", 8, 2)
    assert f"over {PER_DAY} (8 calls)" in spend.over and "game day 2026-02-14" in spend.over

    ceiling = tenant_ceiling_to_pb(ceilings)
    assert (ceiling.calls_per_window, ceiling.calls_per_game_day, ceiling.tokens_per_game_day,
            ceiling.money_per_game_day) == (10, 2, 1000, 0.0)
    # No ceiling per game day: no day is kept or shown, only the window.
    window_only = Ceilings(calls=10, clock=Clock())
    window_only.called("bob.isabella", game_time=NINE)
    [spend] = tenants_to_pb(window_only)
    assert (spend.calls, spend.game_day, spend.game_day_calls) == (1, "", 0)


def test_metrics_game_day_labels_are_bounded_however_many_tenants_spend() -> None:
    ceilings = Ceilings(clock=Clock(), per_game_day=Limits(calls=100, span="GAME_DAY"))
    tenants = METRIC_TENANTS + 30
    for n in range(tenants):
        for _ in range(n % 7 + 1):
            ceilings.called(f"t{n}.npc", game_time=NINE + timedelta(days=n % 3))
    families = {f.name: f for f in tenant_families(ceilings)}
    calls = {s.labels["tenant"]: s.value for s in families["npc_brain_tenant_game_day_llm_calls"].samples}
    assert len(calls) == METRIC_TENANTS + 1 and OTHER_TENANTS in calls
    assert sum(calls.values()) == sum(n % 7 + 1 for n in range(tenants))
    named = sorted((v for t, v in calls.items() if t != OTHER_TENANTS), reverse=True)
    assert named == sorted((n % 7 + 1 for n in range(tenants)), reverse=True)[:METRIC_TENANTS]  # the top, by name
    assert {f"npc_brain_tenant_game_day_llm_{what}" for what in ("tokens", "cost", "refused")} <= families.keys()
    # Without a ceiling per game day there is no day to show: the window's series only.
    assert not any("game_day" in f.name for f in tenant_families(Ceilings(calls=5, clock=Clock())))


def test_getusage_and_metrics_show_a_tenants_game_day_over_both_transports(brain_factory,
                                                                          fake_llm: FakeOpenAI) -> None:
    ceiling = 2  # a day plan and its first block's steps: what any first Decide asks, whatever the fake plans
    clients, alice, bob, admin = two_players(brain_factory, tenant_calls_per_game_day=ceiling)
    try:
        assert alice.grpc("Decide", {"npcId": "isabella", "gameTime": T0})["action"]["address"]
        assert len(fake_llm.chat_requests()) == ceiling
        assert alice.ok("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T23:00:00Z"})["action"]["address"]
        assert bob.ok("Decide", {"npcId": "isabella", "gameTime": "2026-03-01T09:00:00Z"})["action"]
        assert len(fake_llm.chat_requests()) == 2 * ceiling

        # Each tenant's token sees its own day only, over both transports; the admin key sees both.
        for name, player, day in (("alice", alice, "2026-02-13"), ("bob", bob, "2026-03-01")):
            for usage in (player.grpc("GetUsage", {}), player.ok("GetUsage", {})):
                [spend] = usage["tenants"]
                assert (spend["tenant"], spend["gameDay"], spend["gameDayCalls"]) == (name, day, str(ceiling))
                assert int(spend["gameDayPromptTokens"]) > 0 and int(spend["gameDayCompletionTokens"]) > 0
                assert spend["gameDayCost"] == spend["cost"] > 0
                assert spend["over"] == (f"over {PER_DAY} ({ceiling} calls): tenant {name} has spent game day "
                                         f"{day}'s allowance (a fresh one when the game's day changes)")
                assert usage["tenantCeiling"]["callsPerGameDay"] == str(ceiling)
        alice_day = alice.grpc("GetUsage", {})["tenants"][0]
        assert int(alice_day["gameDayRefused"]) > 0 and alice_day["gameDayRefused"] == alice_day["refused"]
        assert {(t["tenant"], t["gameDay"]) for t in admin.ok("GetUsage", {})["tenants"]} == {
            ("alice", "2026-02-13"), ("bob", "2026-03-01")}
        page = clients.http.get("/metrics", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}).text
        assert f'npc_brain_tenant_game_day_llm_calls{{tenant="alice"}} {float(ceiling)}' in page
        refused = re.search(r'^npc_brain_tenant_game_day_llm_refused\{tenant="alice"\} (\S+)$', page, re.M)
        assert refused is not None and float(refused[1]) == int(alice_day["gameDayRefused"])
        assert f'npc_brain_tenant_game_day_llm_calls{{tenant="bob"}} {float(ceiling)}' in page

        # The game's clock passes midnight: Alice's next morning is a fresh day, counted from 0 (and
        # spent again: the fake endpoint answers her day's first Decide with as many calls), while
        # her window holds both days' calls.
        assert alice.grpc("Decide", {"npcId": "isabella", "gameTime": "2026-02-14T08:00:00Z"})["action"]["address"]
        assert len(fake_llm.chat_requests()) == 3 * ceiling
        for usage in (alice.grpc("GetUsage", {}), alice.ok("GetUsage", {})):
            [spend] = usage["tenants"]
            assert (spend["gameDay"], spend["gameDayCalls"], spend["calls"]) == ("2026-02-14", str(ceiling),
                                                                                str(2 * ceiling))
            assert "game day 2026-02-14's allowance" in spend["over"]
            assert int(spend.get("gameDayRefused", 0)) < int(spend["refused"])  # yesterday's refusals stay there
        page = clients.http.get("/metrics", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}).text
        assert f'npc_brain_tenant_game_day_llm_calls{{tenant="alice"}} {float(ceiling)}' in page
        assert f'npc_brain_tenant_llm_calls{{tenant="alice"}} {float(2 * ceiling)}' in page
    finally:
        clients.close()
