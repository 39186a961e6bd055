extends RefCounted
## An NpcBrainAgent's voice: with the agent's `speak_aloud` on, each line it speaks (`spoke`: to
## the player or to another NPC) is read aloud through the engine's own text-to-speech
## (`DisplayServer.tts_speak`, desktop and web exports), in a voice of its own; captions stay the
## game's. A part of the agent, kept apart by concern.

## The engine's setting that turns text-to-speech on (read as the game starts).
const TTS_SETTING := "audio/general/text_to_speech"

var _agent: NpcBrainAgent
var _warned: bool = false


func _init(agent: NpcBrainAgent) -> void:
	_agent = agent


## Says `line` aloud when the agent speaks aloud: `speaking` first, then the engine's speech
## (queued after the lines before it). Off, it does nothing.
func speak(line: NpcBrainLine) -> void:
	if not _agent.speak_aloud or line.text.strip_edges() == "":
		return
	if not ProjectSettings.get_setting(TTS_SETTING, false):
		if not _warned:
			_warned = true
			push_warning(("NpcBrainAgent %s: speak_aloud is on, but the project setting %s is off:"
					+ " turn it on to hear the NPCs.") % [_agent.npc_id, TTS_SETTING])
		return
	var voice := get_voice()
	var tone := _agent.npc_id.hash()
	var pitch := 0.85 + float(absi(tone) % 31) / 100.0  # 0.85 .. 1.15: two NPCs in one voice differ
	NpcBrainLog.record("voiced", {"npc": _agent.npc_id, "voice": voice, "text": line.text})
	_agent.speaking.emit(line, voice)
	DisplayServer.tts_speak(line.text, voice, 50, pitch)


## The agent's voice: its `voice_id` where this platform has it, else one of the platform's voices
## for the game's language (any voice without one), picked by a stable hash of its npc id, so an
## NPC keeps its voice from one run to the next; "" (the platform's default) without voices.
func get_voice() -> String:
	var voices := DisplayServer.tts_get_voices()
	var ids: Array[String] = []
	for voice in voices:
		ids.append(str(voice.get("id", "")))
	if _agent.voice_id != "" and ids.has(_agent.voice_id):
		return _agent.voice_id
	var language := TranslationServer.get_locale().get_slice("_", 0)
	var local := Array(DisplayServer.tts_get_voices_for_language(language))
	var pool: Array = local if not local.is_empty() else ids
	if pool.is_empty():
		return ""
	pool.sort()
	return str(pool[absi(_agent.npc_id.hash()) % pool.size()])
