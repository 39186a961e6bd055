class_name NpcBrainError
extends RefCounted
## A failed call to the brain, as the game should treat it.
##
## TRANSIENT: the brain is away, slow or busy; calls are retried with a growing delay.
## RECOVERABLE: the brain lost state (restarted on an empty store): the addon registers the
## world again (`failed_precondition`) or spawns the NPC again (`not_found`) and carries on.
## PERMANENT: the request itself is wrong (a duplicate sector name, an NPC name another NPC
## of the world has, a bad token): retrying cannot help; the developer has to fix something,
## so it is reported with push_error and the `failed` signals, and not retried in a loop.

enum Kind { TRANSIENT, RECOVERABLE, PERMANENT }

const TRANSIENT_CODES: PackedStringArray = [
	"unavailable", "deadline_exceeded", "resource_exhausted", "aborted", "internal", "unknown",
	"data_loss", "canceled",
]
const RECOVERABLE_CODES: PackedStringArray = ["failed_precondition", "not_found"]

## The RPC, e.g. "RegisterWorld".
var method: String = ""
## Connect error code, e.g. "invalid_argument".
var code: String = ""
## The brain's message: says what to fix.
var message: String = ""
## HTTP status, 0 when there was no answer.
var http_status: int = 0
## The NPC the call was about ("" for the world's calls).
var npc_id: String = ""


## The error of a failed reply.
static func from_reply(
		rpc_method: String, reply: NpcBrainReply, about_npc: String = ""
) -> NpcBrainError:
	var error := NpcBrainError.new()
	error.method = rpc_method
	error.code = reply.code
	error.message = reply.message
	error.http_status = reply.http_status
	error.npc_id = about_npc
	return error


## How the game handles it.
func get_kind() -> Kind:
	if code in TRANSIENT_CODES:
		return Kind.TRANSIENT
	if code in RECOVERABLE_CODES:
		return Kind.RECOVERABLE
	return Kind.PERMANENT


## Whether retrying as is cannot help.
func is_permanent() -> bool:
	return get_kind() == Kind.PERMANENT


## One line for people, e.g. "RegisterWorld failed (invalid_argument): two sectors ...".
func describe() -> String:
	var about := " for NPC %s" % npc_id if npc_id != "" else ""
	return "%s%s failed (%s): %s" % [method, about, code, message]
