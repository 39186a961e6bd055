class_name EventLog
extends RefCounted
## Machine-readable console lines for tests and tools: `NPCBRAIN {"event": ..., ...}`.
##
## One JSON object per line, keys sorted, always with an "event" field. In a web export these
## lines reach the browser console; on desktop, stdout.

const PREFIX := "NPCBRAIN "


## Prints one event line.
static func record(event: String, fields: Dictionary = {}) -> void:
	var payload := {"event": event}
	payload.merge(fields)
	print(PREFIX + JSON.stringify(payload))
