class_name NpcBrainStream
extends Node
## One server-streaming call (TalkStream) in the Connect protocol's streaming form: the request
## enveloped as `application/connect+json`, the answer a body of enveloped messages read as they
## arrive, ending with the end-of-stream message (`{}`, or `{"error": ...}`). HTTPRequest
## delivers a body only when it is whole, so this polls an HTTPClient, which reads each chunk as
## it comes, on desktop and in web exports (there the browser's fetch streams it).
##
## The client makes these (`NpcBrainClient.open_stream`): connect `message_received`, then await
## `finished`. `cancel()` closes the connection; the brain then stops writing.
##
## In a web export, Godot's HTTPClient closes its fetch by calling `response.abort()`, which no
## browser has: the fetch would go on, and the brain would write the line to its end. So the
## first stream on the web adds that method (`ABORT_POLYFILL`): it cancels the body's reader,
## which ends the fetch, and the brain sees the client gone.

## A message of the stream (proto3 JSON), as soon as it is whole.
signal message_received(data: Dictionary)
## Emitted once: ok with `data` the last message, or the stream's error (`canceled` after `cancel`).
signal finished(reply: NpcBrainReply)

## Envelope flags: the end-of-stream message.
const END_STREAM := 2
const ENVELOPE_HEADER := 5
const ABORT_POLYFILL := """(function () {
	if (Response.prototype.abort) { return; }
	const getReader = ReadableStream.prototype.getReader;
	ReadableStream.prototype.getReader = function (...args) {
		const reader = getReader.apply(this, args);
		this.npcBrainReader = reader;
		return reader;
	};
	Response.prototype.abort = function () {
		const body = this.body;
		if (body) { (body.npcBrainReader || body).cancel().catch(function () {}); }
	};
})();"""

static var _abortable: bool = false

var _http := HTTPClient.new()
var _path: String = ""
var _headers: PackedStringArray
var _body: PackedByteArray
var _buffer := PackedByteArray()
var _last: Dictionary = {}
var _started_msec: int = 0
var _deadline_msec: int = 0
var _sent: bool = false
var _done: bool = false


## Starts `method` at `endpoint` (".../npc_brain.v1.BrainService/") with `json_body`.
func start(endpoint: String, method: String, json_body: String, extra_headers: PackedStringArray,
		timeout_s: float) -> void:
	if OS.has_feature("web") and not _abortable:
		_abortable = true
		JavaScriptBridge.eval(ABORT_POLYFILL, true)
	_started_msec = Time.get_ticks_msec()
	_deadline_msec = _started_msec + int(timeout_s * 1000.0)
	var scheme_end := endpoint.find("://") + 3
	var path_start := endpoint.find("/", scheme_end)
	var origin := endpoint.substr(0, path_start)
	_path = endpoint.substr(path_start) + method
	var port := -1
	var colon := origin.rfind(":")
	if colon > scheme_end:
		port = origin.substr(colon + 1).to_int()
		origin = origin.substr(0, colon)
	var data := json_body.to_utf8_buffer()
	var size := data.size()  # big-endian after the flags byte
	_body = PackedByteArray([0, (size >> 24) & 0xff, (size >> 16) & 0xff, (size >> 8) & 0xff,
			size & 0xff])
	_body.append_array(data)
	_headers = PackedStringArray([
		"Content-Type: application/connect+json",
		"Connect-Protocol-Version: 1",
		"Connect-Timeout-Ms: %d" % int(timeout_s * 1000.0),
	]) + extra_headers
	var error := _http.connect_to_host(origin, port)
	if error != OK:
		_finish(NpcBrainReply.failure("unavailable", "cannot connect to %s (error %d)" % [origin, error]))


## Stops the call: the connection is closed, and `finished` says `canceled`.
func cancel() -> void:
	_finish(NpcBrainReply.failure("canceled", "stopped by the game", _elapsed()))


func _process(_delta: float) -> void:
	if _done:
		return
	if Time.get_ticks_msec() > _deadline_msec:
		var reply := NpcBrainReply.timed_out(
				(_deadline_msec - _started_msec) / 1000.0, _sent, _elapsed())
		_finish(reply)
		return
	_http.poll()
	match _http.get_status():
		HTTPClient.STATUS_CONNECTED:
			if not _sent:
				_sent = true
				_http.request_raw(HTTPClient.METHOD_POST, _path, _headers, _body)
			else:
				_end_of_body()
		HTTPClient.STATUS_BODY:
			_read()
		HTTPClient.STATUS_DISCONNECTED:
			if _sent:
				_end_of_body()
		HTTPClient.STATUS_CANT_RESOLVE, HTTPClient.STATUS_CANT_CONNECT, \
		HTTPClient.STATUS_CONNECTION_ERROR, HTTPClient.STATUS_TLS_HANDSHAKE_ERROR:
			_finish(NpcBrainReply.failure(
					"unavailable", "connection failed (status %d)" % _http.get_status(), _elapsed()))


# Everything that has arrived, each whole message emitted.
func _read() -> void:
	while _http.get_status() == HTTPClient.STATUS_BODY:
		var chunk := _http.read_response_body_chunk()
		if chunk.is_empty():
			break
		_buffer.append_array(chunk)
		_http.poll()
	if _http.get_response_code() != 200:
		return  # an error before the stream (a refused call): its JSON is read whole at the end
	while _buffer.size() >= ENVELOPE_HEADER and not _done:  # a listener may cancel
		var size := (_buffer[1] << 24) | (_buffer[2] << 16) | (_buffer[3] << 8) | _buffer[4]
		if _buffer.size() < ENVELOPE_HEADER + size:
			return
		var flags := _buffer[0]
		var text := _buffer.slice(ENVELOPE_HEADER, ENVELOPE_HEADER + size).get_string_from_utf8()
		_buffer = _buffer.slice(ENVELOPE_HEADER + size)
		var parsed: Variant = JSON.parse_string(text)
		var message: Dictionary = parsed if parsed is Dictionary else {}
		if flags & END_STREAM:
			_end(message)
			return
		_last = message
		message_received.emit(message)


# The end-of-stream message: ok with the last message, or the error it carries.
func _end(message: Dictionary) -> void:
	var error: Dictionary = message.get("error", {})
	if error.is_empty():
		var reply := NpcBrainReply.new()
		reply.ok = true
		reply.reached = true
		reply.http_status = 200
		reply.data = _last
		reply.elapsed_ms = _elapsed()
		_finish(reply)
	else:
		var reply := NpcBrainReply.failure(
				str(error.get("code", "unknown")), str(error.get("message", "")), _elapsed())
		reply.reached = true
		reply.http_status = 200
		_finish(reply)


# The body ended without an end-of-stream message: an HTTP error's JSON, or a cut connection.
func _end_of_body() -> void:
	var status := _http.get_response_code()
	if status != 200 and status != 0:
		_finish(NpcBrainReply.from_http(HTTPRequest.RESULT_SUCCESS, status, _buffer, _elapsed()))
	else:
		var reply := NpcBrainReply.failure("unavailable", "the stream ended early", _elapsed())
		reply.reached = _sent
		_finish(reply)


func _finish(reply: NpcBrainReply) -> void:
	if _done:
		return
	_done = true
	_http.close()
	finished.emit(reply)


func _elapsed() -> int:
	return Time.get_ticks_msec() - _started_msec
