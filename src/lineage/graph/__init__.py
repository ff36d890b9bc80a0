"""Stage 3: facts fold into the temporal graph (``build``), read back with ``api``."""
