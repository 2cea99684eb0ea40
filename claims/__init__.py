"""Uniqueness by claims: a unique value is taken by appending a claim event, and one
validator that sees every claim for that value, in log order, decides (invariant 7).
"""
