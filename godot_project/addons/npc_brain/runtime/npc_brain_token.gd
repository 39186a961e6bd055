class_name NpcBrainToken
extends RefCounted
## What the client reads of a signed token (a JWT a game server minted, docs/deployment.md):
## its `exp`, from the payload, without verifying it. The brain verifies; the game only needs to
## know when to ask its server for a fresh one, a margin before the brain would refuse it.


## The token's `exp` (Unix seconds), or 0 when it has none: a shared token, or not a JWT.
static func expiry(token: String) -> float:
	var parts := token.split(".")
	if parts.size() != 3:
		return 0.0
	var payload := parts[1].replace("-", "+").replace("_", "/")
	payload += "=".repeat((4 - payload.length() % 4) % 4)
	var claims: Variant = JSON.parse_string(Marshalls.base64_to_utf8(payload))
	if not claims is Dictionary:
		return 0.0
	var exp: Variant = claims.get("exp")
	return float(exp) if exp is float or exp is int else 0.0


## Seconds from `now` (Unix seconds) until the token should be refreshed, `margin_s` before its
## `exp` (0 when that time has come); -1 for a token that does not expire.
static func refresh_in(token: String, now: float, margin_s: float) -> float:
	var exp := expiry(token)
	if exp <= 0.0:
		return -1.0
	return maxf(0.0, exp - margin_s - now)
