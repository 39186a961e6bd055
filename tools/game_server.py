"""An example game server (Python standard library only, one file): logs a player in and mints the
signed token the brain accepts for that player's tenant (docs/deployment.md, "Hosting for many
players"). A real game keeps its accounts in its own database and logs players in its own way;
what carries over is `mint`: an HS256 JWT with `sub` (the tenant), `scope` and a short `exp`.

    NPC_BRAIN_JWT_SECRET=... python tools/game_server.py --port 8000 --brain http://brain.example:8080

    POST /login {"player": "ada", "password": "..."}
      -> 200 {"token": "...", "tenant": "p3f9...", "expires_in": 900, "brain": "http://brain.example:8080"}

A player's first login signs it up (this demo keeps accounts in memory); later logins must give
the same password. A token is refreshed by logging in again before `expires_in` runs out.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import json
import os
import secrets
import sys
import threading
import time
from typing import Any

TTL_S = 900
MAX_BODY = 4096


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def mint(secret: str, tenant: str, scope: str = "play", ttl_s: float = TTL_S, now: float | None = None) -> str:
    """An HS256 JWT for `tenant`: what the brain's NPC_BRAIN_JWT_SECRET verifies."""
    issued = int(time.time() if now is None else now)
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    claims = _b64(json.dumps({"sub": tenant, "scope": scope, "iat": issued, "exp": issued + int(ttl_s)},
                             separators=(",", ":")).encode())
    signature = hmac.new(secret.encode(), f"{header}.{claims}".encode(), hashlib.sha256).digest()
    return f"{header}.{claims}.{_b64(signature)}"


def tenant_of(player: str) -> str:
    """A stable tenant id for a player: the brain's tenant ids are 1-24 letters, digits, '_' or '-'."""
    return "p" + hashlib.sha256(player.encode()).hexdigest()[:20]


class Accounts:
    """Players and their password hashes, in memory (a real game has a database)."""

    def __init__(self) -> None:
        self._hashes: dict[str, tuple[bytes, bytes]] = {}
        self._lock = threading.Lock()

    def login(self, player: str, password: str) -> bool:
        with self._lock:
            if player not in self._hashes:
                salt = secrets.token_bytes(16)
                self._hashes[player] = salt, hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 100_000)
                return True
            salt, expected = self._hashes[player]
        return hmac.compare_digest(hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 100_000), expected)


def handler(secret: str, brain: str, ttl_s: float, accounts: Accounts) -> type[BaseHTTPRequestHandler]:
    class Login(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            if self.path != "/login":
                return self._answer(404, {"error": "POST /login"})
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(min(length, MAX_BODY)))
                player, password = str(body["player"]), str(body["password"])
            except (ValueError, KeyError, TypeError):
                return self._answer(400, {"error": 'send {"player": "...", "password": "..."}'})
            if not player or not password or not accounts.login(player, password):
                return self._answer(401, {"error": "wrong player or password"})
            tenant = tenant_of(player)
            self._answer(200, {"token": mint(secret, tenant, "play", ttl_s), "tenant": tenant,
                               "expires_in": int(ttl_s), "brain": brain})

        def _answer(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's name)
            sys.stderr.write(f"game_server: {format % args}\n")

    return Login


def serve(secret: str, brain: str, host: str = "127.0.0.1", port: int = 8000, ttl_s: float = TTL_S) -> ThreadingHTTPServer:
    """The server, bound (port 0 picks a free one) and not yet serving: call serve_forever."""
    return ThreadingHTTPServer((host, port), handler(secret, brain, ttl_s, Accounts()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--brain", default="http://127.0.0.1:8080", help="the brain's HTTP address, told to players")
    parser.add_argument("--ttl", type=float, default=TTL_S, help="seconds a token lives")
    args = parser.parse_args()
    secret = os.environ.get("NPC_BRAIN_JWT_SECRET", "")
    if len(secret) < 32:
        sys.exit("game_server: set NPC_BRAIN_JWT_SECRET to the brain's (at least 32 characters)")
    server = serve(secret, args.brain, args.host, args.port, args.ttl)
    print(f"game_server: POST http://{args.host}:{server.server_address[1]}/login", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
