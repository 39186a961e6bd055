@tool
extends EditorPlugin
## Enabling the plugin adds the autoloads (NpcBrain: the client; NpcBrainClock: the game clock)
## and the npc_brain/* project settings with their defaults and hints; disabling it removes the
## autoloads (the settings stay, as the project's own). It adds no InputMap actions to your
## game: the debug overlay adds its own at runtime, only where it is instanced.
## NpcBrainLaunch (the launcher) comes first: it points the client at a brain it starts before the
## client reads its URL. The export plugin copies the brain's bundle next to a desktop export.

const AUTOLOADS := {
	NpcBrainLauncher.AUTOLOAD: "res://addons/npc_brain/launcher/npc_brain_launcher.gd",
	NpcBrainClient.AUTOLOAD: "res://addons/npc_brain/runtime/npc_brain_client.gd",
	NpcBrainGameClock.AUTOLOAD: "res://addons/npc_brain/runtime/npc_brain_clock.gd",
}


const ExportPlugin := preload("res://addons/npc_brain/launcher/npc_brain_export_plugin.gd")

var _export_plugin: EditorExportPlugin


func _enable_plugin() -> void:
	var launcher_missing := not ProjectSettings.has_setting("autoload/" + NpcBrainLauncher.AUTOLOAD)
	if launcher_missing and ProjectSettings.has_setting("autoload/" + NpcBrainClient.AUTOLOAD):
		remove_autoload_singleton(NpcBrainClient.AUTOLOAD)  # added again below, after the launcher
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
	_export_plugin = ExportPlugin.new()
	add_export_plugin(_export_plugin)


func _exit_tree() -> void:
	remove_export_plugin(_export_plugin)
