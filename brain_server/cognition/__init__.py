"""Cognition as small modules named after what they do, in the order of the paper's loop:
perceive -> retrieve -> plan (-> react, reflect, converse) -> locate -> act."""
