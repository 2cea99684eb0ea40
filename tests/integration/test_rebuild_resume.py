"""A rebuild killed with SIGKILL, or stopped with Ctrl-C, mid-way resumes from its own checkpoint and ends identical.

The rebuild runs as a real `manage.py rebuild_projection` process on this
test's database; it is killed once its checkpoint has moved, and the next
rebuild picks up the same run and shadow where the dead one's last committed
batch left them.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from projections import cart_view
from rebuilds import service, shadow
from rebuilds.models import RebuildRun
from rebuilds.runs import RebuildBusyError
from tests.processes import database_url

from .rebuild_support import rows, shop

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def one_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process and the rebuild it starts fold with the same code, whatever else changes in the checkout."""
    monkeypatch.setenv("CARTLOG_REBUILD_CODE", "this-test")


def start_rebuild(name: str, **options: object) -> subprocess.Popen[bytes]:
    command = [sys.executable, "manage.py", "rebuild_projection", name, "--batch-size", "10", "--pause", "0.05"]
    env = {**os.environ, "DATABASE_URL": database_url()}
    return subprocess.Popen([*command, "--no-progress"], cwd=Path(settings.BASE_DIR), env=env, **options)  # type: ignore[call-overload]


def interruptible() -> None:
    """In the child: Ctrl-C's default, even when this test runs in a background job (where SIGINT is ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_until_moved(process: subprocess.Popen[bytes]) -> RebuildRun:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run = RebuildRun.objects.filter(projection="cart_view").first()
        if run and run.position > 0:
            return run
        assert process.poll() is None, "the rebuild ended before it could be killed"
        time.sleep(0.02)
    raise AssertionError("the rebuild never moved its checkpoint")


def resume(name: str) -> service.RebuildOutcome:
    for _ in range(100):  # PostgreSQL frees the dead session's lease when it notices the hang-up
        try:
            return service.rebuild(name)
        except RebuildBusyError:
            time.sleep(0.05)
    raise AssertionError("the killed rebuild's lease was never freed")


def cart_events() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM eventlog_event WHERE stream_id LIKE 'cart-%%'")
        return int(cursor.fetchone()[0])


def test_a_sigkilled_rebuild_resumes_from_its_checkpoint_and_ends_identical(seeded_catalog: None) -> None:
    shop(50, seed=11)
    live = rows(cart_view.TABLE, cart_view.KEY)
    process = start_rebuild("cart_view")
    wait_until_moved(process)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    killed = RebuildRun.objects.get(projection="cart_view")
    assert killed.status == "building" and 0 < killed.position < killed.head
    assert len(rows(killed.shadow_table, cart_view.KEY)) > 0

    outcome = resume("cart_view")

    assert outcome.run_id == killed.id and outcome.status == "swapped"
    assert outcome.events_done == cart_events()  # every event folded exactly once across both processes
    assert rows(cart_view.TABLE, cart_view.KEY) == live
    assert not shadow.exists(killed.shadow_table)


def test_ctrl_c_leaves_a_stopped_run_that_the_same_command_resumes(seeded_catalog: None) -> None:
    shop(50, seed=12)
    live = rows(cart_view.TABLE, cart_view.KEY)
    process = start_rebuild("cart_view", stderr=subprocess.PIPE, preexec_fn=interruptible)
    wait_until_moved(process)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)

    assert process.returncode == 130
    assert "stopped; run the same command again to resume cart_view" in stderr.decode()
    stopped = RebuildRun.objects.get(projection="cart_view")
    # It said "building" (with a rate and a time left on /staff/rebuilds/) though nothing ran any more.
    assert stopped.status == "stopped" and 0 < stopped.position < stopped.head

    outcome = resume("cart_view")

    assert outcome.run_id == stopped.id and outcome.status == "swapped"
    assert outcome.events_done == cart_events()
    assert rows(cart_view.TABLE, cart_view.KEY) == live
