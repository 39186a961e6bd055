"""Tenants pinned to brain processes by tenant id (docs/deployment.md, "Several brain processes,
tenants pinned by tenant id"): a tenant's worlds, NPC records, conversations and traces live in
the memory of the one process that serves it, so all its calls must reach that process.

A proxy routes by the `x-npc-tenant` header, since it cannot read (or verify) the JWT: the addon
sends its token's `sub` there, and a game server that mints tokens hands the tenant beside it.
The header is the client's claim, so the brain holds it to the verified token: a header that
names another tenant than the token's is refused (permission_denied: the token does not allow
acting as that tenant; not unauthenticated, as the token itself is good and a fresh one would
be refused alike; it says nothing of whether that other tenant exists). So a wrong header cannot
route a player's calls to the process holding another tenant's town and have them run there.

With NPC_BRAIN_REPLICA_COUNT above 1 a process also knows its place (NPC_BRAIN_REPLICA_INDEX)
and refuses a tenant the documented hash puts on another process (failed_precondition, naming
the right one), so a misrouted call is caught rather than splitting a town across processes.
That hash is nginx's `hash $http_x_npc_tenant;` without `consistent` (Cache::Memcached's:
crc32's middle 15 bits modulo the number of servers of weight 1, in the order listed), which a
game or a load generator can compute too (`replica_of`). Envoy's ring hash cannot be computed by
the brain: behind it, leave the count unset (the header check still holds).
"""

from __future__ import annotations

import zlib

from brain_server.api.tenants import Access
from brain_server.config import Settings
from brain_server.model.validation import shown

TENANT_HEADER = "x-npc-tenant"


def replica_of(tenant: str, replicas: int) -> int:
    """The replica (0-based) that serves `tenant` among `replicas`: what nginx's `hash $http_x_npc_tenant;`
    picks over that many servers of weight 1, listed in replica order, while all are up."""
    return ((zlib.crc32(tenant.encode()) >> 16) & 0x7FFF) % replicas


class Pinning:
    """This process's place among the replicas (count 0 or 1: the only one, nothing to check)."""

    def __init__(self, settings: Settings) -> None:
        self.index, self.count = settings.replica_index, settings.replica_count

    def refusal(self, access: Access, header: str | None) -> tuple[str, str] | None:
        """(Connect code name, message) for a call whose `x-npc-tenant` disagrees with its token, or
        whose tenant this replica does not serve; else None. The admin key (no tenant of its own) may
        send any tenant's header, to reach that tenant's replica."""
        header = header or None
        if header is not None and access.tenant is not None and header != access.tenant:
            return "permission_denied", (f"the {TENANT_HEADER} header names {shown(header)}, but this token is for "
                                         f"tenant {access.tenant!r}: send the token's own tenant (its `sub`)")
        tenant = access.tenant or header
        if self.count > 1 and tenant is not None and (home := replica_of(tenant, self.count)) != self.index:
            return "failed_precondition", (
                f"tenant {shown(tenant)} is served by replica {home} of {self.count}, not by this one "
                f"(replica {self.index}): route by the {TENANT_HEADER} header with nginx's "
                f"`hash $http_{TENANT_HEADER.replace('-', '_')};` over the replicas in index order "
                "(docs/deployment.md)")
        return None
