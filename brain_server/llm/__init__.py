"""The LLM and embeddings layer: every completion goes through the `openai` client."""
