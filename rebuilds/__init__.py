"""Rebuilding projections: a shadow table filled from position 0 with the current
code, beside the live one, then verified against it or swapped in atomically.
"""
