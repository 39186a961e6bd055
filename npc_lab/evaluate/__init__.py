"""Interview evaluation (Park et al. 2023, section 6): the residents of a sim run answer questions
in five categories under the paper's ablations, side by side, optionally ranked by an LLM judge.
`npc-lab eval RUN`; docs/evaluation.md."""
