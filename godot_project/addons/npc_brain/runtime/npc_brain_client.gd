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
##
## Every reply updates `state`: ONLINE while answers arrive in time, SLOW while the brain is
## reachable but answers time out or take longer than `slow_after_s` (`--brain-slow-after-s=`,
## setting `npc_brain/brain/slow_after_s`), FAILING when no connection is made, the brain is
## unavailable, or it fails internally several times in a row.

## Emitted when `state` changes; `detail` says why (e.g. "Decide: no answer in 15.0 s").
signal status_changed(state: State, detail: String)

## How the brain answers, as seen from here.
enum State {
	CONNECTING, ## No answer yet.
	ONLINE, ## Answers arrive in time.
	SLOW, ## Reachable, but answers time out or come later than `slow_after_s`.
	FAILING, ## No connection, unavailable, or internal errors again and again.
}

const SERVICE_PATH := "/npc_brain.v1.BrainService/"
const DEFAULT_URL := "http://127.0.0.1:8080"
const URL_SETTING := "npc_brain/brain/url"
const TIMEOUT_SETTING := "npc_brain/brain/timeout_s"
const SLOW_SETTING := "npc_brain/brain/slow_after_s"
const TOKEN_SETTING := "npc_brain/brain/token"
const WORLD_LANE := "world"
## Error answers in a row (internal, unknown, data loss) after which the brain is FAILING.
const FAILING_AFTER_ERRORS := 3
## Connect codes of a brain failing inside (answered, but could not do the work).
const SERVER_ERRORS: PackedStringArray = ["internal", "unknown", "data_loss"]
## Real milliseconds SLOW lasts after its last sign: one quick answer among timeouts is no cure.
const SLOW_HOLD_MSEC := 10000
## Calls that wait for the LLM by design (the player's): their latency says nothing about health.
const LLM_BOUND_METHODS: PackedStringArray = ["Talk", "Interview"]

## e.g. "http://127.0.0.1:8080", without a trailing slash.
var base_url: String = DEFAULT_URL
## Per-request timeout in seconds.
var timeout_s: float = 15.0
## Answers slower than this (seconds) make the brain SLOW.
var slow_after_s: float = 5.0
## The brain's state after the latest reply.
var state: State = State.CONNECTING

var _lanes: Dictionary[String, BrainLane] = {}
var _token: String = ""
var _errors_in_row: int = 0
var _slow_until_msec: int = 0


func _ready() -> void:
	base_url = _resolve_base_url().trim_suffix("/")
	timeout_s = _setting_or_arg(TIMEOUT_SETTING, "brain-timeout-s", timeout_s)
	slow_after_s = _setting_or_arg(SLOW_SETTING, "brain-slow-after-s", slow_after_s)
	_token = LaunchArgs.get_value("token", str(ProjectSettings.get_setting(TOKEN_SETTING, "")))
	EventLog.record("brain_client", {
		"base_url": base_url, "timeout_s": timeout_s, "slow_after_s": slow_after_s,
		"token": _token != "",
	})


## Calls `method` with `request` (a Dictionary in proto3 JSON form) on `lane` (one request in
## flight per lane: use the NPC id). Always returns a reply; never raises.
func call_rpc(method: String, request: Dictionary, lane: String = WORLD_LANE) -> BrainReply:
	var call := BrainCall.new(method, JSON.stringify(request), _headers_for(request))
	if not _lane(lane).submit(call):
		return BrainReply.failure("resource_exhausted", "%s: lane %s is full" % [method, lane])
	var reply: BrainReply = await call.finished
	_observe(method, reply)
	if not reply.ok:
		EventLog.record("brain_error", {
			"method": method, "lane": lane, "code": reply.code, "message": reply.message,
			"status": reply.http_status,
		})
	return reply


## The name of `state`, e.g. "ONLINE".
func state_name() -> String:
	return State.keys()[state]


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


# What one reply says about the brain.
func _observe(method: String, reply: BrainReply) -> void:
	if reply.code == "deadline_exceeded" and reply.reached:
		_slow_until_msec = Time.get_ticks_msec() + SLOW_HOLD_MSEC
		_set_state(State.SLOW, "%s: %s" % [method, reply.message])
	elif not reply.reached or reply.code == "unavailable":
		_set_state(State.FAILING, reply.code)
	elif reply.code in SERVER_ERRORS:
		_errors_in_row += 1
		if _errors_in_row >= FAILING_AFTER_ERRORS:
			_set_state(State.FAILING, "%s, %d in a row" % [reply.code, _errors_in_row])
	else:
		_errors_in_row = 0
		var seconds := reply.elapsed_ms / 1000.0
		if seconds > slow_after_s and method not in LLM_BOUND_METHODS:
			_slow_until_msec = Time.get_ticks_msec() + SLOW_HOLD_MSEC
			_set_state(State.SLOW, "%s took %.1f s" % [method, seconds])
		elif state != State.SLOW or Time.get_ticks_msec() >= _slow_until_msec:
			_set_state(State.ONLINE, "")


func _set_state(value: State, detail: String) -> void:
	if value == state:
		return
	state = value
	EventLog.record("brain_status", {
		"state": state_name(), "reachable": state in [State.ONLINE, State.SLOW], "detail": detail,
	})
	status_changed.emit(state, detail)


func _setting_or_arg(setting: String, arg: String, fallback: float) -> float:
	var from_settings := float(ProjectSettings.get_setting(setting, fallback))
	var from_args := LaunchArgs.get_value(arg)
	return from_args.to_float() if from_args.is_valid_float() else from_settings


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
