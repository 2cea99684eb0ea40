"""Consumers: named readers of the committed log that keep a checkpoint.

One abstraction over two transports (the event table read by position, or
Kafka); `run_consumers` runs every registered consumer until stopped.
"""
