@tool
extends EditorExportPlugin
## Copies the brain's bundle for the export's platform next to the exported game, as `npc-brain/`
## (NpcBrainLauncher starts it from there). Bundles are looked for in the folder the project
## setting `npc_brain/launcher/bundles` names (default: `dist/` beside the project), as
## `npc-brain-<os>-<arch>` folders the way `npc-brain bundle` names them. A web export gets none.
## No class_name: an exported game never loads it.

const BUNDLES_SETTING := "npc_brain/launcher/bundles"
const DEFAULT_BUNDLES := "../dist"  ## relative to the project's folder
const OS_NAMES := {"windows": "windows", "linuxbsd": "linux", "linux": "linux", "macos": "macos"}
const ARCHES := ["x86_64", "arm64"]


func _get_name() -> String:
	return "NpcBrainBundle"


func _export_begin(features: PackedStringArray, _is_debug: bool, path: String, _flags: int) -> void:
	var folder := bundle_name(features)
	if folder == "":
		return
	var bundles := str(ProjectSettings.get_setting(BUNDLES_SETTING, DEFAULT_BUNDLES))
	var project := ProjectSettings.globalize_path("res://addons/npc_brain/").path_join("../..")
	var source := (bundles if bundles.is_absolute_path() else project.path_join(bundles))
	source = source.path_join(folder).simplify_path()
	if not DirAccess.dir_exists_absolute(source):
		push_warning("npc_brain: no brain bundle at %s: build it with `npc-brain bundle`" % source)
		return
	var target := path.get_base_dir().path_join(NpcBrainLauncher.FOLDER)
	var failed := copy_tree(source, target)
	if failed != "":
		push_error("npc_brain: could not copy the brain bundle: %s" % failed)


## `npc-brain-<os>-<arch>` for a desktop export's features, "" for any other (web, mobile).
static func bundle_name(features: PackedStringArray) -> String:
	if "web" in features:
		return ""
	for feature: String in OS_NAMES:
		if feature in features:
			for arch: String in ARCHES:
				if arch in features:
					return "npc-brain-%s-%s" % [OS_NAMES[feature], arch]
	return ""


## Copies folder `source` into `target` (made as needed); the path that failed, or "".
static func copy_tree(source: String, target: String) -> String:
	if DirAccess.make_dir_recursive_absolute(target) != OK:
		return target
	for name in DirAccess.get_directories_at(source):
		var failed := copy_tree(source.path_join(name), target.path_join(name))
		if failed != "":
			return failed
	for name in DirAccess.get_files_at(source):
		if DirAccess.copy_absolute(source.path_join(name), target.path_join(name)) != OK:
			return source.path_join(name)
		if not OS.has_feature("windows"):
			var mode := FileAccess.get_unix_permissions(source.path_join(name))
			FileAccess.set_unix_permissions(target.path_join(name), mode)
	return ""
