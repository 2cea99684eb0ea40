"""The 429 page's wait, in words (shop/views/account.py: wait_in_words)."""

import pytest

from shop.views.account import wait_in_words


@pytest.mark.parametrize(
    ("seconds", "said"),
    [
        (1, "1 second"),
        (45, "45 seconds"),
        (60, "1 minute"),
        (120, "2 minutes"),
        (89, "about 1 minute"),
        (3489, "about 58 minutes"),
        (3570, "about 1 hour"),
        (7200, "about 2 hours"),
    ],
)
def test_a_wait_is_said_in_the_largest_unit_that_fits(seconds: int, said: str) -> None:
    assert wait_in_words(seconds) == said
