class_name NpcBrainCall
extends RefCounted
## One queued RPC: the method, its JSON body, its own headers, and the signal its caller awaits.

## Emitted once, with the outcome.
signal finished(reply: NpcBrainReply)

var method: String
var body: String
## "Name: value" lines sent with this call only (the lane adds the protocol's own).
var headers: PackedStringArray
## The request itself, for a Decide gathered into a DecideBatch (`body` is then unused).
var request: Dictionary = {}


func _init(rpc_method: String, json_body: String, extra_headers := PackedStringArray()) -> void:
	method = rpc_method
	body = json_body
	headers = extra_headers
