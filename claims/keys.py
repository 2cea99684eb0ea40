"""How a value becomes a key, and a key a stream id.

Two values that people would call the same must collide: usernames are
compared after Unicode NFKC normalization and case folding (`Alice`, `ALICE`
and the full-width form of alice are one name); coupon codes ignore case and surrounding space.
"""

import hashlib
import unicodedata
from urllib.parse import quote

MAX_READABLE = 120


def normalize(kind: str, value: str) -> str:
    if kind == "username":
        return unicodedata.normalize("NFKC", value.strip()).casefold()
    if kind == "coupon":
        return value.strip().upper()
    return value.strip()


def stream_id(kind: str, key: str) -> str:
    """`claim-<kind>-<key>`, percent-encoded; very long keys are hashed (the key stays in the event)."""
    readable = quote(key, safe="")
    if len(readable) > MAX_READABLE:
        readable = "sha256." + hashlib.sha256(key.encode()).hexdigest()
    return f"claim-{kind}-{readable}"


def stream_for(kind: str, value: str) -> str:
    """The claim stream of a value as typed (normalized first)."""
    return stream_id(kind, normalize(kind, value))
