"""Two players at once in the real Godot 4.6 engine (web build, headless Chromium), each with the
token the example game server mints for them (tools/game_server.py): two pages of one browser
play the Ville against one brain, each its own tenant's town (issue 46)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clients import Clients
from tests.test_godot_web import BOOT_LIMIT_S, _needs_browser
from tools import godot_web
from tools.game_server import mint, tenant_of

SECRET = "two-players-secret-0123456789abcdef"
T0 = "2026-02-13T09:00:00Z"
ISABELLA = "isabella_rodriguez"
SLOW = ("deadline_exceeded", "unavailable")


class SecondPlayer:
    """Another page of the game's browser, with its own console: what a second player's tab shows."""

    def __init__(self, game: godot_web.HeadlessGame, url: str) -> None:
        self.lines: list[str] = []
        self.events: list[dict] = []
        self.page = game.page.context.browser.new_page(viewport=game.viewport)
        self.page.on("console", lambda message: self._record(message.text))
        self.page.goto(url, wait_until="load", timeout=godot_web.PAGE_LOAD_LIMIT_S * 1000)

    def _record(self, line: str) -> None:
        self.lines.append(line)
        self.events.extend(godot_web.event_lines([line]))


def _playing(events: list[dict]) -> bool:
    """The page registered its town and its NPCs are deciding, Isabella among them (she is told a secret)."""
    deciding = {e["npc"] for e in events if e["event"] == "decision"}
    return any(e["event"] == "world_registered" for e in events) and len(deciding) >= 3 and ISABELLA in deciding


@pytest.mark.godot
@pytest.mark.slow
def test_two_players_pages_each_play_their_own_town_with_their_own_token(brain_factory, tmp_path: Path) -> None:
    """Ada's and Bo's pages each register the Ville and play it at once; each page's calls carry its
    own player's token, and the brain keeps two towns of the same names: what is whispered to each
    player's Isabella is in her memories, not in the other's (the RPCs' isolation: tests/test_tenants.py)."""
    _needs_browser()
    web_dir = godot_web.build_web(tmp_path / "web")
    brain = brain_factory(web_root=web_dir, jwt_secret=SECRET)
    tokens = {player: mint(SECRET, tenant_of(player)) for player in ("ada", "bo")}
    sent: dict[str, set[tuple[str, str]]] = {"ada": set(), "bo": set()}  # (authorization, x-npc-tenant)

    def watch(page, player: str) -> None:  # noqa: ANN001 (a playwright Page)
        def on_request(request) -> None:  # noqa: ANN001 (a playwright Request)
            if "/npc_brain.v1.BrainService/" in request.url:
                sent[player].add((request.headers.get("authorization", ""), request.headers.get("x-npc-tenant", "")))
        page.on("request", on_request)

    url = f"{brain.http_url}/?time-scale=60&token="
    with godot_web.HeadlessGame(url + tokens["ada"]) as ada:
        watch(ada.page, "ada")
        bo = SecondPlayer(ada, url + tokens["bo"])
        watch(bo.page, "bo")
        both = ada.wait_until(lambda: _playing(ada.events) and _playing(bo.events), timeout_s=BOOT_LIMIT_S,
                              progress=lambda: len(ada.events) + len(bo.events))
    transcript = "\n".join(["--- ada", *ada.lines[-30:], "--- bo", *bo.lines[-30:]])
    assert both, f"both towns did not come to life:\n{transcript}"
    for page in (ada, bo):  # slow is allowed (a loaded machine): a refusal would be the tenants' doing
        refused = [e for e in page.events if e["event"] == "brain_error" and e["code"] not in SLOW]
        assert not refused, f"{refused[:3]}\n{transcript}"
    for player, page_lines in (("ada", ada.lines), ("bo", bo.lines)):
        # Every call, batches included, names the token's tenant for a proxy that pins tenants (deploy/).
        assert sent[player] == {(f"Bearer {tokens[player]}", tenant_of(player))}, f"{player}'s page sent another token or tenant"
        assert not any(token in line for line in page_lines for token in tokens.values()), "a token reached a console"

    clients = Clients(brain)  # each player's inspector: the same tenant, the inspect scope (whisper, memories)
    as_ada, as_bo = ({"Authorization": f"Bearer {mint(SECRET, tenant_of(p), scope='inspect')}"} for p in ("ada", "bo"))
    secrets = {"ada": "Ada's secret: the bell is cracked", "bo": "Bo's secret: the well is dry"}
    for player, headers in (("ada", as_ada), ("bo", as_bo)):
        whispered = clients.connect("Whisper", {"npcId": ISABELLA, "text": secrets[player], "gameTime": T0},
                                    **headers)
        assert whispered.status_code == 200, whispered.text

    def memories(headers: dict[str, str]) -> str:
        answer = clients.connect("ListMemories", {"npcId": ISABELLA, "limit": 200}, **headers)
        assert answer.status_code == 200, answer.text
        return "\n".join(m["description"] for m in answer.json().get("memories", []))

    # Each Isabella holds her own player's whisper and not the other's (a Bo's Isabella who had not
    # yet formed a memory of her own read as empty: each is told something, so neither is).
    ada_knows, bo_knows = memories(as_ada), memories(as_bo)
    assert "cracked" in ada_knows and "well is dry" not in ada_knows, ada_knows
    assert "well is dry" in bo_knows and "cracked" not in bo_knows, bo_knows
    clients.close()
