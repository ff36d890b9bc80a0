"""Event models, one module per source; ``registry`` detects the source and dispatches."""
