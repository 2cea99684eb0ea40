"""Sealing personal fields: pure AES-GCM boxes, no database."""

import base64
import json

import pytest

from privacy import sealing

KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))
ADA = {"name": "Ada Lovelace", "email": "ada@example.org", "address": "12 St James's Square, London"}


def test_a_box_opens_with_its_key_to_the_fields_sealed() -> None:
    box = sealing.seal(ADA, KEY, "k1")
    assert sealing.open_box(box, KEY) == ADA


def test_a_box_holds_the_key_id_and_field_names_in_clear_and_no_value() -> None:
    box = sealing.seal(ADA, KEY, "k1")
    assert (box["key_id"], box["alg"], box["fields"]) == ("k1", "AES-256-GCM", ["address", "email", "name"])
    text = json.dumps(box)
    assert not any(value in text for value in ["Ada", "Lovelace", "ada@example.org", "James"])


def test_the_same_fields_under_the_same_key_make_the_same_box_so_a_repeated_command_matches() -> None:
    assert sealing.seal(ADA, KEY, "k1") == sealing.seal(dict(reversed(ADA.items())), KEY, "k1")


def test_other_fields_or_another_key_make_another_nonce() -> None:
    nonces = {
        sealing.seal(ADA, KEY, "k1")["nonce"],
        sealing.seal({**ADA, "name": "Ada King"}, KEY, "k1")["nonce"],
        sealing.seal(ADA, OTHER_KEY, "k1")["nonce"],
    }
    assert len(nonces) == 3


def test_a_box_does_not_open_with_another_key() -> None:
    with pytest.raises(sealing.BoxOpenError):
        sealing.open_box(sealing.seal(ADA, KEY, "k1"), OTHER_KEY)


def test_a_box_relabelled_with_another_key_id_does_not_open() -> None:
    box = {**sealing.seal(ADA, KEY, "k1"), "key_id": "k2"}
    with pytest.raises(sealing.BoxOpenError):
        sealing.open_box(box, KEY)


def test_an_altered_ciphertext_does_not_open() -> None:
    box = sealing.seal(ADA, KEY, "k1")
    raw = bytearray(base64.b64decode(box["ciphertext"]))
    raw[0] ^= 1
    with pytest.raises(sealing.BoxOpenError):
        sealing.open_box({**box, "ciphertext": base64.b64encode(bytes(raw)).decode()}, KEY)


def test_an_erased_box_shows_each_field_as_erased() -> None:
    assert sealing.erased(sealing.seal(ADA, KEY, "k1")) == {
        "address": "[erased]",
        "email": "[erased]",
        "name": "[erased]",
    }


def test_only_a_box_is_taken_for_a_box() -> None:
    assert sealing.is_box(sealing.seal(ADA, KEY, "k1"))
    assert not sealing.is_box({"key_id": "k1"}) and not sealing.is_box("[erased]") and not sealing.is_box(None)


def test_new_keys_are_256_bits_and_differ() -> None:
    first, second = sealing.new_key(), sealing.new_key()
    assert len(first) == 32 and first != second
