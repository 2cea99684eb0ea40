"""After "forget me", none of the person's plaintext is anywhere: the whole database
dump (pg_dump), the Parquet archive, and every Kafka topic are searched for it.

The plaintext never went there in the first place (only sealed boxes did); the
search proves it, and a control proves it would find what is there: each order
id, which every one of those places holds in clear.
"""

import json
import os
import subprocess
from pathlib import Path

import pyarrow.dataset as ds
import pytest
from django.db import connection

from analytics.archive import archive, archive_root
from consumers import runner
from consumers.transports import TableTransport
from relay import config
from relay.cart_state import CartStatePublisher
from relay.topics import ensure_topics
from tests import runtime_role
from tests.kafka_broker import Broker
from tests.kafka_helpers import read_topic, relay_everything
from tests.log_helpers import wait_until_readable

from .personal_data_helpers import ADA, BOB, PLAINTEXT, check_out, shopper
from .rebuild_support import drain_consumers

pytestmark = [pytest.mark.kafka, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def everything_downstream() -> None:
    """Every consumer of the log has read it all: views, the relay, the cart-state topic, the archive."""
    wait_until_readable()
    drain_consumers()
    relay_everything()
    runner.drain(CartStatePublisher(), TableTransport())
    archive()


def database_dump() -> str:
    """The whole test database as pg_dump writes it (schema and every row), as its owner if there is one."""
    db = connection.settings_dict
    owner = runtime_role.owner()
    user = owner["USER"] if owner else db["USER"]
    env = {**os.environ, "PGPASSWORD": (owner or db).get("PASSWORD") or ""}
    command = ["pg_dump", "-h", db["HOST"] or "127.0.0.1", "-p", str(db["PORT"] or 5432), "-U", user, db["NAME"]]
    return subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout


def archive_contents() -> str:
    """The archive folder's raw bytes (every file) and its rows as Parquet decodes them."""
    root = archive_root()
    raw = b"".join(path.read_bytes() for path in sorted(Path(root).rglob("*")) if path.is_file())
    rows = ds.dataset(root / "events", format="parquet", partitioning="hive").to_table().to_pylist()
    return raw.decode("latin-1") + json.dumps(rows, default=str)


def kafka_contents() -> str:
    topics = [config.topic(category) for category in config.categories()] + [config.topic(config.CART_STATE)]
    messages = [m for topic in topics for m in read_topic(topic)]
    return "".join((m.key() or b"").decode() + (m.value() or b"").decode() for m in messages)


def test_after_forgetting_no_plaintext_is_in_the_database_dump_the_archive_or_kafka(
    catalog: None, kafka: Broker
) -> None:
    ensure_topics()
    ada, _ = shopper("ada")
    bob, _ = shopper("bob")
    orders = [check_out(ada, ADA)["order_id"], check_out(bob, BOB)["order_id"]]
    everything_downstream()
    assert ada.delete("/api/accounts/me").status_code == 204
    everything_downstream()
    for place, text in [("pg_dump", database_dump()), ("archive", archive_contents()), ("kafka", kafka_contents())]:
        assert all(order in text for order in orders), f"the search cannot see the orders in {place}"
        found = [secret for secret in [*PLAINTEXT, *BOB.values()] if secret in text]
        assert found == [], f"plaintext in {place}: {found}"
        assert "PersonForgotten" in text, f"{place} has not seen the forgetting"
