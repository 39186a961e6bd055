class_name NpcBrainLane
extends Node
## A queue of RPCs sent one at a time over its own HTTPRequest.
##
## The brain client keeps one lane per NPC (and one for the world), so an NPC never has more
## than one request in flight; a full queue refuses new calls instead of piling them up.

## Queued calls (not counting the one in flight) beyond which `submit` refuses.
const MAX_QUEUED := 2
## HTTP client states in which a request has been sent (or its answer is arriving). In a web
## export the browser does not tell whether it connected: a pending fetch counts as sent.
const SENT_STATUSES: Array[HTTPClient.Status] = [
	HTTPClient.STATUS_CONNECTED, HTTPClient.STATUS_REQUESTING, HTTPClient.STATUS_BODY,
]

var endpoint: String = ""
var timeout_s: float = 15.0

var _closing: bool = false
var _queue: Array[NpcBrainCall] = []
var _current: NpcBrainCall = null
var _started_msec: int = 0
var _http: HTTPRequest
# The lane's own deadline instead of HTTPRequest.timeout: on expiry it can still ask the HTTP
# client whether the request went out (a slow brain) or never connected (no brain).
var _deadline: Timer


func _ready() -> void:
	_deadline = Timer.new()
	_deadline.one_shot = true
	_deadline.timeout.connect(_on_deadline)
	add_child(_deadline)
	_http = HTTPRequest.new()
	# A browser's fetch decodes gzip/br itself but leaves the Content-Encoding header, which would
	# make HTTPRequest gunzip the body a second time (RESULT_BODY_DECOMPRESS_FAILED). Without this
	# on desktop, no Accept-Encoding is sent and servers answer uncompressed: right on both.
	_http.accept_gzip = false
	_http.request_completed.connect(_on_request_completed)
	add_child(_http)


## Queues a call; false when the lane is full (the caller should skip, not retry at once).
func submit(call: NpcBrainCall) -> bool:
	if _queue.size() >= MAX_QUEUED or _closing:
		return false
	_queue.append(call)
	_send_next.call_deferred()
	return true


## Frees the lane (its HTTPRequest and Timer with it) once the calls it has are answered; it
## takes no new ones. For the lane of an NPC that left the game.
func close() -> void:
	_closing = true
	if not is_busy():
		queue_free()


## Whether a call is in flight or queued.
func is_busy() -> bool:
	return _current != null or not _queue.is_empty()


func _send_next() -> void:
	if _current != null or _queue.is_empty():
		return
	_current = _queue.pop_front()
	_started_msec = Time.get_ticks_msec()
	var headers := PackedStringArray([
		"Content-Type: application/json",
		"Connect-Protocol-Version: 1",
		"Connect-Timeout-Ms: %d" % int(timeout_s * 1000.0),
	]) + _current.headers
	var url := endpoint + _current.method
	var error := _http.request(url, headers, HTTPClient.METHOD_POST, _current.body)
	if error != OK:
		_finish(NpcBrainReply.failure("unavailable", "cannot send to %s (error %d)" % [url, error]))
	else:
		_deadline.start(timeout_s)


func _on_request_completed(
		result: int, status: int, _headers: PackedStringArray, body: PackedByteArray) -> void:
	_deadline.stop()
	var elapsed := Time.get_ticks_msec() - _started_msec
	_finish(NpcBrainReply.from_http(result, status, body, elapsed))


func _on_deadline() -> void:
	var sent := _http.get_http_client_status() in SENT_STATUSES
	_http.cancel_request()
	_finish(NpcBrainReply.timed_out(timeout_s, sent, Time.get_ticks_msec() - _started_msec))


func _finish(reply: NpcBrainReply) -> void:
	var call := _current
	_current = null
	if call != null:
		call.finished.emit(reply)
	if _closing and not is_busy():
		queue_free()
		return
	_send_next()
