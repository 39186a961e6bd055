extends RefCounted
## What an NpcBrainAgent perceives for its next Decide (its `perceive()` and, unless
## `perceive_world` is off, the world around it): a part of the agent, kept apart by concern.

var _agent: NpcBrainAgent
var _perceived: Array[NpcBrainPerception] = []


func _init(agent: NpcBrainAgent) -> void:
	_agent = agent


## Adds what the game says the NPC perceives to its next Decide.
func add(perception: NpcBrainPerception) -> void:
	_perceived.append(perception)


## Forgets what the game added (a loaded game starts afresh).
func clear() -> void:
	_perceived.clear()


## The perceptions for a Decide, as the protocol's events: the world's and the game's, the
## nearest MAX_PERCEPTIONS in a crowd. What the game added is sent once.
func collect() -> Array[Dictionary]:
	var perceptions: Array[NpcBrainPerception] = []
	if _agent.perceive_world:
		perceptions = _perceive_world()
	perceptions.append_array(_perceived)
	_perceived.clear()
	# in a crowd: the nearest, as the brain attends
	if perceptions.size() > NpcBrainAgent.MAX_PERCEPTIONS:
		perceptions.sort_custom(_nearer)
		perceptions.resize(NpcBrainAgent.MAX_PERCEPTIONS)
	var events: Array[Dictionary] = []
	for perception in perceptions:
		events.append(perception.to_proto())
	return events


static func _nearer(a: NpcBrainPerception, b: NpcBrainPerception) -> bool:
	return a.distance < b.distance


# Other agents, visible nodes and objects in use within vision_radius and in sight, wherever
# they stand (an arena or open ground: then at the address they last were in).
func _perceive_world() -> Array[NpcBrainPerception]:
	var seen: Array[NpcBrainPerception] = []
	var world := _agent.world
	var tile := _agent.get_tile()
	var near := world.places.agents_near(tile, _agent.vision_radius)
	for other: NpcBrainAgent in near:
		if other == _agent:
			continue
		var distance := _sight_distance(tile, near[other])
		if distance <= _agent.vision_radius:
			seen.append(NpcBrainPerception.new(other.persona.display_name, other.get_activity(),
					other.get_address(), distance))
	for visible_node in _agent.get_tree().get_nodes_in_group(NpcBrainAgent.VISIBLE_GROUP):
		if visible_node == _agent.get_parent() or not (
				visible_node is Node2D or visible_node is Node3D):
			continue
		var their_tile := world.grid.node_to_tile(visible_node)
		var distance := _sight_distance(tile, their_tile)
		if distance <= _agent.vision_radius:
			var there := world.places.address_at(their_tile)
			seen.append(NpcBrainPerception.new(
					str(visible_node.get_meta("npc_brain_name", visible_node.name)),
					str(visible_node.get_meta("npc_brain_activity", "here")),
					there if there != "" else _agent.get_address(), distance))
	for item in world.places.objects_near(tile, _agent.vision_radius):
		if item.state == "":
			continue
		var distance := INF
		for item_tile in item.get_tiles():
			distance = minf(distance, _sight_distance(tile, item_tile))
		if distance <= _agent.vision_radius:
			seen.append(NpcBrainPerception.new(item.get_object_name(), item.state,
					world.places.object_address(item), distance))
	return seen


# Tiles from the NPC (at `tile`) to `other_tile`, INF when a wall hides it.
func _sight_distance(tile: Vector2i, other_tile: Vector2i) -> float:
	var distance := Vector2(other_tile).distance_to(tile)
	if distance > _agent.vision_radius or not _agent.world.grid.has_line_of_sight(tile, other_tile):
		return INF
	return distance
