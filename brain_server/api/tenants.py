"""Tenants: one brain serving many players' towns, each isolated (docs/deployment.md, "Hosting for
many players").

A game server mints each player a signed token (JWT, HS256 with NPC_BRAIN_JWT_SECRET): `sub` is
the tenant (the game decides what one is: a player, a save, a session), `scope` what it may do,
`exp` when it stops working. The brain checks it at the edge (`Tokens.verify`) and each RPC then
runs for an `Access`: the shared NPC_BRAIN_AUTH_TOKEN (and no token on loopback) is the admin/dev
key, every scope and no tenant.

A tenant's names are namespaced at the service edge (`Namespace`), not in the mind: the tenant
and a dot are put before every world name, npc id and address the request carries, and taken out
of every string of the answer (errors included). The mind, the records, the store and the save
files then keep each tenant's things apart with no change, and a tenant has no way to write
another's names: a guessed id is simply one that does not exist (not_found, as any missing id,
so ids do not leak). Save slots live in their world's folder, so a namespaced world has its own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
import functools
import re
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
import jwt

from brain_server.api.towns import SLEEP_SLOT, Towns
from brain_server.config import Settings
from brain_server.model.errors import BrainError, invalid
from brain_server.model.validation import MAX_NAME, NPC_ID, shown
from npc_brain.v1 import brain_pb2 as pb

TENANT = re.compile(r"[A-Za-z0-9_-]{1,24}")  # no dot: "a.b" + "." + "c" could not be told from "a" + "." + "b.c"
MIN_SECRET_CHARS = 32
SCOPES = frozenset({"play", "inspect", "admin"})
INSPECT = frozenset({"ListMemories", "GetTrace", "GetUsage", "Whisper", "Interview"})
ADMIN_ONLY = frozenset({"ExportWorld", "ImportWorld", "metrics"})  # a slot's bytes carry internal names
# Fields (by name, in any message) that hold an npc id or a world name, and those that hold an address.
ID_FIELDS = frozenset({"npc_id", "world_name", "users", "speaker_npc_id"})
ADDRESS_FIELDS = frozenset({"address", "home", "known_areas", "workplace", "target", "targets"})


def scope_of(rpc: str) -> str:
    """The scope an RPC (or "metrics", the HTTP page) needs."""
    return "admin" if rpc in ADMIN_ONLY else "inspect" if rpc in INSPECT else "play"


@dataclass(frozen=True)
class Access:
    """Who a call runs for: a tenant (None: every tenant's names as they are kept) and its scopes."""

    tenant: str | None
    scopes: frozenset[str]

    def allows(self, rpc: str) -> bool:
        return scope_of(rpc) in self.scopes or "admin" in self.scopes


ADMIN = Access(None, SCOPES)


class TokenError(Exception):
    """A signed token refused; `forged` when its signature is not ours (spends the address's
    wrong-token allowance), not when it is ours but expired or incomplete (a client to fix)."""

    def __init__(self, message: str, *, forged: bool) -> None:
        super().__init__(message)
        self.forged = forged


class Tokens:
    """Verifies the JWTs a game server mints (PyJWT): HS256 only, so `alg: none` or a public key
    passed off as an HMAC secret is refused before any claim is read."""

    def __init__(self, settings: Settings) -> None:
        self.secret = settings.jwt_secret.get_secret_value() if settings.jwt_secret else ""
        self.issuer, self.leeway = settings.jwt_issuer, settings.jwt_leeway_s

    @property
    def enabled(self) -> bool:
        return bool(self.secret)

    @staticmethod
    def shaped(bearer: str) -> bool:
        return bearer.count(".") == 2

    def verify(self, bearer: str) -> Access:
        try:
            claims = jwt.decode(bearer, self.secret, algorithms=["HS256"], issuer=self.issuer, leeway=self.leeway,
                                options={"require": ["exp", "sub", "scope"]})
        except jwt.ExpiredSignatureError:
            raise TokenError("the token has expired: ask the game server for a fresh one (tokens are short-lived "
                             "by design; refresh before `exp`)", forged=False) from None
        except jwt.MissingRequiredClaimError as exc:
            raise TokenError(f"the token lacks the claim {exc.claim!r}: a brain token needs `sub` (the tenant), "
                             "`scope` (e.g. \"play\") and `exp`", forged=False) from None
        except (jwt.InvalidIssuerError, jwt.ImmatureSignatureError, jwt.InvalidIssuedAtError) as exc:
            raise TokenError(f"the token is not valid yet or not for this brain ({exc}): check the game server's "
                             "clock and NPC_BRAIN_JWT_ISSUER", forged=False) from None
        except jwt.InvalidAlgorithmError:
            raise TokenError("the token is not signed with HS256 (alg 'none' and other algorithms are refused): "
                             "sign it with NPC_BRAIN_JWT_SECRET and HS256", forged=True) from None
        except jwt.InvalidTokenError as exc:
            raise TokenError(f"the token is not one this brain's key signed ({type(exc).__name__}): sign it with "
                             "NPC_BRAIN_JWT_SECRET and HS256, and send it whole", forged=True) from None
        return _access(claims)


def _access(claims: dict[str, Any]) -> Access:
    sub, scope = claims["sub"], claims["scope"]
    scopes = frozenset(scope.split()) if isinstance(scope, str) else frozenset()
    if not scopes or not scopes <= SCOPES:
        raise TokenError(f"the token's scope {shown(str(scope))} is not a space-separated list of play, inspect "
                         "and admin", forged=False)
    if "admin" in scopes:
        return Access(None, scopes)
    if not isinstance(sub, str) or not TENANT.fullmatch(sub):
        raise TokenError(f"the token's sub {shown(str(sub))} is not a tenant id: use 1-24 letters, digits, '_' "
                         "or '-'", forged=False)
    return Access(sub, scopes)


def check_secret(settings: Settings) -> str | None:
    """Why NPC_BRAIN_JWT_SECRET is unusable, or None."""
    if settings.jwt_secret is None:
        return None
    secret = settings.jwt_secret.get_secret_value()
    if len(secret) < MIN_SECRET_CHARS:
        return (f"NPC_BRAIN_JWT_SECRET is set but has {len(secret)} characters: use at least {MIN_SECRET_CHARS} "
                "random ones, e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`")
    return None


class Namespace:
    """One tenant's names, put in on the way into the core and taken out on the way back."""

    def __init__(self, tenant: str) -> None:
        self.prefix = f"{tenant}."
        self._ours = re.compile(rf"(?<![\w.\-]){re.escape(self.prefix)}(?=\S)")

    def inward(self, request: Message) -> Message:
        request = type(request).FromString(request.SerializeToString())  # the caller's message left as sent
        self._into(request)
        return request

    def outward(self, answer: Message) -> Message:
        self._out_of(answer)
        return answer

    def text(self, text: str) -> str:
        return self._ours.sub("", text)

    def _name(self, field: str, value: str, limit: int) -> str:
        if not value:
            return value
        if len(value) + len(self.prefix) > limit:
            raise invalid(f"{field} {shown(value)} is too long for this tenant: at most "
                          f"{limit - len(self.prefix)} characters")
        return self.prefix + value

    def _id(self, field: str, value: str) -> str:
        if field == "world_name":
            return self._name(field, value, MAX_NAME)
        if value and not NPC_ID.fullmatch(value):
            return value  # refused by the core's own check, with the value as sent
        return self._name(field, value, 64)

    def _address(self, field: str, value: str) -> str:
        if not value or (field in ("target", "targets") and ":" not in value):
            return value  # a target by name, not by address
        return self._name(field, value, 4 * MAX_NAME + 3)

    def _into(self, message: Message) -> None:
        if message.DESCRIPTOR.name == "World" and message.name:
            message.name = self._name("world.name", message.name, MAX_NAME)
        for field, value in message.ListFields():
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                for child in value if field.is_repeated else [value]:
                    self._into(child)
            elif field.type == FieldDescriptor.TYPE_STRING:
                change = (self._id if field.name in ID_FIELDS else self._address if field.name in ADDRESS_FIELDS
                          else None)
                if field.name == "residents":  # npc ids or persona names: both kept, the ids namespaced
                    value.extend([self.prefix + v for v in list(value) if NPC_ID.fullmatch(v)])
                elif change is not None and field.is_repeated:
                    value[:] = [change(field.name, v) for v in value]
                elif change is not None:
                    setattr(message, field.name, change(field.name, value))

    def _out_of(self, message: Message) -> None:
        for field, value in message.ListFields():
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                for child in value if field.is_repeated else [value]:
                    self._out_of(child)
            elif field.type == FieldDescriptor.TYPE_STRING:
                if field.is_repeated:
                    value[:] = [self.text(v) for v in value]
                else:
                    setattr(message, field.name, self.text(value))

    def owns(self, npc_id: str) -> bool:
        return npc_id.startswith(self.prefix)


def _usage(space: Namespace, answer: pb.GetUsageResponse) -> pb.GetUsageResponse:
    """Only the tenant's NPCs' counters and its own spend; the process-wide figures (queues,
    latencies, refusals) are the other tenants' activity too, so they are left out."""
    allowance = answer.allowance
    return pb.GetUsageResponse(counters=[c for c in answer.counters if space.owns(c.npc_id)],
                               hourly=[h for h in answer.hourly if space.owns(h.npc_id)],
                               allowance=pb.CallAllowance(calls_per_npc_hour=allowance.calls_per_npc_hour,
                                                          calls_per_hour=allowance.calls_per_hour),
                               tenants=[t for t in answer.tenants if space.prefix == f"{t.tenant}."],
                               tenant_ceiling=answer.tenant_ceiling)


def namespaced(name: str, method: Callable[[Message], Awaitable[Message]],
               missing_trace: Callable[[str], BrainError], towns: Towns) -> Callable[[Message, Access], Awaitable[Message]]:
    """`method` run for the calling tenant (the transports pass its `Access`), its town awake (`towns`):
    its names put in, the answer's and any error's taken out. Answers that are not about one NPC are narrowed to the
    tenant's: a trace asked by id answers as a missing one (`missing_trace`) when it is another tenant's; the brain's
    own sleep slot is not among a tenant's saves (it cannot name it)."""

    @functools.wraps(method)
    async def call(request: Message, access: Access) -> Message:
        if access.tenant is None:
            return await method(request)
        space = Namespace(access.tenant)
        inner = space.inward(request)
        try:
            async with towns.visit(access.tenant):
                answer = await method(inner)
            if name == "GetTrace" and not space.owns(answer.trace.npc_id):
                raise missing_trace(inner.trace_id)
            if name == "GetUsage":
                answer = _usage(space, answer)
            if name == "ListSaves":
                answer = pb.ListSavesResponse(saves=[s for s in answer.saves if s.slot != SLEEP_SLOT])
        except BrainError as exc:
            raise BrainError(exc.status, space.text(exc.message)) from None
        return space.outward(answer)

    return call


def namespaced_stream(method: Callable[[Message], AsyncIterator[Message]], towns: Towns,
                      ) -> Callable[[Message, Access], AsyncIterator[Message]]:
    """A server-streaming RPC run for the calling tenant, as `namespaced`."""

    async def call(request: Message, access: Access) -> AsyncIterator[Message]:
        if access.tenant is None:
            async for message in method(request):
                yield message
            return
        space = Namespace(access.tenant)
        try:
            async with towns.visit(access.tenant):
                async for message in method(space.inward(request)):
                    yield space.outward(message)
        except BrainError as exc:
            raise BrainError(exc.status, space.text(exc.message)) from None

    return call
