"""Reading raw event files: formats, compression, lenient JSON, record boundaries."""
