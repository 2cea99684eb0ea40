"""`cart_view` and `product_activity` rows for a short, hand-written log, compared with
hand-written rows: every column a literal, so a projection that swaps two counters or
drops a column fails here (the rebuild tests only compare a projection with itself).

Both backends: the projections get `RecordedEvent`s built in the test and never read
the log, so nothing here depends on how a store assigns positions.
"""

from decimal import Decimal
from itertools import combinations
from typing import Any

import pytest

from carts.events import CartOwnerChanged, CartStarted, CheckedOut, ItemAdded, ItemQuantityChanged, ItemRemoved
from projections import cart_view, product_activity
from projections.models import CartView, ProductActivity

from .recorded_events import at, recorded

pytestmark = pytest.mark.django_db

COF, KIT = "COF-001", "KIT-001"

# Two carts, interleaved: c1 gains lines, merges a repeat add, changes a quantity and its
# owner, then checks out with a coupon; c2 stays open after a line is removed.
CART_LOG = [
    recorded(1, "cart-c1", 1, CartStarted(owner="anon:tok1")),
    recorded(2, "cart-c1", 2, ItemAdded(sku=COF, quantity=2, unit_price=Decimal("12.50"))),
    recorded(3, "cart-c1", 3, ItemAdded(sku=KIT, quantity=1, unit_price=Decimal("24.00"))),
    recorded(4, "cart-c1", 4, ItemAdded(sku=COF, quantity=1, unit_price=Decimal("12.50"))),
    recorded(5, "cart-c1", 5, ItemQuantityChanged(sku=KIT, from_quantity=1, to_quantity=2)),
    recorded(6, "cart-c1", 6, CartOwnerChanged(from_owner="anon:tok1", to_owner="user:7")),
    recorded(7, "cart-c2", 1, CartStarted(owner="user:9")),
    recorded(8, "cart-c2", 2, ItemAdded(sku=KIT, quantity=1, unit_price=Decimal("24.00"))),
    recorded(9, "cart-c2", 3, ItemAdded(sku=COF, quantity=4, unit_price=Decimal("12.50"))),
    recorded(10, "cart-c2", 4, ItemRemoved(sku=KIT)),
    recorded(
        11,
        "cart-c1",
        7,
        CheckedOut(
            order_id="ord-c1",
            lines=[
                {"sku": COF, "quantity": 3, "unit_price": "12.50", "line_total": "37.50"},
                {"sku": KIT, "quantity": 2, "unit_price": "24.00", "line_total": "48.00"},
            ],
            subtotal=Decimal("85.50"),
            discount=Decimal("8.55"),
            total=Decimal("76.95"),
            coupon="WELCOME10",
        ),
    ),
]

CART_ROWS = [
    {
        "cart_id": "c1",
        "owner": "user:7",
        "status": "checked_out",
        "lines": [
            {"sku": COF, "quantity": 3, "unit_price": "12.50"},
            {"sku": KIT, "quantity": 2, "unit_price": "24.00"},
        ],
        "item_count": 5,
        "subtotal": Decimal("85.50"),
        "discount": Decimal("8.55"),
        "total": Decimal("76.95"),
        "coupon": "WELCOME10",
        "order_id": "ord-c1",
        "version": 7,
        "last_position": 11,
        "updated_at": at(11),
    },
    {
        "cart_id": "c2",
        "owner": "user:9",
        "status": "open",
        "lines": [{"sku": COF, "quantity": 4, "unit_price": "12.50"}],
        "item_count": 4,
        "subtotal": Decimal("50.00"),
        "discount": Decimal("0.00"),
        "total": Decimal("50.00"),
        "coupon": None,
        "order_id": None,
        "version": 4,
        "last_position": 10,
        "updated_at": at(10),
    },
]


def cart_rows() -> list[dict[str, Any]]:
    return [dict(row) for row in CartView.objects.order_by("cart_id").values()]


def test_cart_view_rows_for_a_log_applied_in_one_batch() -> None:
    cart_view.apply(CART_LOG)

    assert cart_rows() == CART_ROWS


def test_cart_view_rows_for_a_log_applied_event_by_event() -> None:
    for event in CART_LOG:
        cart_view.apply([event])

    assert cart_rows() == CART_ROWS


def test_cart_view_ignores_a_second_delivery_of_the_log() -> None:
    cart_view.apply(CART_LOG)
    cart_view.apply(CART_LOG[3:])

    assert cart_rows() == CART_ROWS


def test_cart_view_keeps_a_row_when_the_start_of_its_stream_is_delivered_again() -> None:
    cart_view.apply(CART_LOG)
    cart_view.apply(CART_LOG[:3])  # c1 from version 1 (folded without reading its row), ending at 3 of 7

    assert cart_rows() == CART_ROWS


# Three carts. COF's counters all differ from one another, so swapping any two of them
# changes its row; KIT is the SKU whose quantity is lowered.
ACTIVITY_LOG = [
    recorded(1, "cart-p1", 1, CartStarted(owner="user:1")),
    recorded(2, "cart-p1", 2, ItemAdded(sku=COF, quantity=2, unit_price=Decimal("12.50"))),
    recorded(3, "cart-p1", 3, ItemAdded(sku=KIT, quantity=3, unit_price=Decimal("24.00"))),
    recorded(4, "cart-p1", 4, ItemQuantityChanged(sku=COF, from_quantity=2, to_quantity=3)),
    recorded(5, "cart-p1", 5, ItemQuantityChanged(sku=COF, from_quantity=3, to_quantity=5)),
    recorded(6, "cart-p1", 6, ItemQuantityChanged(sku=KIT, from_quantity=3, to_quantity=1)),
    recorded(
        7,
        "cart-p1",
        7,
        CheckedOut(
            order_id="ord-p1",
            lines=[
                {"sku": COF, "quantity": 5, "unit_price": "12.50", "line_total": "62.50"},
                {"sku": KIT, "quantity": 1, "unit_price": "24.00", "line_total": "24.00"},
            ],
            subtotal=Decimal("86.50"),
            discount=Decimal("0.00"),
            total=Decimal("86.50"),
            coupon=None,
        ),
    ),
    recorded(8, "cart-p2", 1, CartStarted(owner="anon:x")),
    recorded(9, "cart-p2", 2, ItemAdded(sku=COF, quantity=1, unit_price=Decimal("12.50"))),
    recorded(10, "cart-p2", 3, ItemRemoved(sku=COF)),
    recorded(11, "cart-p2", 4, ItemAdded(sku=COF, quantity=1, unit_price=Decimal("12.50"))),
    recorded(12, "cart-p2", 5, ItemQuantityChanged(sku=COF, from_quantity=1, to_quantity=2)),
    recorded(13, "cart-p2", 6, CartOwnerChanged(from_owner="anon:x", to_owner="user:2")),
    recorded(
        14,
        "cart-p2",
        7,
        CheckedOut(
            order_id="ord-p2",
            lines=[{"sku": COF, "quantity": 2, "unit_price": "12.50", "line_total": "25.00"}],
            subtotal=Decimal("25.00"),
            discount=Decimal("2.50"),
            total=Decimal("22.50"),
            coupon="WELCOME10",
        ),
    ),
    recorded(15, "cart-p3", 1, CartStarted(owner="user:3")),
    recorded(16, "cart-p3", 2, ItemAdded(sku=COF, quantity=1, unit_price=Decimal("12.50"))),
]

ACTIVITY_ROWS = [
    {
        "sku": COF,
        "times_added": 4,  # positions 2, 9, 11, 16
        "times_removed": 1,  # 10
        "times_raised": 3,  # 4, 5, 12
        "times_lowered": 0,
        "times_bought": 2,  # 7, 14
        "units_sold": 7,  # 5 + 2
        "revenue": Decimal("87.50"),  # line totals before the discount: 62.50 + 25.00
        "last_position": 16,
    },
    {
        "sku": KIT,
        "times_added": 1,
        "times_removed": 0,
        "times_raised": 0,
        "times_lowered": 1,
        "times_bought": 1,
        "units_sold": 1,
        "revenue": Decimal("24.00"),
        "last_position": 7,
    },
]


def activity_rows() -> list[dict[str, Any]]:
    return [dict(row) for row in ProductActivity.objects.order_by("sku").values()]


def test_the_expected_activity_rows_tell_every_two_counters_apart() -> None:
    for first, second in combinations(product_activity.COUNTERS, 2):
        assert any(row[first] != row[second] for row in ACTIVITY_ROWS), (first, second)


def test_product_activity_rows_for_a_log_applied_in_one_batch() -> None:
    product_activity.apply(ACTIVITY_LOG)

    assert activity_rows() == ACTIVITY_ROWS


def test_product_activity_adds_a_later_batch_to_the_counts_so_far() -> None:
    product_activity.apply(ACTIVITY_LOG[:9])
    product_activity.apply(ACTIVITY_LOG[9:])

    assert activity_rows() == ACTIVITY_ROWS
