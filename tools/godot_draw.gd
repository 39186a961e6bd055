extends Node
## The tests' pages draw HZ times a real second, not every frame: headless Chromium draws on the
## CPU (SwiftShader), about a core's worth for an open page. The game's logic still runs every
## frame; what depends on the screen (VisibleOnScreenNotifier, a screenshot) is as fresh as the
## last draw. Put into a pack by tools/godot_web.py (`build_pack(draw_hz=...)`), never shipped.

const HZ := 4.0


func _ready() -> void:
	process_mode = Node.PROCESS_MODE_ALWAYS
	RenderingServer.render_loop_enabled = false
	var timer := Timer.new()
	timer.wait_time = 1.0 / HZ
	timer.ignore_time_scale = true
	timer.timeout.connect(RenderingServer.force_draw)
	add_child(timer)
	timer.start()
