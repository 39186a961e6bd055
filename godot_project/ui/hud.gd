class_name Hud
extends CanvasLayer
## The bottom bar: the game clock, the brain's connection and the latest news.

## Height of the bar at the bottom of the screen, in pixels.
const BAR_HEIGHT := 40.0

@onready var _clock: Label = $Bar/Clock
@onready var _status: Label = $Bar/Status


func _ready() -> void:
	GameClock.minute_passed.connect(_on_minute_passed)
	BrainClient.status_changed.connect(_on_brain_status_changed)
	_clock.text = GameTime.to_label(GameClock.now())
	_status.text = "brain: connecting to %s" % BrainClient.base_url


## Shows a line of news on the bar.
func show_message(text: String) -> void:
	_status.text = text


func _on_minute_passed(unix_time: int) -> void:
	_clock.text = GameTime.to_label(unix_time)


func _on_brain_status_changed(reachable: bool, detail: String) -> void:
	if reachable:
		show_message("brain: connected to %s" % BrainClient.base_url)
	else:
		show_message("brain: unreachable at %s (%s), retrying" % [BrainClient.base_url, detail])
