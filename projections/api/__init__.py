"""HTTP API of projections."""
