"""What /health/ready tells whom about a failing consumer (docs/security.md: the health checks).

A consumer's recorded error is the first line its batch raised: the claim validator's 'could not
append to claim-username-<the name>' carries a username, the archiver's names a folder of the
machine. /health/ready answers whoever reaches it (the shop's port, in the compose stack), so it
named both to anyone; now the consumer and the error's class, and the whole line to a staff session.
"""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from consumers import heartbeat
from consumers.models import Heartbeat

pytestmark = pytest.mark.django_db

# As consumers/runner.py records them ('<Class>: <first line>'): the validator's, when 200 appends to
# one claim stream lost their race (claims/appending.py), and the archiver's on an unwritable folder.
VALIDATOR_ERROR = "RuntimeError: could not append to claim-username-ada.lovelace%40example.org after 200 attempts"
ARCHIVER_ERROR = (
    "ArchiveStorageError: cannot write the event archive in /srv/cartlog/archive (EVENT_ARCHIVE_PATH): "
    "[Errno 30] Read-only file system; make the folder writable (or free space) and run again"
)


@pytest.fixture
def failing() -> None:
    for name, error in (("claim_validator", VALIDATOR_ERROR), ("archiver", ARCHIVER_ERROR)):
        Heartbeat.objects.create(name=name, transport="table", beat_at=timezone.now(), pid=1)
        heartbeat.failing(name, error)


def consumers_check(client: Client) -> str:
    response = client.get("/health/ready")
    assert (response.status_code, response.json()["status"]) == (200, "degraded")
    said: str = response.json()["checks"]["consumers"]
    return said


def signed_in(username: str, *, staff: bool) -> Client:
    user = get_user_model().objects.create_user(username, password="Unused-pass-1!", is_staff=staff)
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("who", ["anonymous", "customer"])
def test_ready_names_a_failing_consumer_and_its_errors_class_but_not_its_message(failing: None, who: str) -> None:
    client = Client() if who == "anonymous" else signed_in("grace", staff=False)
    said = consumers_check(client)
    assert "archiver failing: ArchiveStorageError" in said
    assert "claim_validator failing: RuntimeError" in said
    assert "ada.lovelace" not in said  # a username, from the claim's stream id
    assert "/srv/cartlog" not in said  # a folder of the machine
    assert "could not append" not in said and "Read-only" not in said


def test_ready_gives_a_staff_session_each_failing_consumers_whole_error(failing: None) -> None:
    said = consumers_check(signed_in("operator", staff=True))
    assert f"archiver failing: {ARCHIVER_ERROR}" in said
    assert f"claim_validator failing: {VALIDATOR_ERROR}" in said


def test_the_projections_api_still_gives_staff_the_whole_error(failing: None) -> None:
    staff = signed_in("operator", staff=True)
    rows = {row["name"]: row["failing"] for row in staff.get("/api/projections").json()}
    assert rows["claim_validator"].startswith(VALIDATOR_ERROR + " (since ")
    assert signed_in("grace", staff=False).get("/api/projections").status_code == 403
