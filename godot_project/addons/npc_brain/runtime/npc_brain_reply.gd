class_name NpcBrainReply
extends RefCounted
## The outcome of one call to the brain: the response message, or a Connect error.
##
## Connect errors are `{"code": "not_found", "message": "..."}` with a non-200 status; failures
## before any answer (no connection, timeout) get the matching Connect code too, so callers
## handle one shape.

## True when the brain answered 200 with a JSON object.
var ok: bool = false
## The response message (proto3 JSON: int64 as strings, enums as names), when ok.
var data: Dictionary = {}
## Connect error code when not ok, e.g. "unavailable", "deadline_exceeded", "invalid_argument".
var code: String = ""
var message: String = ""
## HTTP status, 0 when there was no answer.
var http_status: int = 0
var elapsed_ms: int = 0
## Whether the request reached the brain: it answered (any status), or it was sent and the answer
## did not come in time. False when no connection was made.
var reached: bool = false


## A reply that never reached the brain.
static func failure(error_code: String, error_message: String, elapsed: int = 0) -> NpcBrainReply:
	var reply := NpcBrainReply.new()
	reply.code = error_code
	reply.message = error_message
	reply.elapsed_ms = elapsed
	return reply


## A request that got no answer within `timeout_s`; `connected`: whether it had been sent.
static func timed_out(timeout_s: float, connected: bool, elapsed: int) -> NpcBrainReply:
	var reply := failure("deadline_exceeded", "no answer in %.1f s" % timeout_s, elapsed)
	reply.reached = connected
	return reply


## Interprets what HTTPRequest.request_completed delivered.
static func from_http(
		result: int, status: int, body: PackedByteArray, elapsed: int) -> NpcBrainReply:
	if result != HTTPRequest.RESULT_SUCCESS:
		return failure(_result_code(result), "HTTP request failed (result %d)" % result, elapsed)
	var reply := NpcBrainReply.new()
	reply.http_status = status
	reply.elapsed_ms = elapsed
	reply.reached = true
	var parsed: Variant = JSON.parse_string(body.get_string_from_utf8()) if body.size() else {}
	if status == 200 and parsed is Dictionary:
		reply.ok = true
		reply.data = parsed
	elif status == 200:
		reply.code = "internal"
		reply.message = "response is not a JSON object"
	elif parsed is Dictionary and parsed.has("code"):
		reply.code = str(parsed.get("code"))
		reply.message = str(parsed.get("message", ""))
	else:
		reply.code = _status_code(status)
		reply.message = "HTTP %d" % status
	return reply


static func _result_code(result: int) -> String:
	match result:
		HTTPRequest.RESULT_TIMEOUT:
			return "deadline_exceeded"
		HTTPRequest.RESULT_CANT_CONNECT, HTTPRequest.RESULT_CANT_RESOLVE:
			return "unavailable"
		HTTPRequest.RESULT_CONNECTION_ERROR, HTTPRequest.RESULT_NO_RESPONSE:
			return "unavailable"
		_:
			return "unknown"


# The Connect protocol's mapping of HTTP statuses to codes, for errors without a JSON body.
static func _status_code(status: int) -> String:
	match status:
		400:
			return "invalid_argument"
		401:
			return "unauthenticated"
		403:
			return "permission_denied"
		404:
			return "unimplemented"
		429, 502, 503, 504:
			return "unavailable"
		_:
			return "unknown"
