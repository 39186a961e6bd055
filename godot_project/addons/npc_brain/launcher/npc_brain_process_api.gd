class_name NpcBrainProcessApi
extends RefCounted
## What NpcBrainBrainProcess asks of the operating system, on a desktop export. Tests replace it
## with a stand-in (the web runtime can start no process).


## Starts `path` with `arguments`, `env` added to the game's environment; its pid, or -1.
func start(path: String, arguments: PackedStringArray, env: Dictionary) -> int:
	for key: String in env:
		OS.set_environment(key, str(env[key]))
	var started := OS.create_process(path, arguments)
	for key: String in env:
		OS.unset_environment(key)
	return started


func is_running(pid: int) -> bool:
	return pid > 0 and OS.is_process_running(pid)


func kill(pid: int) -> void:
	OS.kill(pid)


## A loopback port free now (bound and released: the brain binds it a moment later).
func free_port() -> int:
	var server := TCPServer.new()
	if server.listen(0, "127.0.0.1") != OK:
		return 0
	var port := server.get_local_port()
	server.stop()
	return port


## 32 random bytes as hex: the token of this launch.
func random_token() -> String:
	return Crypto.new().generate_random_bytes(32).hex_encode()
