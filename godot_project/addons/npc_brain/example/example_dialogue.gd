extends CanvasLayer
## A minimal dialogue box for talking to an NPC: `open(agent)` shows it, the player types a line
## and presses Enter (`NpcBrainAgent.talk`), the NPC's answer grows in the box as the brain
## streams it (`line_progress`; "" is the brain taking back words it showed, shown as "..."), a
## line typed while the NPC answers cuts that answer short (the addon stops it first), Take back
## (or Ctrl+Z on an empty input) withdraws the player's last line and the NPC's answer
## (`take_back`), and the NPC's goodbye (`talk_ended`) or the Bye button (`stop_talking`) closes it.

## Shown on an NPC.
signal opened(agent: NpcBrainAgent)
## Closed: the NPC's goodbye, the Bye button or Escape.
signal closed
## The player's last line taken back (`take_back`): gone from the box, back in the input.
signal taken_back(text: String)

## The name the NPC hears the player by.
@export var player_name: String = "the player"

## The NPC talked to (null while closed).
var agent: NpcBrainAgent = null

# The conversation's finished lines, then the NPC's line under way ("" when none).
var _lines: Array[String] = []
var _answer: String = ""
# The player's node (the NPC faces it while held).
var _player: Node = null
# Counts the player's lines: an answer cut by a newer line is kept as cut.
var _serial: int = 0

@onready var _title: Label = %Title
@onready var _log: Label = %Log
@onready var _field: LineEdit = %Input


func _ready() -> void:
	visible = false
	_field.text_submitted.connect(_on_submitted)
	(%Bye as Button).pressed.connect(close)
	(%TakeBack as Button).pressed.connect(take_back)


func _input(event: InputEvent) -> void:
	# Before the input field, whose own Ctrl+Z (undo) has nothing to undo while it is empty.
	var key := event as InputEventKey
	if (visible and key != null and key.pressed and key.keycode == KEY_Z
			and key.is_command_or_control_pressed() and _field.text == ""):
		take_back()
		get_viewport().set_input_as_handled()


func _unhandled_key_input(event: InputEvent) -> void:
	if visible and event.is_action_pressed("ui_cancel"):
		close()
		get_viewport().set_input_as_handled()


## Shows the box on `to`'s NPC (`player`: the node it turns to while the talk holds it).
func open(to: NpcBrainAgent, player: Node = null) -> void:
	if agent != null:
		close()
	agent = to
	_player = player
	_lines.clear()
	_answer = ""
	agent.line_progress.connect(_on_progress)
	agent.talk_ended.connect(_on_talk_ended)
	_title.text = agent.persona.display_name if agent.persona != null else agent.npc_id
	_show()
	visible = true
	_field.grab_focus()
	opened.emit(agent)


## The player leaves: the NPC's answer under way stops, it walks on, the box closes.
func close() -> void:
	if agent == null:
		return
	agent.stop_talking()
	_finish()


## The player takes back their last line: the NPC's answer under way stops, that line and the
## NPC's answer leave the box and the conversation (`NpcBrainAgent.take_back`), and the line
## comes back into the input to be said differently.
func take_back() -> void:
	if agent == null:
		return
	_serial += 1  # the talk under way, stopped, returns to nothing (`_on_submitted`)
	_keep_answer(" —")
	_show()
	var talking := agent
	var text := await talking.take_back(player_name)
	if agent != talking or text == "":
		return  # closed meanwhile, or nothing to take back (`failed` says why)
	var mine := _lines.size() - 1
	while mine >= 0 and not _lines[mine].begins_with("You: "):
		mine -= 1
	if mine >= 0:
		_lines.resize(mine)
	_show()
	_field.text = text
	_field.caret_column = text.length()
	_field.grab_focus()
	taken_back.emit(text)


## What the box shows: the conversation so far, the NPC's line under way last.
func get_text() -> String:
	return _log.text


func _on_submitted(text: String) -> void:
	text = text.strip_edges()
	if text == "" or agent == null:
		return
	_field.clear()
	_keep_answer(" —")
	_lines.append("You: " + text)
	_serial += 1
	var serial := _serial
	_answer = "..."
	_show()
	var talking := agent
	var line := await talking.talk(text, player_name, _player)
	if agent != talking or serial != _serial:
		return  # closed, or cut short by a newer line
	_answer = ""
	if line != null:
		_lines.append("%s: %s" % [_title.text, line.text])
	_show()


func _on_progress(text_so_far: String) -> void:
	_answer = text_so_far if text_so_far != "" else "..."
	_show()


func _on_talk_ended(_speaker_name: String) -> void:
	_finish()


# Keeps the NPC's answer under way (cut short, `mark` after it) as a line of the conversation.
func _keep_answer(mark: String) -> void:
	if _answer != "" and _answer != "...":
		_lines.append("%s: %s%s" % [_title.text, _answer, mark])
	_answer = ""


func _show() -> void:
	var shown := _lines.duplicate()
	if _answer != "":
		shown.append("%s: %s" % [_title.text, _answer])
	_log.text = "\n".join(shown)


func _finish() -> void:
	agent.line_progress.disconnect(_on_progress)
	agent.talk_ended.disconnect(_on_talk_ended)
	agent = null
	_player = null
	visible = false
	closed.emit()
