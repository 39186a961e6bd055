class_name NpcBrainViewWatch
extends Node
## Whether a body is on the player's screen, for NpcBrainAgent's `attention`: a
## VisibleOnScreenNotifier2D (or 3D) the watch adds to the body, its reports settled so that a
## camera jiggling at an edge changes nothing. The body counts as in view once it has stayed on
## a screen `in_view_after_s`, out of view once it has stayed off every screen
## `out_of_view_after_s` (longer: a glimpse away keeps the detail the player may come back to).
## Any viewport counts (split screen, a minimap's SubViewport); a hidden body is out of view.
##
## Far from the player: with `crowd_distance` set, a body off every screen and farther than that
## from the camera (the screen's middle in 2D, pixels; the camera in 3D, meters) is a crowd
## (ATTENTION_CROWD: the brain makes no LLM call for it until something concerns it). Distance
## has no signal: it is looked at once a real second (`CROWD_CHECK_S`), only while off screen.

## The settled state changed.
signal changed(in_view: bool)
## The body became a crowd (far, off screen) or stopped being one.
signal crowd_changed(crowd: bool)

const CROWD_CHECK_S := 1.0

## The settled state: on a screen (after the delays above).
var in_view: bool = false
var in_view_after_s: float = 0.2
var out_of_view_after_s: float = 2.0
## Off screen and farther than this from the camera: a crowd. 0: never.
var crowd_distance: float = 0.0
## The settled state: far from the camera and off every screen.
var crowd: bool = false

var _on_screen: bool = false
var _reported: bool = false
var _settle: Timer
var _crowd_check: Timer
var _body: Node = null
var _notifier: Node = null


## Watches `body` (a Node2D or Node3D) through a notifier of about `size` (pixels for 2D: the
## body's tile and one tile around it; meters for 3D: the tile it stands on, 3 m high).
func watch(body: Node, size: float) -> void:
	var notifier: Node = null
	if body is Node3D:
		var notifier_3d := VisibleOnScreenNotifier3D.new()
		notifier_3d.aabb = AABB(Vector3(-size * 0.5, -1.0, -size * 0.5), Vector3(size, 3.0, size))
		notifier_3d.screen_entered.connect(_on_screen_changed.bind(true))
		notifier_3d.screen_exited.connect(_on_screen_changed.bind(false))
		notifier = notifier_3d
	else:
		var notifier_2d := VisibleOnScreenNotifier2D.new()
		notifier_2d.rect = Rect2(-size, -size, size * 2.0, size * 2.0)
		notifier_2d.screen_entered.connect(_on_screen_changed.bind(true))
		notifier_2d.screen_exited.connect(_on_screen_changed.bind(false))
		notifier = notifier_2d
	_body = body
	_notifier = notifier
	notifier.name = "NpcBrainOnScreen"
	body.add_child(notifier, false, Node.INTERNAL_MODE_BACK)  # out of the body's get_children()
	_settle = Timer.new()
	_settle.one_shot = true
	_settle.timeout.connect(_on_settled)
	add_child(_settle)
	if crowd_distance > 0.0:
		_crowd_check = Timer.new()
		_crowd_check.wait_time = CROWD_CHECK_S
		_crowd_check.timeout.connect(_check_crowd)
		add_child(_crowd_check)
		_crowd_check.start()
		# A body that starts off screen gets no report: its first Decide knows all the same.
		_check_crowd.call_deferred()


# The notifier lives on the body: an agent freed from a body that stays takes it along.
func _notification(what: int) -> void:
	if what == NOTIFICATION_PREDELETE and is_instance_valid(_notifier):
		_notifier.queue_free()


func _on_screen_changed(on_screen: bool) -> void:
	_on_screen = on_screen
	if not _reported:
		# The first report (the first frames drawn) is the state the NPC starts in: at once.
		_reported = true
		_on_settled()
		return
	_settle.start(in_view_after_s if on_screen else out_of_view_after_s)


func _on_settled() -> void:
	if _on_screen != in_view:
		in_view = _on_screen
		changed.emit(in_view)
	_check_crowd()


func _check_crowd() -> void:
	var far := crowd_distance > 0.0 and not in_view and _distance_to_camera() > crowd_distance
	if far != crowd:
		crowd = far
		crowd_changed.emit(crowd)


## The body's distance to the camera: in 3D to the active Camera3D, in 2D to the screen's middle
## in the world's coordinates (with or without a Camera2D). INF without a camera.
func _distance_to_camera() -> float:
	var body_3d := _body as Node3D
	if body_3d != null:
		var camera := body_3d.get_viewport().get_camera_3d()
		return INF if camera == null else camera.global_position.distance_to(body_3d.global_position)
	var body_2d := _body as Node2D
	if body_2d != null:
		var viewport := body_2d.get_viewport()
		var to_world := viewport.get_canvas_transform().affine_inverse()
		var middle := to_world * viewport.get_visible_rect().get_center()
		return middle.distance_to(body_2d.global_position)
	return INF
