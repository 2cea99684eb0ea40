"""The names of product streams, `product-<sku>`: built and parsed here and nowhere else."""

CATEGORY = "product"
PREFIX = f"{CATEGORY}-"


def stream_id(sku: str) -> str:
    return PREFIX + sku


def sku(stream_id: str) -> str:
    if not stream_id.startswith(PREFIX):
        raise ValueError(f"{stream_id!r} is not a product stream")
    return stream_id[len(PREFIX) :]
