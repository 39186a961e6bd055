"""The paper's constants (Park et al. 2023), in one ground-floor module that imports nothing of the
brain: the settings take their defaults from here and cognition its fallbacks, so neither imports
the other to agree on them."""

from __future__ import annotations

# Retrieval (section 4.1): score = w_recency * recency + w_importance * importance + w_relevance * relevance,
# every weight 1; recency decays by this factor per game hour since the memory was last accessed.
WEIGHT_RECENCY = 1.0
WEIGHT_IMPORTANCE = 1.0
WEIGHT_RELEVANCE = 1.0
DECAY_PER_HOUR = 0.995
# Memories a retrieval returns (the released code's count for planning and reacting).
RETRIEVE_TOP_K = 30

# Reflection (section 4.2): the summed importance of new events that triggers one. The paper says
# 150; its released 25-agent run used 250.
REFLECTION_THRESHOLD = 150
