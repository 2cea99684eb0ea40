"""The fault lab's page and command: staff only, refused unless the lab is enabled, every switch off by default,
a flip reaches the switch table, and the panel shows positions and the invariants (green on a healthy shop)."""

import re
import time

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from consumers.faults import Fault, acting_on, is_on, switches
from lab import invariants
from lab.switches import CATALOG
from tests.integration.rebuild_support import drain_consumers, shop

pytestmark = [pytest.mark.usefixtures("seeded_catalog"), pytest.mark.django_db(transaction=True)]


def log_in(client: Client, *, staff: bool) -> None:
    name = "boss" if staff else "customer"
    user = get_user_model().objects.create_user(username=name, password="a-long-secret-9", is_staff=staff)
    client.force_login(user)


def test_every_switch_is_off_by_default_and_the_lab_is_off_unless_enabled(settings) -> None:
    from cartlog import settings as project_settings

    assert project_settings.LAB_ENABLED is project_settings.DEMO  # on in make run's demo, else off
    assert {fault: row.on for fault, row in switches().items()} == dict.fromkeys(Fault, False)
    assert {s.fault for s in CATALOG} == set(Fault)


def test_the_page_refuses_a_customer_and_says_the_lab_is_disabled_when_it_is(client: Client, settings) -> None:
    log_in(client, staff=False)
    assert client.get("/staff/lab/").status_code == 403
    client.logout()
    assert client.get("/staff/lab/").status_code == 302  # to the login page
    log_in(client, staff=True)
    settings.LAB_ENABLED = False
    page = client.get("/staff/lab/")
    assert page.status_code == 403 and "The fault lab is disabled" in page.content.decode()
    assert client.post("/staff/lab/pause/", {"on": "1"}).status_code == 403
    assert not is_on(Fault.PAUSE)


def test_the_command_refuses_to_flip_a_switch_while_the_lab_is_disabled(settings) -> None:
    settings.LAB_ENABLED = False
    with pytest.raises(CommandError, match="disabled"):
        call_command("lab", "on", "pause")
    assert not is_on(Fault.PAUSE)


def test_staff_flip_a_switch_from_the_page_and_the_runner_sees_it_for_that_consumer_only(
    client: Client, settings
) -> None:
    settings.LAB_ENABLED = True
    log_in(client, staff=True)
    page = client.get("/staff/lab/").content.decode()
    assert all(s.title in page for s in CATALOG)
    assert 'http-equiv="refresh"' in page  # JavaScript off: the page reloads itself
    client.post("/staff/lab/pause/", {"on": "1", "consumer": "product_activity"})
    assert acting_on("product_activity") == {Fault.PAUSE} and acting_on("order_history") == set()
    assert "on: product_activity" in client.get("/staff/lab/").content.decode()
    client.post("/staff/lab/pause/", {"on": "0"})
    assert acting_on("product_activity") == set()


def test_stopping_the_validator_pauses_the_claim_validator_only(settings) -> None:
    settings.LAB_ENABLED = True
    call_command("lab", "on", "validator")
    assert acting_on("claim_validator") == {Fault.PAUSE} and acting_on("order_history") == set()
    call_command("lab", "off", "validator")
    assert acting_on("claim_validator") == set()


def test_an_unknown_consumer_or_switch_is_refused(settings) -> None:
    settings.LAB_ENABLED = True
    with pytest.raises(CommandError, match="unknown consumer"):
        call_command("lab", "on", "crash", "--consumer", "nobody")
    with pytest.raises(CommandError, match="no switch"):
        call_command("lab", "on", "meltdown")
    # A --consumer the switch does not take was silently ignored.
    with pytest.raises(CommandError, match="validator is not about one consumer; leave out --consumer order_history"):
        call_command("lab", "on", "validator", "--consumer", "order_history")


def test_stopping_the_relay_is_refused_without_kafka_from_the_command_and_the_page(client: Client, settings) -> None:
    """make run's demo has no broker and so no relay: `lab on relay` turned a switch on that stopped
    nothing, and the panel had no relay row to watch. It is refused, with the reason, as hold is on SQLite."""
    settings.LAB_ENABLED, settings.KAFKA_BOOTSTRAP_SERVERS = True, ""
    with pytest.raises(CommandError, match=r"stopping the relay needs Kafka \(KAFKA_BOOTSTRAP_SERVERS\)"):
        call_command("lab", "on", "relay")
    log_in(client, staff=True)
    page = client.post("/staff/lab/relay/", {"on": "1"}, follow=True).content.decode()
    assert "stopping the relay needs Kafka" in page
    assert is_on(Fault.RELAY) is False


def test_the_panel_shows_every_invariant_holding_on_a_healthy_shop(client: Client, settings) -> None:
    settings.LAB_ENABLED = True
    shop(12)
    drain_consumers()
    checks = invariants.check_all()
    assert [(c.name, c.ok) for c in checks] == [
        ("every cart_view row equals the fold of its stream", True),
        ("versions contiguous per stream", True),
        ("each async view equals a rebuild to its position", True),
        ("no claim key with two holders", True),
    ], checks
    log_in(client, staff=True)
    panel = client.get("/staff/lab/panel/").content.decode()
    assert panel.count("✔ holds") == 4 and "order_history" in panel


def test_the_panel_shows_a_lag_in_seconds_to_a_tenth_as_the_guide_does(client: Client, settings) -> None:
    """The guide's worked example reads `lag 14 events, 9.3 s`; the panel showed `5.972`, `6.022`."""
    settings.LAB_ENABLED = True
    shop(2)  # no consumer runs here: order_history lags behind these orders
    time.sleep(0.3)
    log_in(client, staff=True)
    panel = client.get("/staff/lab/panel/").content.decode()
    row = re.search(r"<code>order_history</code>.*?</tr>", panel, re.S)
    assert row is not None, panel
    cells = re.findall(r"<td>([^<]*)</td>", row.group(0))
    lag_events, lag_seconds = int(cells[1]), cells[2]
    assert lag_events > 0 and re.fullmatch(r"\d+\.\d", lag_seconds), cells
    assert float(lag_seconds) >= 0.3


def test_the_guide_page_has_a_section_for_every_switch(client: Client, settings) -> None:
    settings.LAB_ENABLED = True
    log_in(client, staff=True)
    guide = client.get("/staff/lab/guide/").content.decode()
    assert all(f'id="{s.anchor}"' in guide for s in CATALOG)


def test_lab_status_names_each_switch_touched_with_its_count(settings) -> None:
    """`lab status` lists a switch that is on or has fired: the consumer it acts on, how often it fired
    once it has (`fired 1 time`, not "1 times"; pause never fires: no "fired 0 times"), then what it did."""
    from io import StringIO

    from consumers.faults import fired

    settings.LAB_ENABLED = True
    call_command("lab", "on", "pause", "--consumer", "order_history")
    call_command("lab", "on", "duplicate", "--consumer", "order_history")
    assert fired(Fault.DUPLICATE, "order_history: delivered positions 7..9 twice", once=True)
    out = StringIO()
    call_command("lab", "status", stdout=out)
    switch_lines = [line for line in out.getvalue().splitlines() if line.startswith("switch ")]
    assert switch_lines == [
        "switch pause: on (order_history)",
        "switch duplicate: off (order_history), fired 1 time: order_history: delivered positions 7..9 twice; "
        "the repeat was refused by the checkpoint: its compare-and-set from the batch's old position fails "
        "(table transport)",
    ]


@pytest.mark.parametrize(
    ("transport", "refused", "not_said"),
    [
        ("table", "refused by the checkpoint", "partition"),
        ("kafka", "refused by the consumer's progress per partition", "checkpoint"),
    ],
)
def test_the_duplicate_switch_says_what_refuses_the_repeat_on_its_consumers_transport(
    client: Client, settings, transport: str, refused: str, not_said: str
) -> None:
    """The page and `lab status` said "refused by the checkpoint" whatever the transport (later both, side by side);
    on Kafka it is the progress per partition that drops the repeat. The consumer's heartbeat says which it reads."""
    import html
    from io import StringIO

    from django.utils import timezone

    from consumers.faults import fired
    from consumers.models import Heartbeat

    settings.LAB_ENABLED = True
    Heartbeat.objects.create(name="product_activity", transport=transport, beat_at=timezone.now(), pid=1)
    call_command("lab", "on", "duplicate", "--consumer", "product_activity")
    log_in(client, staff=True)
    page = client.get("/staff/lab/").content.decode()
    article = re.search(r'<article id="switch-duplicate">.*?</article>', html.unescape(page), re.S)
    assert article is not None, page
    assert refused in article.group(0) and not_said not in article.group(0)

    assert fired(Fault.DUPLICATE, "product_activity: delivered positions 3..4 twice", once=True)
    out = StringIO()
    call_command("lab", "status", stdout=out)
    line = next(line for line in out.getvalue().splitlines() if line.startswith("switch duplicate"))
    assert f"; the repeat was {refused}" in line and line.endswith(f"({transport} transport)"), line
    assert not_said not in line.split("; the repeat", 1)[1]
