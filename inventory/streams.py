"""The names of stock streams, `stock-<sku>`: built and parsed here and nowhere else."""

CATEGORY = "stock"
PREFIX = f"{CATEGORY}-"


def stream_id(sku: str) -> str:
    return PREFIX + sku


def sku(stream_id: str) -> str:
    if not stream_id.startswith(PREFIX):
        raise ValueError(f"{stream_id!r} is not a stock stream")
    return stream_id[len(PREFIX) :]
