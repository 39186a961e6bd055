@icon("res://addons/npc_brain/icons/agent.svg")
class_name NpcBrainInspector
extends CanvasLayer
## The debug side panel (part of the optional overlay `npc_brain_debug.tscn`), the Godot-side
## twin of GetTrace: click an NPC (any NpcBrainAgent's body) to see its current action, its plan
## for today, recent memories with importance and its last decision's trace (retrieved memories
## with recency/importance/relevance, the prompt, the raw answer). Below, a line to whisper to
## it, interview it or talk to it as the player. Click an object to edit its state in natural
## language (SetObjectState). Anchored to the right edge above the bar; `theme` styles it; the
## InputMap action `npc_brain_close` (Escape) closes it.

## Emitted when the player's line got the NPC's reply (Talk).
signal talked(agent: NpcBrainAgent, reply: String)

const WIDTH := 380.0
const LANE := "inspector"
const PLAYER_NAME := "the player"

## Styles the panel; empty: the project's theme.
@export var theme: Theme
## Room left at the bottom (the bar's height).
@export var bottom_margin: float = NpcBrainHud.BAR_HEIGHT

## The NPC shown, or null.
var agent: NpcBrainAgent = null
## The object shown, or null.
var game_object: NpcBrainObject = null

var _panel: PanelContainer
var _text: RichTextLabel
var _input: LineEdit
var _buttons: Dictionary[String, Button] = {}
var _request_id: int = 0


func _ready() -> void:
	layer = 5
	NpcBrainHud.ensure_actions()
	_build()
	_panel.hide()


## Shows an NPC: its action at once, then its plan, memories and last trace from the brain.
func show_agent(target: NpcBrainAgent) -> void:
	agent = target
	game_object = null
	_panel.show()
	_set_mode(true)
	_input.placeholder_text = "Whisper, interview or talk to %s..." % agent.persona.display_name
	_refresh_npc()


## Shows an object and lets the player change its state.
func show_object(target: NpcBrainObject) -> void:
	agent = null
	game_object = target
	_panel.show()
	_set_mode(false)
	_input.placeholder_text = "New state, e.g. \"on fire\" (empty: idle)"
	_input.text = target.state
	_text.text = "[b]%s[/b]\n%s\n\nstate: %s" % [
		_esc(target.get_object_name()), _esc(target.get_world().places.object_address(target)),
		_esc(target.state if target.state != "" else "idle")]


## Hides the panel.
func close() -> void:
	agent = null
	game_object = null
	_panel.hide()


## Shows what is at a point of the game world (global canvas coordinates): the nearest NPC
## within a tile, else an object there; closes the panel over nothing.
func inspect_at(point: Vector2) -> void:
	var nearest: NpcBrainAgent = null
	var nearest_distance := INF
	for candidate in NpcBrainClient.get_instance().get_agents():
		if candidate.get_body() == null:
			continue  # a 3D body: not on the 2D canvas
		var distance := candidate.get_body().global_position.distance_to(point)
		if distance < candidate.world.tile_size and distance < nearest_distance:
			nearest = candidate
			nearest_distance = distance
	if nearest != null:
		show_agent(nearest)
		return
	var world := NpcBrainWorld.find_in(get_tree())
	var items := (world.places.objects_near(world.grid.global_to_tile(point), 0.0)
			if world != null else [])
	if not items.is_empty():
		show_object(items[0])
	else:
		close()


func _unhandled_input(event: InputEvent) -> void:
	if event.is_action_pressed("npc_brain_close") and _panel.visible:
		close()
		get_viewport().set_input_as_handled()
		return
	var click := event as InputEventMouseButton
	if click != null and click.pressed and click.button_index == MOUSE_BUTTON_LEFT:
		inspect_at(get_viewport().get_canvas_transform().affine_inverse() * click.position)


## Whispers `text` to the NPC shown (a thought from its inner voice).
func whisper(text: String) -> void:
	var target := agent
	var reply := await NpcBrainClient.get_instance().call_rpc("Whisper", {
		"npcId": target.npc_id, "text": text,
		"gameTime": NpcBrainGameClock.get_instance().now_rfc3339()}, LANE)
	NpcBrainLog.record("whisper", {
		"npc": target.npc_id, "text": text, "ok": reply.ok,
		"memory_id": str(reply.data.get("memoryId", "")), "trace": str(reply.data.get("traceId", "")),
	})
	_append("[color=#9cf]whispered:[/color] %s %s" % [
		_esc(text), "(remembered)" if reply.ok else "(failed: %s)" % reply.code])
	if reply.ok and target == agent:
		_refresh_npc()


## Asks the NPC shown a question; it answers from its memories.
func interview(question: String) -> void:
	var target := agent
	var reply := await NpcBrainClient.get_instance().call_rpc("Interview", {
		"npcId": target.npc_id, "question": question,
		"gameTime": NpcBrainGameClock.get_instance().now_rfc3339()}, LANE)
	var answer := str(reply.data.get("answer", ""))
	NpcBrainLog.record("interview", {
		"npc": target.npc_id, "question": question, "answer": answer,
			"ok": reply.ok})
	_append("[color=#fc9]Q:[/color] %s\n[color=#fc9]A:[/color] %s" % [
		_esc(question), _esc(answer) if reply.ok else "(failed: %s)" % reply.code])


## Says a line to the NPC shown, as the player; its reply appears in its speech bubble (the
## agent's `spoke` signal).
func talk(text: String) -> void:
	var target := agent
	var line := await target.talk(text, PLAYER_NAME)
	var answer := line.text if line != null else ""
	NpcBrainLog.record("talk", {
		"npc": target.npc_id, "text": text, "reply": answer, "ok": line != null})
	if line != null:
		talked.emit(target, answer)
	_append("[color=#cfc]you:[/color] %s\n[color=#cfc]%s:[/color] %s" % [
		_esc(text), _esc(target.persona.display_name), _esc(answer) if line != null else "(failed)"])


## Sets the state of the object shown, in natural language (SetObjectState), here and there.
func set_object_state(state: String) -> void:
	var target := game_object
	var world := target.get_world()
	var address := world.places.object_address(target)
	var reply := await NpcBrainClient.get_instance().call_rpc("SetObjectState", {
		"worldName": world.world_name, "address": address, "state": state}, LANE)
	if reply.ok:
		world.set_object_state(address, state)
	NpcBrainLog.record("object_state_set", {"address": address, "state": state, "ok": reply.ok})
	if target == game_object:
		show_object(target)


func _refresh_npc() -> void:
	_request_id += 1
	var request_id := _request_id
	var target := agent
	_text.text = _npc_header(target) + "\n[i]asking the brain...[/i]"
	var plan := await NpcBrainClient.get_instance().call_rpc("ListMemories", {
		"npcId": target.npc_id, "limit": 3, "kind": "MEMORY_KIND_PLAN"}, LANE)
	var memories := await NpcBrainClient.get_instance().call_rpc("ListMemories", {
		"npcId": target.npc_id, "limit": 8}, LANE)
	var trace := NpcBrainReply.failure("not_found", "no decision yet")
	if _trace_id(target) != "":
		trace = await NpcBrainClient.get_instance().call_rpc("GetTrace", {
			"traceId": _trace_id(target), "npcId": target.npc_id}, LANE)
	var usage := await NpcBrainClient.get_instance().call_rpc("GetUsage", {
		"npcId": target.npc_id}, LANE)
	if request_id != _request_id:
		return
	var fallbacks := _fallbacks_line(usage.data.get("counters", []))
	var parts := PackedStringArray([_npc_header(target), fallbacks])
	parts.append("[b]Plan for today[/b]")
	for memory: Dictionary in plan.data.get("memories", []):
		parts.append("  " + _esc(str(memory.get("description", ""))).left(600))
	parts.append("[b]Recent memories[/b] (%s in all)" % str(memories.data.get("total", "?")))
	for memory: Dictionary in memories.data.get("memories", []):
		parts.append("  [%d] %s" % [int(memory.get("importance", 0)),
				_esc(str(memory.get("description", ""))).left(160)])
	var trace_data: Dictionary = trace.data.get("trace", {})
	var retrieved: Array = trace_data.get("retrieved", [])
	var calls: Array = trace_data.get("llmCalls", [])
	parts.append("[b]Last decision[/b] %s" % _esc(_trace_id(target)))
	for note in trace_data.get("notes", []):
		parts.append("  - " + _esc(str(note)))
	parts.append("[b]Retrieved[/b] (recency / importance / relevance = score)")
	for item: Dictionary in retrieved.slice(0, 8):
		var memory: Dictionary = item.get("memory", {})
		parts.append("  %.2f / %.2f / %.2f = %.2f  %s" % [
			float(item.get("recency", 0)), float(item.get("importance", 0)),
			float(item.get("relevance", 0)), float(item.get("score", 0)),
			_esc(str(memory.get("description", ""))).left(100)])
	for call: Dictionary in calls.slice(0, 3):
		var messages: Array = call.get("messages", [])
		var prompt := str(messages.back().get("content", "")) if not messages.is_empty() else ""
		parts.append("[b]LLM call[/b] %s (%s)" % [
			_esc(str(call.get("purpose", ""))), _esc(str(call.get("model", "")))])
		parts.append("[color=#aaa]prompt:[/color] " + _esc(prompt.left(500)))
		parts.append("[color=#aaa]raw answer:[/color] "
				+ _esc(str(call.get("rawCompletion", "")).left(400)))
	_text.text = "\n".join(parts)
	NpcBrainLog.record("inspector_opened", {
		"npc": target.npc_id, "trace": _trace_id(target), "trace_ok": trace.ok,
		"retrieved": retrieved.size(), "llm_calls": calls.size(),
		"memories": (memories.data.get("memories", []) as Array).size(),
		"plan": (plan.data.get("memories", []) as Array).size(),
		"usage_ok": usage.ok, "fallbacks": fallbacks,
		"controls": _control_centers(),
	})


## One line of the NPC's LLM answers that fell back to a default, per purpose (GetUsage): a model
## that does not follow the prompts shows here before it shows in the town.
func _fallbacks_line(counters: Array) -> String:
	var shown := PackedStringArray()
	var answers := 0
	for counter: Dictionary in counters:
		var calls := int(str(counter.get("calls", 0)))
		var fell := int(str(counter.get("fallbacks", 0))) - int(str(counter.get("notAsked", 0)))
		answers += calls
		if fell > 0:
			shown.append("%s %d/%d" % [_esc(str(counter.get("purpose", ""))), fell, calls])
	if shown.is_empty():
		return "[b]Fallbacks:[/b] none in %d LLM answers" % answers
	return "[b]Fallbacks:[/b] [color=#e0a040]%s[/color]" % ", ".join(shown)


# Window centers of the input line and the buttons, for tools and tests that click them.
func _control_centers() -> Dictionary[String, Array]:
	var centers: Dictionary[String, Array] = {}
	for control: Control in [_input] + _buttons.values():
		var at := get_viewport().get_screen_transform() * control.get_global_rect().get_center()
		centers[control.text if control is Button else "input"] = [at.x, at.y]
	return centers


func _npc_header(target: NpcBrainAgent) -> String:
	var decision := target.decision
	var mode := NpcBrainAgent.AttentionMode.keys()[target.get_attention_mode()] as String
	return "[b]%s[/b] (%d)  %s\n[b]Now:[/b] %s\n[b]Going to:[/b] %s\n[b]Attention:[/b] %s\n" % [
		_esc(target.persona.display_name), target.persona.age,
		_esc(", ".join(target.persona.traits)),
		_esc(decision.action.description if decision != null else "deciding...")
				+ (" (thinking...)" if target.thinking else ""),
		_esc(decision.action.address if decision != null else target.get_address()),
		("in view" if target.in_view else "out of view: the brain thinks coarser")
				+ " (%s)" % mode.to_lower().replace("_", " "),
	]


func _trace_id(target: NpcBrainAgent) -> String:
	return target.decision.trace_id if target.decision != null else ""


func _build() -> void:
	_panel = PanelContainer.new()
	var style := StyleBoxFlat.new()
	style.bg_color = Color(0.08, 0.09, 0.1, 0.93)
	style.set_content_margin_all(8)
	_panel.add_theme_stylebox_override("panel", style)
	_panel.theme = theme
	# Anchored to the right edge, from the top to the bar, at any window size.
	_panel.set_anchors_and_offsets_preset(Control.PRESET_RIGHT_WIDE)
	_panel.offset_left = -WIDTH - 6.0
	_panel.offset_right = -6.0
	_panel.offset_top = 6.0
	_panel.offset_bottom = -bottom_margin - 6.0
	add_child(_panel)
	var column := VBoxContainer.new()
	_panel.add_child(column)
	var close_button := Button.new()
	close_button.text = "Close"
	close_button.size_flags_horizontal = Control.SIZE_SHRINK_END
	close_button.focus_mode = Control.FOCUS_NONE
	close_button.pressed.connect(close)
	column.add_child(close_button)
	_text = RichTextLabel.new()
	_text.bbcode_enabled = true
	_text.scroll_following = false
	_text.size_flags_vertical = Control.SIZE_EXPAND_FILL
	_text.add_theme_font_size_override("normal_font_size", 11)
	_text.add_theme_font_size_override("bold_font_size", 12)
	column.add_child(_text)
	_input = LineEdit.new()
	_input.text_submitted.connect(func(_text_in: String) -> void: _on_button("Whisper"))
	column.add_child(_input)
	var row := HBoxContainer.new()
	column.add_child(row)
	for label in ["Whisper", "Interview", "Talk", "Set state"]:
		var button := Button.new()
		button.text = label
		button.focus_mode = Control.FOCUS_NONE
		button.pressed.connect(_on_button.bind(label))
		row.add_child(button)
		_buttons[label] = button


func _set_mode(for_npc: bool) -> void:
	for label in _buttons:
		_buttons[label].visible = (label == "Set state") != for_npc
	_input.text = ""


func _on_button(label: String) -> void:
	var text := _input.text.strip_edges()
	_input.release_focus()
	if game_object != null:
		set_object_state(text)
		return
	if agent == null or text == "":
		return
	_input.text = ""
	match label:
		"Whisper":
			whisper(text)
		"Interview":
			interview(text)
		"Talk":
			talk(text)


func _append(bbcode: String) -> void:
	_text.append_text("\n" + bbcode)


func _esc(text: String) -> String:
	return text.replace("[", "[lb]")
