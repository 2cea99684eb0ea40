"""HTTP API of analytics."""
