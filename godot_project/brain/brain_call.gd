class_name BrainCall
extends RefCounted
## One queued RPC: the method, its JSON body, and the signal its caller awaits.

## Emitted once, with the outcome.
signal finished(reply: BrainReply)

var method: String
var body: String


func _init(rpc_method: String, json_body: String) -> void:
	method = rpc_method
	body = json_body
