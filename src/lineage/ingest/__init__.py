"""The ingest stage: raw files -> accepted events, quarantine and duplicates in the warehouse."""
