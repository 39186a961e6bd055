"""Hand-written text heuristics beside the paper's loop: offline lines, what was heard, routines."""
