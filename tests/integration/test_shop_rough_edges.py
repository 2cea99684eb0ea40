"""The newcomer's rough edges in the shop (issue 13): search by SKU, "no results" said
once, every sign-up error at once, the demo coupons on the checkout page, and
recommendations only where lift > 1."""

import pytest
from django.test import Client
from django.test.utils import override_settings
from django.utils import timezone

from analytics.models import Recommendation
from analytics.queries import also_bought, recommendations
from tests.integration.shop_helpers import add, log_in_new_user

pytestmark = pytest.mark.usefixtures("catalog")


@pytest.mark.parametrize("query", ["KIT-001", "kit-001", "kit"])
def test_search_matches_a_sku_as_well_as_a_name(client: Client, query: str, listed_catalog: None) -> None:
    page = client.get("/", {"q": query}).content.decode()
    assert "Dripper" in page and "Beans" not in page


def test_no_results_is_said_once(client: Client) -> None:
    page = client.get("/", {"q": "teapot"}).content.decode()
    assert page.count("No products") == 1 and "0 products" not in page
    assert "No products matching “teapot”." in page and page.count("Show all") == 1


def test_every_sign_up_error_is_shown_at_once(client: Client) -> None:
    response = client.post("/signup/", {"username": "no spaces!", "password": "short"})
    page = response.content.decode()
    assert response.status_code == 400
    assert 'id="username-error"' in page and "letters, digits and @ . + - _ only" in page
    assert 'id="password-error"' in page and "too short" in page


@override_settings(DEMO=True)
def test_a_demo_checkout_page_lists_the_active_coupons(client: Client) -> None:
    log_in_new_user(client)
    add(client, "COF-001")
    page = client.get("/checkout/").content.decode()
    assert 'id="demo-coupons"' in page and "<code>WELCOME10</code>" in page and "<code>ONCE20</code>" in page
    assert "one-time" in page


@override_settings(DEMO=False)
def test_outside_a_demo_the_coupons_stay_secret(client: Client) -> None:
    log_in_new_user(client)
    add(client, "COF-001")
    assert "WELCOME10" not in client.get("/checkout/").content.decode()


def test_only_pairs_with_lift_above_one_are_recommended(client: Client) -> None:
    for rank, (recommended, lift) in enumerate([("KIT-001", 0.8), ("KIT-001", 1.0)], start=1):
        Recommendation.objects.create(
            sku="COF-001", rank=rank, recommended_sku=recommended, support=0.1, confidence=0.2, lift=lift,
            source="co_occurrence", computed_at=timezone.now(), covers_position=1,
        )  # fmt: skip
    assert also_bought("COF-001") == [] and recommendations("COF-001") == []
    assert "Customers also bought" not in client.get("/products/COF-001/").content.decode()
    Recommendation.objects.filter(rank=2).update(lift=1.2)
    assert [row["lift"] for row in also_bought("COF-001")] == [1.2]
