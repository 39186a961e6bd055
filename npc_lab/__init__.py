"""The lab around the brain: the headless world (`sim`), the interview evaluation (`evaluate`),
the benchmarks (`bench`), the residents and scenarios (`residents`) and the fake
OpenAI-compatible endpoint they run against (`fake_openai`). The lab drives the brain through its
public interfaces; the brain never imports the lab."""
