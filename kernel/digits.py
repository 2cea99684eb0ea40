"""Whole numbers as people type them into a URL, a header or a form: ASCII digits only.

`str.isdigit()` also accepts "²" and "٣", which `int()` refuses or reads as another digit;
the API and the shop refuse both the same way (docs/security.md).
"""


def is_number(text: str, max_digits: int = 18) -> bool:
    """1 to `max_digits` ASCII digits, nothing else (no sign, no space)."""
    return 0 < len(text) <= max_digits and text.isascii() and text.isdigit()
