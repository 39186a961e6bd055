"""Access control shared by both transports: who may bind where, bearer tokens compared in
constant time, and a token bucket per client address.

Policy (docs/deployment.md has the why):
- loopback only by default; binding to any other address needs NPC_BRAIN_AUTH_TOKEN (or
  NPC_BRAIN_JWT_SECRET);
- with a token set, every BrainService RPC needs `Authorization: Bearer <token>` (gRPC metadata
  or HTTP header); gRPC health and reflection and the static web files stay open;
- with NPC_BRAIN_JWT_SECRET set, a token a game server signed also does, for its tenant and its
  scopes (tenants.py); an RPC outside them answers permission_denied, and so does an `x-npc-tenant`
  header (what proxies pin tenants to processes by) naming another tenant (pinning.py);
- a token is set or it is not: an empty or short token (or one with spaces or control characters,
  which no header carries intact) stops the brain at start, never quietly means "no token";
- every client address gets a token bucket (NPC_BRAIN_RATE_LIMIT_PER_S, _BURST), which wrong
  tokens spend too; an empty bucket answers resource_exhausted;
- wrong tokens also spend a bucket of their own (AUTH_FAILURE_BURST, refilled at
  AUTH_FAILURES_PER_S), which no setting turns off: once it is empty the address is refused,
  right token or not, until it refills, so a token cannot be guessed at the request rate;
- on the HTTP port (transport/connect_http.py, `HttpPolicy`): the Host header must name this brain
  (DNS rebinding) and a browser's Origin must be allowed (CORS), else 403.
"""

from __future__ import annotations

from collections import OrderedDict
import hmac
import ipaddress
import re
import time
from urllib.parse import urlsplit
from weakref import WeakKeyDictionary

from brain_server.api.pinning import Pinning
from brain_server.api.tenants import ADMIN, Access, TokenError, Tokens, check_secret, scope_of
from brain_server.config import Settings

MAX_PEERS = 10_000  # buckets kept; the least recently seen address is forgotten first
MIN_TOKEN_CHARS = 16
AUTH_FAILURE_BURST = 10  # wrong tokens an address may send at once...
AUTH_FAILURES_PER_S = 0.2  # ...and then one every 5 seconds


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
    """Refuses (one line) a token that is set but unusable, and a non-loopback bind without one."""
    if settings.auth_token is not None:
        token = settings.auth_token.get_secret_value()
        if len(token) < MIN_TOKEN_CHARS or any(c.isspace() or not c.isprintable() for c in token):
            what = "empty" if not token else (f"{len(token)} characters" if len(token) < MIN_TOKEN_CHARS
                                              else "has spaces or control characters")
            raise InsecureBindError(f"NPC_BRAIN_AUTH_TOKEN is set but unusable ({what}): use at least "
                                    f"{MIN_TOKEN_CHARS} printable characters without spaces, e.g. the output of "
                                    "`python -c 'import secrets; print(secrets.token_urlsafe(24))'`, or unset it "
                                    "to serve on loopback without a token")
    if (unusable := check_secret(settings)) is not None:
        raise InsecureBindError(unusable)
    if settings.auth_token is None and settings.jwt_secret is None and not is_loopback(settings.host):
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

    def has_tokens(self, peer: str, now: float | None = None) -> bool:
        """Whether `peer` could spend a token now, without spending one."""
        if peer not in self._buckets:
            return True
        now = time.monotonic() if now is None else now
        tokens, last = self._buckets[peer]
        return min(float(self.burst), tokens + (now - last) * self.rate) >= 1.0


class Guard:
    """One per brain process, shared by both transports."""

    def __init__(self, settings: Settings) -> None:
        token = settings.auth_token.get_secret_value() if settings.auth_token else ""
        self._expected = f"Bearer {token}".encode() if token else b""
        self.tokens = Tokens(settings)
        self.limiter = RateLimiter(settings.rate_limit_per_s, settings.rate_limit_burst)
        self.failures = RateLimiter(AUTH_FAILURES_PER_S, AUTH_FAILURE_BURST)
        self.pinning = Pinning(settings)

    @property
    def needs_token(self) -> bool:
        return bool(self._expected) or self.tokens.enabled

    def authorized(self, authorization: str | None) -> bool:
        if not self._expected:
            return not self.tokens.enabled
        return hmac.compare_digest((authorization or "").encode("utf-8", "replace"), self._expected)

    def check(self, authorization: str | None, peer: str, rpc: str,
              tenant: str | None = None) -> tuple[str, str] | Access:
        """Who the call `rpc` runs for, else (Connect code name, message); `tenant` is its `x-npc-tenant`
        header, held to the token and to this replica's tenants (pinning.py). Every call spends the
        address's bucket, wrong tokens included; an address out of wrong-token allowance is refused
        whatever it sends, so that guessing right cannot be told from guessing wrong. A signed
        token that is ours but expired or incomplete does not spend that allowance: its signature
        shows it was not guessed."""
        if self.needs_token and not self.failures.has_tokens(peer):
            return "resource_exhausted", (f"too many wrong tokens from {peer}: wait "
                                          f"{1 / AUTH_FAILURES_PER_S:g} s, then send the right one")
        if not self.limiter.allow(peer):
            return "resource_exhausted", (f"too many requests from {peer}: the limit is "
                                          f"{self.limiter.rate:g}/s (bursts of {self.limiter.burst}); slow down")
        access = ADMIN if self.authorized(authorization) else self._signed(authorization or "", peer)
        if isinstance(access, Access) and not access.allows(rpc):
            return "permission_denied", (f"{rpc} needs the scope {scope_of(rpc)!r}, which this token's "
                                         f"({' '.join(sorted(access.scopes))}) lacks: ask the game server for a "
                                         "token with it")
        if isinstance(access, Access) and (misrouted := self.pinning.refusal(access, tenant)) is not None:
            return misrouted
        return access

    def access_of(self, authorization: str | None) -> Access:
        """Who a call `check` let through runs for (a transport that checked it before decoding
        asks again where it answers); a signed token that expired meanwhile: TokenError."""
        if self.authorized(authorization):
            return ADMIN
        return self.tokens.verify((authorization or "").removeprefix("Bearer "))

    def _signed(self, authorization: str, peer: str) -> tuple[str, str] | Access:
        bearer = authorization.removeprefix("Bearer ")
        if self.tokens.enabled and bearer != authorization and Tokens.shaped(bearer):
            try:
                return self.tokens.verify(bearer)
            except TokenError as exc:
                if exc.forged:
                    self.failures.allow(peer)
                return "unauthenticated", str(exc)
        self.failures.allow(peer)
        signed = " or a token the game server signed with NPC_BRAIN_JWT_SECRET" if self.tokens.enabled else ""
        return "unauthenticated", ("missing or wrong token: send the header 'Authorization: Bearer <token>' "
                                   f"with the brain's NPC_BRAIN_AUTH_TOKEN{signed}")


# Pages served from this machine: what a local game's web build (or tools/godot_web.py serve) runs on.
LOCAL_ORIGIN = re.compile(r"https?://(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d{1,5})?")
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_BINDS = frozenset({"0.0.0.0", "::", ""})


class HttpPolicy:
    """Who may call over HTTP from a browser. The Host header must name this brain: localhost,
    loopback, the bind address (any IP address when bound to all of them) or NPC_BRAIN_ALLOWED_HOSTS,
    so a page on a name that rebinds to 127.0.0.1 is refused. An Origin (a browser's call) must be the
    page's own origin, or one of NPC_BRAIN_CORS_ORIGINS, or, when that is unset, a local page."""

    def __init__(self, settings: Settings) -> None:
        origins = settings.cors_origins
        self.local_origins = origins is None
        self.origins = frozenset(o.rstrip("/").lower() for o in origins or ())
        bind = settings.host.strip("[]").lower()
        self.hosts = LOCAL_HOSTS | {bind} | {h.lower() for h in settings.allowed_hosts}
        self.any_host = "*" in settings.allowed_hosts
        self.any_ip = bind in WILDCARD_BINDS

    def host_allowed(self, host: str | None) -> bool:
        if host is None or self.any_host:
            return True  # no Host header: not a browser (HTTP/1.0 tools)
        try:
            name = urlsplit(f"//{host}").hostname or ""
        except ValueError:
            return False
        if name in self.hosts:
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return self.any_ip

    def origin_allowed(self, origin: str | None, host: str | None) -> bool:
        if origin is None:
            return True  # not a browser's cross-site call (Godot desktop, grpcurl, curl)
        origin = origin.rstrip("/").lower()
        if host is not None and origin in (f"http://{host.lower()}", f"https://{host.lower()}"):
            return True  # the page's own origin (the brain serves the Godot web build)
        if "*" in self.origins or origin in self.origins:
            return True
        return self.local_origins and LOCAL_ORIGIN.fullmatch(origin) is not None


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
