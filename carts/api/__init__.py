"""HTTP API of carts."""
