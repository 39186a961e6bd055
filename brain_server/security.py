"""Access control shared by both transports: who may bind where, bearer tokens compared in
constant time, and a token bucket per client address.

Policy (docs/deployment.md has the why):
- loopback only by default; binding to any other address needs NPC_BRAIN_AUTH_TOKEN;
- with a token set, every BrainService RPC needs `Authorization: Bearer <token>` (gRPC metadata
  or HTTP header); gRPC health and reflection and the static web files stay open;
- every client address gets a token bucket (NPC_BRAIN_RATE_LIMIT_PER_S, _BURST); an empty
  bucket answers resource_exhausted.
"""

from __future__ import annotations

from collections import OrderedDict
import hmac
import ipaddress
import time
from weakref import WeakKeyDictionary

from brain_server.config import Settings

MAX_PEERS = 10_000  # buckets kept; the least recently seen address is forgotten first


class InsecureBindError(OSError):
    """Refusing to listen beyond loopback without a token (an OSError, so the CLI prints one line)."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(settings: Settings) -> None:
    if not is_loopback(settings.host) and settings.auth_token is None:
        raise InsecureBindError(f"refusing to listen on {settings.host} without a token: set NPC_BRAIN_AUTH_TOKEN "
                                "(clients send 'Authorization: Bearer <token>') or bind to 127.0.0.1")


class RateLimiter:
    """A token bucket per client address: `rate` requests a second, bursts up to `burst`."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, max(1, burst)
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, peer: str, now: float | None = None) -> bool:
        if self.rate <= 0:
            return True
        now = time.monotonic() if now is None else now
        tokens, last = self._buckets.pop(peer, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        allowed = tokens >= 1.0
        self._buckets[peer] = (tokens - 1.0 if allowed else tokens, now)
        while len(self._buckets) > MAX_PEERS:
            self._buckets.popitem(last=False)
        return allowed


class Guard:
    """One per brain process, shared by both transports."""

    def __init__(self, settings: Settings) -> None:
        token = settings.auth_token.get_secret_value() if settings.auth_token else ""
        self._expected = f"Bearer {token}".encode() if token else b""
        self.limiter = RateLimiter(settings.rate_limit_per_s, settings.rate_limit_burst)

    @property
    def needs_token(self) -> bool:
        return bool(self._expected)

    def authorized(self, authorization: str | None) -> bool:
        if not self._expected:
            return True
        return hmac.compare_digest((authorization or "").encode("utf-8", "replace"), self._expected)

    def check(self, authorization: str | None, peer: str) -> tuple[str, str] | None:
        """None when the call may go on, else (Connect code name, message)."""
        if not self.authorized(authorization):
            return "unauthenticated", ("missing or wrong token: send the header 'Authorization: Bearer <token>' "
                                       "with the brain's NPC_BRAIN_AUTH_TOKEN")
        if not self.limiter.allow(peer):
            return "resource_exhausted", (f"too many requests from {peer}: the limit is "
                                          f"{self.limiter.rate:g}/s (bursts of {self.limiter.burst}); slow down")
        return None


_GUARDS: WeakKeyDictionary[object, Guard] = WeakKeyDictionary()


def guard_for(core: object, settings: Settings) -> Guard:
    """The process's guard for one core: both transports share its buckets."""
    if core not in _GUARDS:
        _GUARDS[core] = Guard(settings)
    return _GUARDS[core]


def grpc_peer_host(peer: str) -> str:
    """'ipv4:127.0.0.1:5555' / 'ipv6:[::1]:5555' -> the address without the port."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rsplit(":", 1)[0]
    if kind == "ipv6":
        return rest.rsplit(":", 1)[0].strip("[]")
    return peer
