"""HTTP API of accounts."""
