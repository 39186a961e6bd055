class_name NpcBrainToken
extends RefCounted
## What the client reads of a signed token (a JWT a game server minted, docs/deployment.md):
## its `exp` and its tenant (`sub`), from the payload, without verifying it. The brain verifies;
## the game only needs to know when to ask its server for a fresh one, a margin before the brain
## would refuse it, and which tenant to name in `x-npc-tenant` for a proxy that pins tenants.


## The token's claims, or an empty Dictionary: a shared token, or not a JWT.
static func claims(token: String) -> Dictionary:
	var parts := token.split(".")
	if parts.size() != 3:
		return {}
	var payload := parts[1].replace("-", "+").replace("_", "/")
	payload += "=".repeat((4 - payload.length() % 4) % 4)
	var parsed: Variant = JSON.parse_string(Marshalls.base64_to_utf8(payload))
	return parsed if parsed is Dictionary else {}


## The token's `exp` (Unix seconds), or 0 when it has none: a shared token, or not a JWT.
static func expiry(token: String) -> float:
	var exp: Variant = claims(token).get("exp")
	return float(exp) if exp is float or exp is int else 0.0


## The tenant a player's token is for (its `sub`), or "" for a shared token or an `admin` one,
## which is no tenant's.
static func tenant(token: String) -> String:
	var read := claims(token)
	var sub: Variant = read.get("sub")
	var scope: Variant = read.get("scope")
	if not sub is String or (scope is String and "admin" in str(scope).split(" ")):
		return ""
	return sub


## Seconds from `now` (Unix seconds) until the token should be refreshed, `margin_s` before its
## `exp` (0 when that time has come); -1 for a token that does not expire.
static func refresh_in(token: String, now: float, margin_s: float) -> float:
	var exp := expiry(token)
	if exp <= 0.0:
		return -1.0
	return maxf(0.0, exp - margin_s - now)
