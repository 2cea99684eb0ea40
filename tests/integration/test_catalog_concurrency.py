"""Product commands append with expected versions: on PostgreSQL, staff racing to
change one price all get their change recorded, in some order, each from the
price the previous one left (no lost update), and the table ends at the last."""

import threading
from decimal import Decimal

import pytest
from django.db import connections

from catalog import services, streams
from catalog.models import Product
from eventlog import store

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

RACERS = 6


def race(prices: list[Decimal]) -> list[BaseException]:
    barrier, failures = threading.Barrier(len(prices)), []

    def body(price: Decimal) -> None:
        try:
            barrier.wait(10)
            services.change_price("COF-001", price, actor="user:1")
        except BaseException as error:
            failures.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=body, args=(price,)) for price in prices]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return failures


def test_concurrent_price_changes_each_start_from_the_price_the_last_one_left(listed_catalog: None) -> None:
    prices = [Decimal(f"{20 + i}.00") for i in range(RACERS)]

    assert race(prices) == []

    events = store.read_stream(streams.stream_id("COF-001"))
    changes = [e.data for e in events if e.type == "PriceChanged"]
    assert [e.version for e in events] == list(range(1, RACERS + 2))
    assert sorted(Decimal(c["to_price"]) for c in changes) == prices
    assert [c["from_price"] for c in changes] == ["12.50", *(c["to_price"] for c in changes[:-1])]
    assert Product.objects.get(sku="COF-001").price == Decimal(changes[-1]["to_price"])
