"""GET /api/projections: staff see every projection and consumer with its lag; others get 403."""

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from carts import services
from carts.handler import Context
from consumers import runner
from consumers.base import ProjectionConsumer
from consumers.transports import TableTransport
from kernel.principal import Principal
from projections import product_activity
from tests.e2e.api_helpers import assert_problem, client_for
from tests.log_helpers import wait_until_readable

pytestmark = pytest.mark.django_db(transaction=True)


def test_staff_see_checkpoints_heads_and_lag_and_others_are_refused(catalog: None) -> None:
    context = Context(actor=Principal.parse("user:1"))
    cart_id = services.start_cart(context).state.cart_id
    services.add_to_cart(context, cart_id, "COF-001", 1)
    assert_problem(client_for("shopper").get("/api/projections"), 403)
    assert_problem(APIClient().get("/api/projections"), 401)

    admin = get_user_model().objects.create_user(username="ops", password="a-long-passphrase", is_staff=True)
    client = APIClient()
    client.force_authenticate(admin)
    before = {row["name"]: row for row in client.get("/api/projections").json()}
    assert {"cart_view", "product_activity", "order_history", "claim_validator", "archiver"} <= set(before)
    assert before["cart_view"]["lag_events"] == 0
    assert before["product_activity"]["lag_events"] == 2
    assert before["product_activity"]["running"] is False

    wait_until_readable()
    runner.drain(ProjectionConsumer(product_activity), TableTransport())
    after = {row["name"]: row for row in client.get("/api/projections").json()}
    assert after["product_activity"]["lag_events"] == 0
    assert after["product_activity"]["checkpoint"] == after["product_activity"]["head"]
