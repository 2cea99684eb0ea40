"""A bench-only app: the bare DRF endpoint that the HTTP benchmark compares the cart API with.

Installed only by bench.settings, never by cartlog.settings or its URLs.
"""
