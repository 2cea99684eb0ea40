"""HTTP API of catalog."""
