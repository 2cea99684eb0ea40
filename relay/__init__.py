"""The relay: the committed log, read after its checkpoint, produced to Kafka.

The log itself is the outbox: a request only appends to the database, and this
process moves what is committed to the broker afterwards (no dual write).
"""
