@icon("res://addons/npc_brain/icons/brain.svg")
class_name NpcBrainClient
extends Node
## Talks to the npc-brain service (the addon's autoload `NpcBrain`) with the Connect protocol's
## unary JSON form over HTTP/1.1: `POST {base}/npc_brain.v1.BrainService/{Method}`, the request
## as proto3 JSON. Works on desktop and in web exports (no gRPC or HTTP/2 needed).
##
## Base URL: `--brain-url=` if given, else the `npc_brain/brain/url` project setting when set
## (a web build hosted apart from the brain), else the page's own origin in a web export (a
## build the brain serves), else http://127.0.0.1:8080.
##
## Token: when the brain wants one (NPC_BRAIN_AUTH_TOKEN), `--token=` (`?token=` on the page) or
## the `npc_brain/brain/token` project setting; every call then sends `Authorization: Bearer`.
## The token is never logged. A signed token (a game server's, for one player) expires:
## `token_expiring` says so `TOKEN_REFRESH_MARGIN_S` before its `exp` (read from the token, not
## verified), and `set_token` hands the fresh one, which the next call sends.
## Calls about one NPC carry `x-npc-id`, and every call with a player's token carries its tenant
## in `x-npc-tenant`, so a load balancer can keep each NPC, or each tenant's whole town (batches
## included), on one brain replica (docs/deployment.md).
##
## Games rarely call it directly: NpcBrainWorld registers the world and NpcBrainAgent drives
## each NPC. Tools can: `var reply := await NpcBrain.call_rpc("GetTrace", request, lane)`.
##
## Decides (`decide`) are gathered per frame into DecideBatch calls of at most `BATCH_MAX`, at
## most `BATCH_LANES` in flight (those due meanwhile wait for the next): a town of any size makes
## a few requests a second, not one per NPC. A brain without DecideBatch (older: 404) gets
## single Decides from then on, as does a client whose `batch_decides` is false.
##
## Every reply updates `state`: ONLINE while answers arrive in time, SLOW while the brain is
## reachable but answers time out or take longer than `slow_after_s` (`--brain-slow-after-s=`,
## setting `npc_brain/brain/slow_after_s`), FAILING when no connection is made, the brain is
## unavailable, or it fails internally several times in a row.

## Emitted when `state` changes, and while SLOW when its reason does; `detail` says why (e.g.
## "Decide: no answer in 15.0 s"), the latest reason.
signal status_changed(state: State, detail: String)
## Emitted for every failed call (after it was logged), whatever the caller does about it.
signal call_failed(error: NpcBrainError)
## Emitted when an agent's NPC comes into the player's view or leaves it (the agent's own
## `attention_changed`, for tools that watch every NPC, like the debug bar).
signal agent_attention_changed(agent: NpcBrainAgent, in_view: bool)
## The brain saved the world under `slot` (`save`: the brain's SaveInfo, e.g. "gameTime").
signal game_saved(slot: String, save: Dictionary)
## A load of `slot` starts: agents stop calling until `game_loaded` (or `game_load_failed`).
signal game_loading(slot: String)
## The brain and the clock are back at `slot`'s save; agents spawn and decide again.
signal game_loaded(slot: String, save: Dictionary)
## The load of `slot` failed (nothing changed when the brain refused it, e.g. no such slot).
signal game_load_failed(slot: String, error: NpcBrainError)
## The token expires in `seconds_left` (real seconds): ask the game server for a fresh one and
## hand it to `set_token`. Emitted once per token, `TOKEN_REFRESH_MARGIN_S` before its `exp`.
signal token_expiring(seconds_left: float)

## How the brain answers, as seen from here.
enum State {
	CONNECTING, ## No answer yet.
	ONLINE, ## Answers arrive in time.
	SLOW, ## Reachable, but answers time out or come later than `slow_after_s`.
	FAILING, ## No connection, unavailable, or internal errors again and again.
}

const SERVICE_PATH := "/npc_brain.v1.BrainService/"
## The autoload's name (the EditorPlugin registers it).
const AUTOLOAD := "NpcBrain"
const DEFAULT_URL := "http://127.0.0.1:8080"
const WORLD_LANE := "world"
## Bytes of a save file sent per ImportWorld (as ExportWorld pages them: 1 MiB, base64 in JSON).
const EXPORT_PAGE_BYTES := 1 << 20
## An NPC's lane for the player's calls to it (Interview, Whisper) is its npc id and this.
const PLAYER_LANE_SUFFIX := ":player"
## Error answers in a row (internal, unknown, data loss) after which the brain is FAILING.
const FAILING_AFTER_ERRORS := 3
## Connect codes of a brain failing inside (answered, but could not do the work).
const SERVER_ERRORS: PackedStringArray = ["internal", "unknown", "data_loss"]
## Real milliseconds SLOW lasts after its last sign: one quick answer among timeouts is no cure.
const SLOW_HOLD_MSEC := 10000
## Calls that wait for the LLM by design (the player's): their latency says nothing about health.
const LLM_BOUND_METHODS: PackedStringArray = ["Talk", "TalkStream", "Interview"]
## Real seconds before a signed token's `exp` at which `token_expiring` is emitted.
const TOKEN_REFRESH_MARGIN_S := 60.0
## Decides in one DecideBatch at most (the brain takes up to 1,000).
const BATCH_MAX := 250
## DecideBatch calls in flight at most (a browser opens ~6 connections per host).
const BATCH_LANES := 2

## e.g. "http://127.0.0.1:8080", without a trailing slash.
var base_url: String = DEFAULT_URL
## Per-request timeout in seconds.
var timeout_s: float = 15.0
## Timeout of the player's talk (TalkStream), in seconds: a local model's long line takes longer
## than a Decide (`npc_brain/brain/talk_timeout_s`, `--brain-talk-timeout-s=`).
var talk_timeout_s: float = 60.0
## Answers slower than this (seconds) make the brain SLOW.
var slow_after_s: float = 5.0
## The brain's state after the latest reply.
var state: State = State.CONNECTING
## Why the brain is in `state`: the latest reason ("" when ONLINE).
var state_detail: String = ""
## Whether Decides go in DecideBatch calls (false: one call per Decide, on the NPC's lane).
var batch_decides: bool = true

var _lanes: Dictionary[String, NpcBrainLane] = {}
var _agents: Dictionary[String, NpcBrainAgent] = {}
var _token: String = ""
var _tenant: String = ""
var _errors_in_row: int = 0
var _slow_until_msec: int = 0
var _loading: bool = false
var _decides_due: Array[NpcBrainCall] = []
var _batch_lanes_busy: Array[bool] = []
var _flush_queued: bool = false


## The autoload, or null (with an error saying how to fix it, unless `quiet`: say, while the
## game quits) when the plugin is not enabled.
static func get_instance(quiet: bool = false) -> NpcBrainClient:
	var tree := Engine.get_main_loop() as SceneTree
	var client: NpcBrainClient = (tree.root.get_node_or_null(AUTOLOAD)
			if tree != null and tree.root != null else null)
	if client == null and not quiet:
		push_error("NpcBrain: the autoload %s is missing: enable the plugin in Project > "
				% AUTOLOAD + "Project Settings > Plugins (it adds the autoloads).")
	return client


func _ready() -> void:
	base_url = _resolve_base_url().trim_suffix("/")
	timeout_s = _setting_or_arg(NpcBrainSettings.TIMEOUT_S, "brain-timeout-s")
	talk_timeout_s = _setting_or_arg(NpcBrainSettings.TALK_TIMEOUT_S, "brain-talk-timeout-s")
	slow_after_s = _setting_or_arg(NpcBrainSettings.SLOW_AFTER_S, "brain-slow-after-s")
	_token = NpcBrainLaunchArgs.get_value(
			"token", str(NpcBrainSettings.get_value(NpcBrainSettings.TOKEN)))
	NpcBrainLog.record("brain_client", {
		"base_url": base_url, "timeout_s": timeout_s, "talk_timeout_s": talk_timeout_s,
		"slow_after_s": slow_after_s,
		"token": _token != "",
	})
	_watch_token()


## Uses `token` from the next call on (a fresh one from the game server, after `token_expiring`).
func set_token(token: String) -> void:
	_token = token
	_watch_token()


# `token_expiring` armed for the current token, on a real-time timer that runs while paused.
func _watch_token() -> void:
	_tenant = NpcBrainToken.tenant(_token)
	var wait := NpcBrainToken.refresh_in(_token, Time.get_unix_time_from_system(),
			TOKEN_REFRESH_MARGIN_S)
	if wait >= 0.0 and is_inside_tree():
		get_tree().create_timer(wait, true, false, true).timeout.connect(
				_on_token_due.bind(_token))


func _on_token_due(token: String) -> void:
	if token == _token:  # not replaced meanwhile
		token_expiring.emit(maxf(0.0, NpcBrainToken.expiry(token) - Time.get_unix_time_from_system()))


## Calls `method` with `request` (a Dictionary in proto3 JSON form) on `lane` (one request in
## flight per lane: use the NPC id). Always returns a reply; never raises.
func call_rpc(method: String, request: Dictionary, lane: String = WORLD_LANE) -> NpcBrainReply:
	var reply := await _send(method, request, lane)
	if not reply.ok:
		_report(method, reply, lane, str(request.get("npcId", "")))
	return reply


## Starts the server-streaming `method` (TalkStream) with `request`: connect the returned
## stream's `message_received`, then await its `finished` (its reply is observed and failures
## reported as `call_rpc`'s are; a `cancel()` is no failure). Streams use no lane: each has its
## own connection (HTTPClient), which it closes when it ends, and `talk_timeout_s`, not
## `timeout_s`.
func open_stream(method: String, request: Dictionary) -> NpcBrainStream:
	var stream := NpcBrainStream.new()
	stream.name = "Stream_" + method
	add_child(stream)
	stream.finished.connect(_on_stream_finished.bind(method, request, stream), CONNECT_ONE_SHOT)
	stream.start(base_url + SERVICE_PATH, method, JSON.stringify(request), _headers_for(request),
			talk_timeout_s)
	return stream


## The NPC's Decide (`request` in proto3 JSON form, its `npcId` set), sent with the others due
## this frame in one DecideBatch; its own reply, as `call_rpc("Decide", ...)` would give it.
func decide(request: Dictionary) -> NpcBrainReply:
	if not batch_decides:
		return await call_rpc("Decide", request, str(request.get("npcId", "")))
	var call := NpcBrainCall.new("Decide", "")
	call.request = request
	_decides_due.append(call)
	if not _flush_queued:
		_flush_queued = true
		_flush_decides.call_deferred()
	return await call.finished


## Calls `rpc` (a Callable of `call_rpc` or `decide` with its arguments bound) and passes its
## reply to `done`, unless `done`'s object was freed meanwhile. For nodes that may be freed while
## their call is under way (NpcBrainAgent): in Godot 4.6 a node freed in an `await` of a coroutine
## or of a RefCounted's signal leaks an engine object each time; here the client awaits, not it.
func answer_to(rpc: Callable, done: Callable) -> void:
	var reply: NpcBrainReply = await rpc.call()
	if done.is_valid():
		done.call(reply)


## The name of `state`, e.g. "ONLINE".
func state_name() -> String:
	return State.keys()[state]


## The agent of an NPC in the game, or null.
func find_agent(npc_id: String) -> NpcBrainAgent:
	var agent: NpcBrainAgent = _agents.get(npc_id)
	return agent if is_instance_valid(agent) else null


## Every agent in the game (they add themselves when they enter the tree).
func get_agents() -> Array[NpcBrainAgent]:
	var agents: Array[NpcBrainAgent] = []
	for agent: NpcBrainAgent in _agents.values():
		if is_instance_valid(agent):
			agents.append(agent)
	return agents


## How many agents are in the game (without building the list).
func get_agent_count() -> int:
	return _agents.size()


## Called by NpcBrainAgent: `npc_id` is now `agent` (null: gone).
func set_agent(npc_id: String, agent: NpcBrainAgent) -> void:
	if agent == null:
		_agents.erase(npc_id)
	else:
		_agents[npc_id] = agent


## Frees the lanes of an NPC that left the game (its own, and the player's calls to it) once
## their calls are answered (a later call opens a new one), and takes its Decide waiting for the
## next DecideBatch, if any, out of it: answered `canceled` on the next frame, to no one (one
## already sent is answered to no one too). A call dropped unanswered would keep its waiters.
func release_lanes(npc_id: String) -> void:
	for key in [npc_id, npc_id + PLAYER_LANE_SUFFIX]:
		if _lanes.has(key):
			_lanes[key].close()
			_lanes.erase(key)
	var kept: Array[NpcBrainCall] = []
	for call in _decides_due:
		if call.request.get("npcId", "") == npc_id:
			call.finished.emit.call_deferred(
					NpcBrainReply.failure("canceled", "Decide: the NPC left the game"))
		else:
			kept.append(call)
	_decides_due = kept


## Deletes the NPC from the brain (DeleteNpc: its memories and record; its id and name are free
## again), for a game whose NPC leaves for good. Freeing its agent alone keeps it in the brain,
## living on out of view, resumed by the next agent with its `npc_id`. Free the agent first: one
## still in the game would spawn it anew. `reply.data["forgotten"]`: the memories deleted.
func delete_npc(npc_id: String) -> NpcBrainReply:
	var reply := await call_rpc("DeleteNpc", {"npcId": npc_id}, WORLD_LANE)
	if reply.ok:
		reply.data["forgotten"] = int(reply.data.get("forgotten", 0))
	return reply


## Saves the brain's state of `world` (the scene's first NpcBrainWorld by default) with the game
## clock under `slot` (1-64 letters, digits, `_` or `-`; an existing slot is replaced).
## With `file_path` (e.g. "user://save_1.npcsave") the NPC minds also go into that file of the
## game's, page by page (ExportWorld), written aside and renamed over it when whole, so they travel
## with the game's own saves (Steam Cloud...); `load_game(slot, world, file_path)` brings them back.
## `reply.data["save"]`: slot, gameTime, savedAt, and npcCount, memoryCount, sizeBytes as ints.
func save_game(slot: String, world: NpcBrainWorld = null, file_path := "") -> NpcBrainReply:
	var world_name := _world_name(world)
	var reply := await call_rpc("SaveWorld", {"worldName": world_name, "slot": slot,
			"gameTime": NpcBrainGameClock.get_instance().now_rfc3339()}, WORLD_LANE)
	if reply.ok and file_path != "":
		var exported := await _export_slot(world_name, slot, file_path)
		if not exported.ok:
			return exported
	if reply.ok:
		var save := _save_info(reply.data.get("save", {}))
		reply.data["save"] = save
		NpcBrainLog.record("game_saved",
				{"world": world_name, "slot": slot, "save": save, "file": file_path})
		game_saved.emit(slot, save)
	return reply


## Loads `slot` into the brain and sets the game clock to its save's time. Agents stop calling
## first (their calls under way finish), then drop their actions and spawn and decide again.
## With `file_path`, the minds `save_game` wrote there are first sent back to the brain as `slot`
## (ImportWorld, page by page, checked whole before the slot is written). Nothing changes when
## the brain refuses (e.g. `not_found`: no such slot; `failed_precondition`: a damaged file).
func load_game(slot: String, world: NpcBrainWorld = null, file_path := "") -> NpcBrainReply:
	if _loading:
		return NpcBrainReply.failure("aborted", "LoadWorld: a load is already under way")
	var world_name := _world_name(world)
	if file_path != "":
		var imported := await _import_slot(world_name, slot, file_path)
		if not imported.ok:
			game_load_failed.emit(slot, NpcBrainError.from_reply("ImportWorld", imported, ""))
			return imported
	_loading = true
	game_loading.emit(slot)
	await _agents_idle()
	var reply := await call_rpc("LoadWorld", {"worldName": world_name, "slot": slot}, WORLD_LANE)
	if not reply.ok:
		_loading = false
		game_load_failed.emit(slot, NpcBrainError.from_reply("LoadWorld", reply, ""))
		return reply
	var save := _save_info(reply.data.get("save", {}))
	reply.data["save"] = save
	var clock := NpcBrainGameClock.get_instance()
	var clock_was := clock.now_rfc3339()
	var game_time := NpcBrainTime.parse_rfc3339(str(save.get("gameTime", "")))
	if game_time >= 0:
		clock.set_time(game_time)  # its minute_passed finds the agents paused
	_loading = false
	NpcBrainLog.record("game_loaded", {"world": world_name, "slot": slot, "save": save,
			"game_time": clock.now_rfc3339(), "clock_was": clock_was})
	game_loaded.emit(slot, save)
	return reply


## The world's save slots, the most recent first: `reply.data["saves"]` (each as in save_game).
func list_saves(world: NpcBrainWorld = null) -> NpcBrainReply:
	var reply := await call_rpc("ListSaves", {"worldName": _world_name(world)}, WORLD_LANE)
	if reply.ok:
		var saves: Array = []
		for save: Dictionary in reply.data.get("saves", []):
			saves.append(_save_info(save))
		reply.data["saves"] = saves
	return reply


# A SaveInfo as the game reads it: proto JSON writes int64 as strings, Godot's JSON every number
# as a float, and leaves out zeros.
static func _save_info(save: Dictionary) -> Dictionary:
	for key: String in ["npcCount", "memoryCount", "sizeBytes"]:
		save[key] = int(save.get(key, 0))
	return save


# The slot's bytes, page by page (ExportWorld), into `file_path`: written to a file beside it and
# renamed over it when whole, so a game stopped meanwhile keeps the file's previous minds.
func _export_slot(world_name: String, slot: String, file_path: String) -> NpcBrainReply:
	var part := file_path + ".part"
	DirAccess.make_dir_recursive_absolute(file_path.get_base_dir())
	var file := FileAccess.open(part, FileAccess.WRITE)
	if file == null:
		return NpcBrainReply.failure("internal", "ExportWorld: cannot write %s (%s)"
				% [part, error_string(FileAccess.get_open_error())])
	var offset := 0
	var saved_at := ""
	var reply: NpcBrainReply
	while true:
		var request := {"worldName": world_name, "slot": slot, "offset": str(offset)}
		reply = await call_rpc("ExportWorld", request, WORLD_LANE)
		var page_saved_at := str(reply.data.get("save", {}).get("savedAt", "")) if reply.ok else ""
		if reply.ok and saved_at != "" and page_saved_at != saved_at:
			reply = NpcBrainReply.failure("aborted", "ExportWorld: slot %s was saved over meanwhile" % slot)
		if not reply.ok:
			break
		saved_at = page_saved_at
		var data := Marshalls.base64_to_raw(str(reply.data.get("data", "")))
		file.store_buffer(data)
		offset += data.size()
		if reply.data.get("done", false):
			break
		if data.is_empty():
			reply = NpcBrainReply.failure("data_loss",
					"ExportWorld: an empty page at %d before the end" % offset)
			break
	file.close()
	if reply.ok:
		DirAccess.remove_absolute(file_path)  # (Windows renames over nothing)
		var renamed := DirAccess.rename_absolute(part, file_path)
		if renamed != OK:
			reply = NpcBrainReply.failure("internal", "ExportWorld: cannot write %s (%s)"
					% [file_path, error_string(renamed)])
	if not reply.ok:
		DirAccess.remove_absolute(part)
	return reply


# `file_path`'s bytes (a slot `_export_slot` wrote) back to the brain as `slot`, page by page.
func _import_slot(world_name: String, slot: String, file_path: String) -> NpcBrainReply:
	var file := FileAccess.open(file_path, FileAccess.READ)
	if file == null:
		return NpcBrainReply.failure("not_found", "ImportWorld: cannot read %s (%s)"
				% [file_path, error_string(FileAccess.get_open_error())])
	var total := file.get_length()
	var reply := NpcBrainReply.failure("failed_precondition", "ImportWorld: %s is empty" % file_path)
	var offset := 0
	while offset < total:
		var data := file.get_buffer(EXPORT_PAGE_BYTES)
		var request := {"worldName": world_name, "slot": slot, "offset": str(offset),
				"data": Marshalls.raw_to_base64(data), "totalBytes": str(total)}
		reply = await call_rpc("ImportWorld", request, WORLD_LANE)
		if not reply.ok or data.is_empty():
			break
		offset += data.size()
	file.close()
	return reply


## Deletes `slot`; `reply.data["deleted"]` is false when there was no such slot.
func delete_save(slot: String, world: NpcBrainWorld = null) -> NpcBrainReply:
	return await call_rpc("DeleteSave", {"worldName": _world_name(world), "slot": slot}, WORLD_LANE)


## Whether a `load_game` is under way (agents make no calls meanwhile).
func is_loading() -> bool:
	return _loading


## Whether `lane` has a request in flight or queued.
func is_busy(lane: String) -> bool:
	return _lanes.has(lane) and _lanes[lane].is_busy()


## Decides waiting to go out in the next DecideBatch.
func decides_due() -> int:
	return _decides_due.size()


## DecideBatch calls sent and not yet answered.
func batches_in_flight() -> int:
	return _batch_lanes_busy.count(true)


func _on_stream_finished(
		reply: NpcBrainReply, method: String, request: Dictionary, stream: NpcBrainStream) -> void:
	stream.queue_free()
	if reply.code == "canceled":
		return
	_observe(method, reply)
	if not reply.ok:
		NpcBrainLog.error("brain_error", {
			"method": method, "lane": "", "code": reply.code, "message": reply.message,
			"status": reply.http_status,
		})
		call_failed.emit(NpcBrainError.from_reply(method, reply, str(request.get("npcId", ""))))


func _world_name(world: NpcBrainWorld) -> String:
	var found := world if world != null else NpcBrainWorld.find_in(get_tree())
	return found.world_name if found != null else ""


# Waits (at most one call's timeout) for the agents' calls under way: their answers belong to
# the timeline the load replaces.
func _agents_idle() -> void:
	var deadline := Time.get_ticks_msec() + int(timeout_s * 1000.0)
	while Time.get_ticks_msec() < deadline:
		var busy := false
		for npc_id in _agents:
			busy = busy or is_busy(npc_id)
		busy = busy or decides_due() > 0 or batches_in_flight() > 0
		if not busy:
			return
		await get_tree().process_frame


# The reply to one call, observed for `state` but not reported (`call_rpc` reports failures).
func _send(method: String, request: Dictionary, lane: String) -> NpcBrainReply:
	var call := NpcBrainCall.new(method, JSON.stringify(request), _headers_for(request))
	if not _lane(lane).submit(call):
		return NpcBrainReply.failure("resource_exhausted", "%s: lane %s is full" % [method, lane])
	var reply: NpcBrainReply = await call.finished
	_observe(method, reply)
	return reply


# A failed call, logged and signalled.
func _report(method: String, reply: NpcBrainReply, lane: String, npc_id: String) -> void:
	NpcBrainLog.error("brain_error", {
		"method": method, "lane": lane, "code": reply.code, "message": reply.message,
		"status": reply.http_status,
	})
	call_failed.emit(NpcBrainError.from_reply(method, reply, npc_id))


# Sends the Decides due, BATCH_MAX per DecideBatch, on the batch lanes free now.
func _flush_decides() -> void:
	_flush_queued = false
	if not batch_decides:  # turned off while these waited: each goes alone
		for call in _decides_due:
			_decide_alone(call)
		_decides_due.clear()
		return
	if _batch_lanes_busy.is_empty():
		_batch_lanes_busy.resize(BATCH_LANES)
		_batch_lanes_busy.fill(false)
	var lane := _batch_lanes_busy.find(false)
	while not _decides_due.is_empty() and lane >= 0:
		var calls := _decides_due.slice(0, BATCH_MAX)
		_decides_due = _decides_due.slice(BATCH_MAX)
		_batch_lanes_busy[lane] = true
		_send_batch(calls, lane)
		lane = _batch_lanes_busy.find(false)


func _send_batch(calls: Array[NpcBrainCall], lane: int) -> void:
	var requests: Array[Dictionary] = []
	for call in calls:
		requests.append(call.request)
	var lane_name := "decide_batch_%d" % lane
	var reply := await _send("DecideBatch", {"requests": requests}, lane_name)
	_batch_lanes_busy[lane] = false
	if reply.code == "unimplemented":  # a brain older than DecideBatch (404): not a failure
		batch_decides = false
		NpcBrainLog.record("decide_batch_off", {"status": reply.http_status, "message": reply.message})
		for call in calls:
			_decide_alone(call)
	elif not reply.ok:  # the call failed as a whole (no answer, unavailable): each Decide did
		_report("DecideBatch", reply, lane_name, "")
		for call in calls:
			call.finished.emit(reply)
	else:
		var results: Array = reply.data.get("results", [])
		for i in calls.size():
			var result: Dictionary = results[i] if i < results.size() else {
				"code": "internal", "message": "DecideBatch answered %d results for %d requests"
						% [results.size(), calls.size()]}
			calls[i].finished.emit(_result_reply(result, reply))
	if not _decides_due.is_empty():
		_flush_decides()


func _decide_alone(call: NpcBrainCall) -> void:
	call.finished.emit(await call_rpc("Decide", call.request, str(call.request.get("npcId", ""))))


# One Decide's reply from its DecideResult; a failed one is logged and signalled as a call is.
func _result_reply(result: Dictionary, batch: NpcBrainReply) -> NpcBrainReply:
	var reply := NpcBrainReply.new()
	reply.http_status = batch.http_status
	reply.elapsed_ms = batch.elapsed_ms
	reply.reached = true
	reply.code = str(result.get("code", ""))
	if reply.code == "":
		reply.ok = true
		reply.data = result.get("response", {})
		return reply
	reply.message = str(result.get("message", ""))
	_observe("Decide", reply)
	_report("Decide", reply, "decide_batch", str(result.get("npcId", "")))
	return reply


func _lane(key: String) -> NpcBrainLane:
	if not _lanes.has(key):
		var lane := NpcBrainLane.new()
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
	if _tenant != "":
		headers.append("x-npc-tenant: " + _tenant)
	return headers


# What one reply says about the brain.
func _observe(method: String, reply: NpcBrainReply) -> void:
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


# A new state is logged and signalled; a new reason for SLOW only signalled (the HUD shows the
# latest: the first slow call may have been a one-off, long ago).
func _set_state(value: State, detail: String) -> void:
	if value == state and (value != State.SLOW or detail == state_detail):
		return
	var changed := value != state
	state = value
	state_detail = detail
	if changed:
		NpcBrainLog.error("brain_status", {
			"state": state_name(), "reachable": state in [State.ONLINE, State.SLOW], "detail": detail,
		})
	status_changed.emit(state, detail)


func _setting_or_arg(setting: String, arg: String) -> float:
	var from_settings := float(NpcBrainSettings.get_value(setting))
	var from_args := NpcBrainLaunchArgs.get_value(arg)
	return from_args.to_float() if from_args.is_valid_float() else from_settings


func _resolve_base_url() -> String:
	var from_args := NpcBrainLaunchArgs.get_value("brain-url")
	if from_args != "":
		return from_args
	var from_settings := str(NpcBrainSettings.get_value(NpcBrainSettings.URL)).strip_edges()
	if from_settings != "":
		return from_settings
	if OS.has_feature("web"):
		var origin: Variant = JavaScriptBridge.eval("window.location.origin", true)
		if origin is String and (origin as String).begins_with("http"):
			return origin
	return DEFAULT_URL
