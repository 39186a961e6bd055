"""The example game server (tools/game_server.py) logs players in and mints tokens a real brain
takes: each player's town its own, signed with the standard library alone and verified by PyJWT."""

from __future__ import annotations

from collections.abc import Iterator
import threading

import httpx
import pytest

from tests.clients import Clients
from tests.town import WORLD, spawn_json, world_json
from tools import game_server

SECRET = "game-server-secret-0123456789abcdef"


@pytest.fixture
def login() -> Iterator[httpx.Client]:
    server = game_server.serve(SECRET, "http://brain.example", port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with httpx.Client(base_url=f"http://127.0.0.1:{server.server_address[1]}", timeout=30) as client:
        yield client
    server.shutdown()
    server.server_close()


def test_players_log_in_and_each_gets_a_tenant_of_its_own(login, brain_factory) -> None:
    ada = login.post("/login", json={"player": "ada", "password": "lovelace"}).json()
    grace = login.post("/login", json={"player": "grace", "password": "hopper"}).json()
    assert ada["tenant"] != grace["tenant"] and ada["expires_in"] == game_server.TTL_S
    assert login.post("/login", json={"player": "ada", "password": "lovelace"}).json()["tenant"] == ada["tenant"]
    assert login.post("/login", json={"player": "ada", "password": "wrong"}).status_code == 401
    assert login.post("/login", content=b"{not json").status_code == 400

    clients = Clients(brain_factory(jwt_secret=SECRET))
    try:
        def call(token: str, method: str, body: dict) -> httpx.Response:
            return clients.connect(method, body, Authorization=f"Bearer {token}")

        assert call(ada["token"], "RegisterWorld", world_json()).status_code == 200
        assert call(ada["token"], "SpawnNpc", spawn_json()).status_code == 200
        decide = {"npcId": "isabella", "gameTime": "2026-02-13T09:00:00Z"}
        assert call(ada["token"], "Decide", decide).json()["action"]["address"].startswith(f"{WORLD}:")
        assert call(grace["token"], "Decide", decide).json()["code"] == "not_found"  # Ada's NPC, not Grace's
        assert call(ada["token"], "GetTrace", {"npcId": "isabella"}).json()["code"] == "permission_denied"  # play only
        expired = game_server.mint(SECRET, ada["tenant"], ttl_s=-300)
        assert "expired" in call(expired, "Decide", decide).json()["message"]
    finally:
        clients.close()
