"""Sealing personal fields into a box an event can carry, and opening it: pure crypto, no Django.

A box is AES-GCM over the fields as JSON, with the key id beside it in clear and
bound to it as associated data. The nonce is synthetic (an HMAC of the fields
under a second subkey): the same fields under the same key make the same box, so
a repeated command (same Idempotency-Key) has the same fingerprint, and a nonce
is never reused for different fields.
"""

import base64
import hashlib
import hmac
import json
import os
from collections.abc import Mapping
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

ERASED = "[erased]"
KEY_BYTES = 32
ALGORITHM = "AES-256-GCM"
BOX_KEYS = frozenset({"key_id", "alg", "fields", "nonce", "ciphertext"})

Box = dict[str, Any]


class BoxOpenError(Exception):
    """The box was not sealed with this key, or was altered."""


def new_key() -> bytes:
    return os.urandom(KEY_BYTES)


def seal(fields: Mapping[str, str], key: bytes, key_id: str) -> Box:
    """`fields` sealed under `key`; the field names stay readable, their values do not."""
    cipher_key, nonce_key = _subkeys(key)
    plaintext = json.dumps(dict(fields), sort_keys=True).encode()
    aad = key_id.encode()
    nonce = hmac.new(nonce_key, aad + b"\x00" + plaintext, hashlib.sha256).digest()[:12]
    ciphertext = AESGCM(cipher_key).encrypt(nonce, plaintext, aad)
    return {
        "key_id": key_id,
        "alg": ALGORITHM,
        "fields": sorted(fields),
        "nonce": _b64(nonce),
        "ciphertext": _b64(ciphertext),
    }


def open_box(box: Box, key: bytes) -> dict[str, str]:
    cipher_key, _ = _subkeys(key)
    try:
        plaintext = AESGCM(cipher_key).decrypt(
            base64.b64decode(box["nonce"]), base64.b64decode(box["ciphertext"]), str(box["key_id"]).encode()
        )
    except Exception:
        raise BoxOpenError(f"the box under key {box.get('key_id')!r} does not open with this key") from None
    opened: dict[str, str] = json.loads(plaintext)
    return opened


def erased(box: Box) -> dict[str, str]:
    """What a box shows once its key is destroyed: each field, erased."""
    return {name: ERASED for name in box.get("fields", [])}


def is_box(value: object) -> bool:
    return isinstance(value, dict) and value.keys() >= BOX_KEYS


def _subkeys(key: bytes) -> tuple[bytes, bytes]:
    """One key for the cipher, one for the synthetic nonce: a key never serves two purposes."""
    both = HKDF(algorithm=hashes.SHA256(), length=64, salt=None, info=b"cartlog personal data v1").derive(key)
    return both[:32], both[32:]


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")
