"""Stage 4: reachability, blast radius, access paths and tag propagation (two engines)."""
