extends Node
## Talks to the npc-brain service (autoload `BrainClient`) with the Connect protocol's unary
## JSON form over HTTP/1.1: `POST {base}/npc_brain.v1.BrainService/{Method}`, the request as
## proto3 JSON. Works on desktop and in web exports (no gRPC or HTTP/2 needed).
##
## Base URL: `--brain-url=` if given, else the page's own origin in a web export, else the
## `npc_brain/brain/url` project setting, else http://127.0.0.1:8080.
##
## Token: when the brain wants one (NPC_BRAIN_AUTH_TOKEN), `--token=` (`?token=` on the page) or
## the `npc_brain/brain/token` project setting; every call then sends `Authorization: Bearer`.
## The token is never logged. Calls about one NPC carry `x-npc-id`, so a load balancer can keep
## each NPC on one brain replica (docs/deployment.md).
##
## Usage: `var reply := await BrainClient.call_rpc("Decide", request, npc_id)`.

## Emitted when the brain becomes reachable or stops being so.
signal status_changed(reachable: bool, detail: String)

const SERVICE_PATH := "/npc_brain.v1.BrainService/"
const DEFAULT_URL := "http://127.0.0.1:8080"
const URL_SETTING := "npc_brain/brain/url"
const TIMEOUT_SETTING := "npc_brain/brain/timeout_s"
const TOKEN_SETTING := "npc_brain/brain/token"
const WORLD_LANE := "world"

## e.g. "http://127.0.0.1:8080", without a trailing slash.
var base_url: String = DEFAULT_URL
## Per-request timeout in seconds.
var timeout_s: float = 15.0
## Whether the last answer (or failure) showed the brain reachable.
var reachable: bool = false

var _lanes: Dictionary[String, BrainLane] = {}
var _token: String = ""


func _ready() -> void:
	base_url = _resolve_base_url().trim_suffix("/")
	timeout_s = float(ProjectSettings.get_setting(TIMEOUT_SETTING, timeout_s))
	_token = LaunchArgs.get_value("token", str(ProjectSettings.get_setting(TOKEN_SETTING, "")))
	EventLog.record("brain_client", {
		"base_url": base_url, "timeout_s": timeout_s, "token": _token != "",
	})


## Calls `method` with `request` (a Dictionary in proto3 JSON form) on `lane` (one request in
## flight per lane: use the NPC id). Always returns a reply; never raises.
func call_rpc(method: String, request: Dictionary, lane: String = WORLD_LANE) -> BrainReply:
	var call := BrainCall.new(method, JSON.stringify(request), _headers_for(request))
	if not _lane(lane).submit(call):
		return BrainReply.failure("resource_exhausted", "%s: lane %s is full" % [method, lane])
	var reply: BrainReply = await call.finished
	_set_reachable(reply.ok or reply.http_status != 0, reply.code)
	if not reply.ok:
		EventLog.record("brain_error", {
			"method": method, "lane": lane, "code": reply.code, "message": reply.message,
			"status": reply.http_status,
		})
	return reply


## Whether `lane` has a request in flight or queued.
func is_busy(lane: String) -> bool:
	return _lanes.has(lane) and _lanes[lane].is_busy()


func _lane(key: String) -> BrainLane:
	if not _lanes.has(key):
		var lane := BrainLane.new()
		lane.name = "Lane_" + key.validate_node_name()
		lane.endpoint = base_url + SERVICE_PATH
		lane.timeout_s = timeout_s
		add_child(lane)
		_lanes[key] = lane
	return _lanes[key]


func _headers_for(request: Dictionary) -> PackedStringArray:
	var headers := PackedStringArray()
	if _token != "":
		headers.append("Authorization: Bearer " + _token)
	var npc_id := str(request.get("npcId", ""))
	if npc_id != "":
		headers.append("x-npc-id: " + npc_id)
	return headers


func _set_reachable(value: bool, detail: String) -> void:
	if value != reachable:
		reachable = value
		EventLog.record("brain_status", {"reachable": value, "detail": detail})
		status_changed.emit(reachable, detail)


func _resolve_base_url() -> String:
	var from_args := LaunchArgs.get_value("brain-url")
	if from_args != "":
		return from_args
	if OS.has_feature("web"):
		var origin: Variant = JavaScriptBridge.eval("window.location.origin", true)
		if origin is String and (origin as String).begins_with("http"):
			return origin
	var from_settings := str(ProjectSettings.get_setting(URL_SETTING, ""))
	return from_settings if from_settings != "" else DEFAULT_URL
