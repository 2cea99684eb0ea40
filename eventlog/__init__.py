"""The append-only event log: the only source of truth in cartlog.

Nothing here knows about carts; `store` appends and reads, `registry` knows
event types and their schema versions.
"""
