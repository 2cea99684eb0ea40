"""What an operator sees of a rebuild stopped from outside, or started from the staff page.

Found by rebuilding every view of a running shop (gunicorn, run_consumers and
simulate_shoppers) the way docs/rebuilding.md tells an operator to:

- `kill <pid>` (SIGTERM: docker stop, systemd, a plain `kill`) ended the
  command at once with no word, and the run stayed `building`;
- a run whose process was gone (SIGTERM, SIGKILL) kept its last rate and a
  time left on GET /api/projections and /staff/rebuilds/, for ever;
- a finished run's bar on the staff page was its position over the head of
  now, so it emptied as the shop kept writing;
- the page's buttons, while a rebuild of that view ran in another process,
  answered 500 ("Something went wrong … nothing in your cart was lost").
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from eventlog import store
from projections import cart_view
from rebuilds import service, status
from rebuilds.models import RebuildRun, RunStatus
from rebuilds.runs import take_lease
from tests.processes import database_url

from .rebuild_support import rows, shop

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def one_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process and the rebuild it starts fold with the same code, whatever else changes in the checkout."""
    monkeypatch.setenv("CARTLOG_REBUILD_CODE", "this-test")


@pytest.fixture
def staff_client() -> Client:
    client = Client()
    client.force_login(User.objects.create_user("operator", password="x" * 12, is_staff=True))
    return client


def start_rebuild(name: str) -> subprocess.Popen[str]:
    command = [sys.executable, "manage.py", "rebuild_projection", name, "--batch-size", "10", "--pause", "0.05"]
    env = {**os.environ, "DATABASE_URL": database_url()}
    return subprocess.Popen(
        [*command, "--no-progress"], cwd=Path(settings.BASE_DIR), env=env, stderr=subprocess.PIPE, text=True
    )


def wait_until_moved(process: subprocess.Popen[str], name: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run = RebuildRun.objects.filter(projection=name).first()
        if run and run.position > 0:
            return
        assert process.poll() is None, "the rebuild ended before it could be stopped"
        time.sleep(0.02)
    raise AssertionError("the rebuild never moved its checkpoint")


def test_sigterm_stops_a_rebuild_as_ctrl_c_does_and_the_same_command_resumes_it(seeded_catalog: None) -> None:
    shop(50, seed=21)
    live = rows(cart_view.TABLE, cart_view.KEY)
    process = start_rebuild("cart_view")
    wait_until_moved(process, "cart_view")
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=30)

    # Before: exit status -15 (killed by the signal), nothing said, the run still "building".
    assert process.returncode == 143
    assert "stopped (SIGTERM); run the same command again to resume cart_view" in stderr
    stopped = RebuildRun.objects.get(projection="cart_view")
    assert stopped.status == "stopped" and 0 < stopped.position < stopped.head

    outcome = service.rebuild("cart_view")

    assert outcome.run_id == stopped.id and outcome.status == "swapped"
    assert rows(cart_view.TABLE, cart_view.KEY) == live


def building_run(rate: float) -> RebuildRun:
    """A run as a process that was killed mid-way leaves it: building, a rate, half the log done."""
    head = store.head_position()
    return RebuildRun.objects.create(
        projection="cart_view", projection_version=cart_view.VERSION, shadow_table="projection_cart_view__rebuild",
        position=head // 2, head=head, events_done=head // 2, rate=rate, status=RunStatus.BUILDING,
    )  # fmt: skip


def test_a_building_run_whose_process_is_gone_shows_no_rate_and_no_time_left(
    seeded_catalog: None, staff_client: Client
) -> None:
    shop(10, seed=22)
    building_run(rate=1673.8)

    described = status.summary()["cart_view"]["rebuild"]
    page = staff_client.get("/staff/rebuilds/").content.decode()

    # Before: "running" was not there, the ETA was a number, and the page said "1,674 events/s · ETA … s".
    assert described["status"] == "building" and described["running"] is False
    assert described["eta_seconds"] is None
    assert "not running: run the same command again to resume it" in page
    assert "1,674 events/s" not in page and "ETA" not in page


def test_a_building_run_whose_process_holds_the_lease_shows_its_rate_and_time_left(
    seeded_catalog: None, staff_client: Client
) -> None:
    shop(10, seed=23)
    building_run(rate=2.0)
    lease = take_lease("cart_view")  # as the rebuilding process holds it
    try:
        described = status.summary()["cart_view"]["rebuild"]
        page = staff_client.get("/staff/rebuilds/").content.decode()
    finally:
        lease.release()

    assert described["running"] is True and described["eta_seconds"] is not None
    assert "2 events/s" in page and "ETA" in page and "not running" not in page


def test_a_finished_runs_bar_stays_full_while_the_log_grows(seeded_catalog: None, staff_client: Client) -> None:
    shop(10, seed=24)
    service.rebuild("cart_view")
    shop(10, seed=25)  # the head moves on; the swapped run read everything there was

    page = staff_client.get("/staff/rebuilds/").content.decode()

    run = RebuildRun.objects.get(projection="cart_view")
    assert run.position < store.head_position()
    # Before: <progress value="<its position>" max="<the head now>">, less full with every order placed.
    assert '<progress value="1.0" max="1"' in page


def test_the_staff_page_says_a_rebuild_runs_elsewhere_instead_of_failing(
    seeded_catalog: None, staff_client: Client
) -> None:
    shop(5, seed=26)
    lease = take_lease("order_history")  # a rebuild_projection order_history in another process
    try:
        response = staff_client.post("/staff/rebuilds/order_history/start/", {"verify": "0"}, follow=True)
    finally:
        lease.release()

    # Before: 500, the shop's "Something went wrong" page.
    assert response.status_code == 200
    assert response.redirect_chain == [("/staff/rebuilds/", 302)]
    assert "A rebuild of order_history is running in another process" in response.content.decode()
    assert not RebuildRun.objects.filter(projection="order_history").exists()
