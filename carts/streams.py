"""The names of cart streams, `cart-<cart id>`: built and parsed here and nowhere else.

Django-free, so the Spark jobs select cart streams with the same prefix.
"""

CATEGORY = "cart"
PREFIX = f"{CATEGORY}-"


def stream_id(cart_id: str) -> str:
    return PREFIX + cart_id


def cart_id(stream_id: str) -> str:
    if not stream_id.startswith(PREFIX):
        raise ValueError(f"{stream_id!r} is not a cart stream")
    return stream_id[len(PREFIX) :]
