"""What staff read after saving stock in the admin, and coupon codes that only differ in case.

Found by running the shop as staff: receiving the first 2 units of a product said
"NEW-001: 0 available (0 on hand, 0 reserved) was added successfully" (the message
quoted the form's unsaved row, not the stock_levels view the handler had just
written), and the coupon form saved `once10` beside `ONCE10`, two coupons a
shopper's code (matched in any case) could not tell apart."""

import pytest
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils.html import strip_tags

from catalog.models import Coupon
from eventlog.models import Event

pytestmark = [pytest.mark.usefixtures("catalog"), pytest.mark.django_db(transaction=True)]


def staff() -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("boss", password="a-long-secret-9"))
    return client


def said(response: object) -> list[str]:
    return [strip_tags(str(m)) for m in messages.get_messages(response.wsgi_request)]  # type: ignore[attr-defined]


def test_the_stock_admins_messages_quote_the_level_the_log_now_has() -> None:
    client = staff()
    added = client.post("/admin/inventory/stocklevel/add/", {"sku": "COF-001", "receive": "8"}, follow=True)
    assert said(added) == ["The stock level “COF-001: 8 available (8 on hand, 0 reserved)” was added successfully."]
    changed = client.post(
        "/admin/inventory/stocklevel/COF-001/change/",
        {"receive": "3", "adjust_by": "-1", "reason": "one box broken"},
        follow=True,
    )
    assert said(changed) == [
        "The stock level “COF-001: 10 available (10 on hand, 0 reserved)” was changed successfully."
    ]
    stream = Event.objects.filter(stream_id="stock-COF-001").order_by("version")
    assert [(e.type, e.data.get("quantity", e.data.get("by"))) for e in stream] == [
        ("StockReceived", 8),
        ("StockReceived", 3),
        ("StockAdjusted", -1),
    ]


@pytest.mark.parametrize("typed", ["once20", "Once20", " ONCE20 "])
def test_a_coupon_code_taken_in_another_case_is_refused_on_the_form(typed: str) -> None:
    client = staff()
    response = client.post("/admin/catalog/coupon/add/", {"code": typed, "percent": "5", "once": "on", "active": "on"})
    assert response.status_code == 200  # the form again, with its error
    assert "There is already a coupon ONCE20; edit it instead." in response.content.decode()
    assert list(Coupon.objects.order_by("code").values_list("code", "percent")) == [("ONCE20", 20), ("WELCOME10", 10)]


def test_a_new_coupon_code_is_saved_in_upper_case_as_create_coupon_writes_it() -> None:
    client = staff()
    response = client.post("/admin/catalog/coupon/add/", {"code": " spring-5 ", "percent": "5", "active": "on"})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Coupon.objects.filter(code="SPRING-5", percent=5, once=False, active=True).exists()
    assert not Coupon.objects.filter(code__in=["spring-5", " spring-5 "]).exists()


@pytest.mark.parametrize("typed", ["TWO WORDS", "50%OFF", "   "])
def test_a_coupon_code_with_other_characters_is_refused(typed: str) -> None:
    response = staff().post("/admin/catalog/coupon/add/", {"code": typed, "percent": "5", "active": "on"})
    assert response.status_code == 200
    assert Coupon.objects.count() == 2


def test_a_coupons_code_cannot_be_changed_but_it_can_be_deactivated() -> None:
    client = staff()
    form = client.get("/admin/catalog/coupon/ONCE20/change/").content.decode()
    assert 'name="code"' not in form  # a new code would be a new row beside the old one
    response = client.post("/admin/catalog/coupon/ONCE20/change/", {"percent": "20", "once": "on"})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert list(Coupon.objects.filter(code__iexact="once20").values_list("code", "active")) == [("ONCE20", False)]
