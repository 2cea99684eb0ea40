"""The Django admin for staff (products and coupons editable, read models read-only),
the staff links in the header, and the 403 page in the shop's style."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.template.loader import render_to_string
from django.test import Client
from django.utils import timezone

from analytics.models import Recommendation, Summary
from catalog.models import Coupon, Product
from claims.models import Claim
from projections.models import CartView

pytestmark = pytest.mark.usefixtures("catalog")


def staff(client: Client) -> AbstractBaseUser:
    user = get_user_model().objects.create_superuser(username="boss", password="a-long-secret-9")
    client.force_login(user)
    return user


def test_staff_sees_the_admin_and_changes_a_products_price(client: Client, listed_catalog: None) -> None:
    staff(client)
    index = client.get("/admin/").content.decode()
    assert "Products" in index and "Coupons" in index and "Cart views" in index
    # Each model's plural as English writes it (Django adds an "s": "Summarys", "Order historys").
    for plural in ("Summaries", "Order history", "Product stats", "Hourly activity"):
        assert f">{plural}</a>" in index, plural
    assert not any(wrong in index for wrong in ("Summarys", "historys", "activitys", "statss", "batchs"))
    form = client.get("/admin/catalog/product/COF-001/change/")
    assert form.status_code == 200
    data = {"sku": "COF-001", "name": "Beans", "category": "Coffee", "price": "13.75", "active": "on"}
    response = client.post("/admin/catalog/product/COF-001/change/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Product.objects.get(sku="COF-001").price == Decimal("13.75")


def test_a_coupon_can_be_added_in_the_admin(client: Client) -> None:
    staff(client)
    response = client.post("/admin/catalog/coupon/add/", {"code": "SPRING15", "percent": "15", "active": "on"})
    assert response.status_code == 302, response.content.decode()[:2000]


@pytest.mark.parametrize("percent", ["0", "101", "150"])
def test_the_admin_refuses_a_coupon_outside_1_to_100_percent(client: Client, percent: str) -> None:
    staff(client)
    response = client.post("/admin/catalog/coupon/add/", {"code": "BIG", "percent": percent, "active": "on"})
    assert response.status_code == 200  # the form again, with its error
    assert "Ensure this value is" in response.content.decode()
    assert not Coupon.objects.filter(code="BIG").exists()


@pytest.mark.parametrize("logged_in", [False, True], ids=["anonymous", "customer"])
def test_a_non_staff_user_is_sent_to_the_admin_login(client: Client, logged_in: bool) -> None:
    if logged_in:
        client.force_login(get_user_model().objects.create_user(username="ada", password="a-long-secret-9"))
    response = client.get("/admin/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert client.get("/admin/catalog/product/").status_code == 302


def test_read_models_are_shown_but_cannot_be_added_changed_or_deleted(client: Client) -> None:
    staff(client)
    now = timezone.now()
    CartView.objects.create(
        cart_id="c1", owner="user:1", status="open", subtotal=0, discount=0, total=0, version=1,
        last_position=1, updated_at=now,
    )  # fmt: skip
    Claim.objects.create(
        claim_id="k1", stream_id="claim-k1", kind="username", key="ada", claimant="anon:x", status="pending",
        requested_position=1,
    )  # fmt: skip
    for base, pk in [("/admin/projections/cartview/", "c1"), ("/admin/claims/claim/", "k1")]:
        assert client.get(base).status_code == 200
        assert client.get(base + "add/").status_code == 403
        page = client.get(f"{base}{pk}/change/").content.decode()
        assert client.get(f"{base}{pk}/change/").status_code == 200 and 'name="_save"' not in page  # view only
        assert client.post(f"{base}{pk}/delete/", {"post": "yes"}).status_code == 403
    assert CartView.objects.filter(cart_id="c1").exists() and Claim.objects.filter(claim_id="k1").exists()
    assert client.get("/admin/analytics/recommendation/add/").status_code == 403
    assert client.get("/admin/projections/orderhistory/").status_code == 200


def test_the_header_links_staff_to_the_admin_analytics_and_rebuilds(client: Client) -> None:
    assert 'href="/admin/"' not in client.get("/").content.decode()
    staff(client)
    page = client.get("/").content.decode()
    for href in ("/admin/", "/staff/analytics/", "/staff/rebuilds/"):
        assert f'href="{href}"' in page


def test_a_staff_page_refuses_a_customer_with_the_shops_403_page(client: Client) -> None:
    client.force_login(get_user_model().objects.create_user(username="ada", password="a-long-secret-9"))
    for url in ("/staff/analytics/", "/staff/rebuilds/"):
        response = client.get(url)
        page = response.content.decode()
        assert response.status_code == 403
        assert "<title>Not allowed · cartlog shop</title>" in page
        assert 'class="container site-header"' in page and "cartlog shop" in page and 'id="cart-count"' in page
        assert "not a staff account" in page


def test_the_analytics_page_shows_revenue_as_money_like_the_shop(client: Client) -> None:
    Summary.objects.create(
        carts_started=3, carts_with_items=2, carts_checked_out=1, conversion_rate=0.33, abandonment_rate=0.5,
        revenue=Decimal("17011.30"), average_order_value=Decimal("17011.30"), computed_at=timezone.now(),
        covers_position=10,
    )  # fmt: skip
    staff(client)
    page = client.get("/staff/analytics/").content.decode()
    assert '<h2 id="summary-revenue">€17,011.30</h2>' in page


def test_the_analytics_pages_recommendations_name_both_products_and_say_what_the_measures_mean(
    client: Client,
) -> None:
    Summary.objects.create(
        carts_started=3, carts_with_items=2, carts_checked_out=1, conversion_rate=0.33, abandonment_rate=0.5,
        revenue=Decimal("25.00"), average_order_value=Decimal("25.00"), computed_at=timezone.now(), covers_position=10,
    )  # fmt: skip
    Recommendation.objects.create(
        sku="COF-001", rank=1, recommended_sku="KIT-001", support=0.25, confidence=0.5, lift=2, source="fp_growth",
        computed_at=timezone.now(), covers_position=10,
    )  # fmt: skip
    staff(client)
    page = client.get("/staff/analytics/").content.decode()
    table = page[page.index('id="recommendations"') :]
    table = table[: table.index("</table>")]
    assert 'Beans <small class="sku">COF-001</small>' in table  # the test catalog's names (tests/conftest.py)
    assert 'Dripper <small class="sku">KIT-001</small>' in table
    assert "<strong>lift</strong> how many times more often Y comes with X" in page


def test_the_404_and_500_pages_are_in_the_shops_style(client: Client) -> None:
    response = client.get("/no-such-page/")
    assert response.status_code == 404 and 'class="container site-header"' in response.content.decode()
    page = render_to_string("500.html")  # no request, no database: what a failure can still render
    assert 'class="container site-header"' in page and "/static/shop/shop.css" in page
