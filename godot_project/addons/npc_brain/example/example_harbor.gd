extends Node2D
## The lasting part of a town whose buildings' interiors are other scenes: the World (the whole
## map: the street and the inn's hall, each drawn by its own scene) and the NPCs. Add its scene as
## an autoload named Harbor, so they live on across `change_scene_to_file`: an NPC in a part of
## the map no scene shows is hidden, so out of view, and goes on deciding.

## The street's part of the map, in pixels (tiles 0..11 x 0..7 at 32 px).
const STREET := Rect2(0, 0, 384, 256)
## The inn's hall (tiles 20..27 x 0..5): another scene draws it.
const INN := Rect2(640, 0, 256, 192)

## The spot outside the inn's door, on the street, and the spot inside, in the hall.
@onready var _door_outside: Vector2 = $InnDoorOutside.position
@onready var _door_inside: Vector2 = $InnDoorInside.position


## The part of the map a point is in.
func part_of(point: Vector2) -> Rect2:
	return INN if INN.has_point(point) else STREET


## The way from `from` to `to`: straight within a part; between parts, to the door on this side,
## then (a step to the other part) to the door on the other side, then on.
func route(from: Vector2, to: Vector2) -> Array[Vector2]:
	if part_of(from) == part_of(to):
		return [to]
	if part_of(from) == STREET:
		return [_door_outside, _door_inside, to]
	return [_door_inside, _door_outside, to]
