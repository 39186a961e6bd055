@tool
extends EditorPlugin
## Enabling the plugin adds the autoloads (NpcBrain: the client; NpcBrainClock: the game clock)
## and the npc_brain/* project settings with their defaults and hints; disabling it removes the
## autoloads (the settings stay, as the project's own). It adds no InputMap actions to your
## game: the debug overlay adds its own at runtime, only where it is instanced.

const AUTOLOADS := {
	NpcBrainClient.AUTOLOAD: "res://addons/npc_brain/runtime/npc_brain_client.gd",
	NpcBrainGameClock.AUTOLOAD: "res://addons/npc_brain/runtime/npc_brain_clock.gd",
}


func _enable_plugin() -> void:
	for autoload: String in AUTOLOADS:
		if not ProjectSettings.has_setting("autoload/" + autoload):
			add_autoload_singleton(autoload, AUTOLOADS[autoload])
	NpcBrainSettings.register_all()
	ProjectSettings.save()


func _disable_plugin() -> void:
	for autoload: String in AUTOLOADS:
		remove_autoload_singleton(autoload)


func _enter_tree() -> void:
	# Hints and defaults for the settings panel each time the editor opens the project.
	NpcBrainSettings.register_all()
