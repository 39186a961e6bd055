"""What outlives the process: the world and NPC records, save files, the memory store."""
