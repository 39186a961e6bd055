class_name NpcBrainLaunchArgs
extends RefCounted
## Reads `--key=value` user arguments: the ones after `--` on the command line
## (`godot -- --brain-url=http://host:8080`), or the page's query string in a web export
## (`index.html?time-scale=120` becomes `--time-scale=120`).


## The value of `--key=value`, or `fallback` when the argument is absent.
static func get_value(key: String, fallback: String = "") -> String:
	var prefix := "--%s=" % key
	for arg in OS.get_cmdline_user_args():
		if arg.begins_with(prefix):
			return arg.substr(prefix.length())
	return fallback


## Whether `--key` (with or without a value) was given.
static func has_flag(key: String) -> bool:
	for arg in OS.get_cmdline_user_args():
		if arg == "--" + key or arg.begins_with("--%s=" % key):
			return true
	return false
