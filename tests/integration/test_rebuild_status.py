"""Rebuilds are visible and startable: rebuilds.status.summary(), the staff page, the Celery task."""

import pytest
from django.contrib.auth.models import User
from django.test import Client

from rebuilds import status, tasks
from rebuilds.models import RebuildRun

from .rebuild_support import shop

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def staff_client() -> Client:
    client = Client()
    client.force_login(User.objects.create_user("operator", password="x" * 12, is_staff=True))
    return client


def test_summary_shows_each_projection_and_its_latest_run(seeded_catalog: None) -> None:
    shop(10)
    result = tasks.rebuild_projection.apply(args=["cart_view"]).get()  # the Celery task, run in place

    info = status.summary()["cart_view"]

    assert result["status"] == "swapped" and info["rebuild"]["id"] == result["run_id"]
    assert info["rebuild"]["status"] == "swapped" and info["live_version"] == info["code_version"]
    assert info["rebuild"]["events_done"] == result["events_done"] > 0
    assert info["rebuild"]["position"] == info["rebuild"]["head"]


def test_the_staff_page_shows_rebuilds_and_starts_one(seeded_catalog: None, staff_client: Client) -> None:
    shop(5)
    response = staff_client.post("/staff/rebuilds/cart_view/start/", {"verify": "1"})
    assert response.status_code == 302
    assert RebuildRun.objects.get(projection="cart_view").status == "verified"  # eager Celery: done already

    page = staff_client.get("/staff/rebuilds/")

    assert page.status_code == 200
    assert b"cart_view" in page.content and b"verified" in page.content
    partial = staff_client.get("/staff/rebuilds/", headers={"HX-Request": "true"})
    assert b'<table class="stack">' in partial.content and b"<html" not in partial.content


def test_the_staff_page_is_for_staff_only(db: None) -> None:
    assert Client().get("/staff/rebuilds/").status_code == 302
    client = Client()
    client.force_login(User.objects.create_user("shopper", password="x" * 12))
    assert client.get("/staff/rebuilds/").status_code == 403
    assert client.post("/staff/rebuilds/cart_view/start/").status_code == 403


def test_get_api_projections_carries_the_rebuild_state(seeded_catalog: None, staff_client: Client) -> None:
    shop(5)
    tasks.rebuild_projection.apply(args=["cart_view"]).get()

    response = staff_client.get("/api/projections")

    assert response.status_code == 200
    cart_view = next(row for row in response.json() if row["name"] == "cart_view")
    assert cart_view["rebuild"]["rebuild"]["status"] == "swapped"
    assert cart_view["rebuild"]["live_version"] == cart_view["rebuild"]["code_version"]
