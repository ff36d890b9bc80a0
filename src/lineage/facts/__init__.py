"""Stage 2: events become normalized facts through declarative per-source mapping tables."""
