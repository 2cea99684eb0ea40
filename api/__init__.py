"""The REST API: one thin view per command or query (parse -> service -> serialize).

Errors of every layer become application/problem+json in `api/problems.py`.
"""
