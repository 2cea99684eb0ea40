"""HTTP API of claims."""
