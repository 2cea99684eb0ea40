"""Every registered projection, rebuilt from position 0 over a shop's log, equals the live one.

Both backends. A rebuild fills a shadow table beside the live one with the
projection's own `apply`, verifies or swaps it; the async test view stands in
for the async projections whatever the registry holds when this runs.
"""

from collections.abc import Iterator

import pytest
from django.core.management import CommandError, call_command

from consumers.models import Checkpoint
from projections import registry
from rebuilds import service, shadow
from rebuilds.models import ProjectionVersion, RebuildRun

from .rebuild_support import drain_consumers, drop_tables, register_item_counts, rows, shop

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = [projection.NAME for projection in registry.all_projections()] + ["test_item_counts"]


@pytest.fixture
def item_counts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    module = register_item_counts(monkeypatch)
    yield
    drop_tables(module.TABLE, shadow.shadow_name(module.TABLE))


@pytest.fixture
def shop_log(seeded_catalog: None, item_counts: None) -> None:
    shop(40, seed=7)
    drain_consumers()
    decided_claims()


def decided_claims() -> None:
    """A few coupon claims decided by the validator, so its state (`claims`) has rows too."""
    from claims import services as claim_services
    from claims.validator import Validator
    from consumers import runner
    from consumers.transports import TableTransport
    from tests.log_helpers import wait_until_readable

    for i in range(6):
        claim_services.request("coupon", f"REBUILD{i % 2}", claimant=f"cart:{i}")
    wait_until_readable()
    runner.drain(Validator(), TableTransport())


@pytest.mark.parametrize("name", NAMES)
def test_verify_after_a_clean_history_reports_no_difference(shop_log: None, name: str) -> None:
    outcome = service.rebuild(name, verify=True, batch_size=50)

    assert outcome.status == "verified"
    assert outcome.differences == []
    assert RebuildRun.objects.get(id=outcome.run_id).differences == 0


@pytest.mark.parametrize("name", NAMES)
def test_rebuild_swaps_in_a_table_equal_to_the_live_one(shop_log: None, name: str) -> None:
    projection = registry.get(name)
    before = rows(projection.TABLE, projection.KEY)

    outcome = service.rebuild(name, batch_size=50)

    assert outcome.status == "swapped"
    assert before and rows(projection.TABLE, projection.KEY) == before
    assert not shadow.exists(shadow.shadow_name(projection.TABLE))
    assert ProjectionVersion.objects.get(name=name).version == projection.VERSION
    assert service.rebuild(name, verify=True).differences == []


def test_bulk_batches_write_the_same_rows_as_single_commands(shop_log: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from projections import cart_view

    before = rows(cart_view.TABLE, cart_view.KEY)  # written one command at a time, inline
    monkeypatch.setattr(cart_view, "BULK_ROWS", 1)  # every rebuild batch takes the bulk path

    service.rebuild("cart_view", batch_size=500)

    assert rows(cart_view.TABLE, cart_view.KEY) == before


def test_the_swap_moves_an_async_consumers_checkpoint_to_the_shadows_position(shop_log: None) -> None:
    outcome = service.rebuild("test_item_counts", batch_size=50)

    assert Checkpoint.objects.get(name="test_item_counts").position == outcome.position
    shop(3, seed=8)  # live updates continue from the shadow's position, in the new table
    drain_consumers()
    assert service.rebuild("test_item_counts", verify=True).differences == []


def test_the_swap_keeps_the_live_tables_index_names(shop_log: None) -> None:
    from django.db import connection

    def index_names() -> set[str]:
        with connection.cursor() as cursor:
            constraints = connection.introspection.get_constraints(cursor, "projection_cart_view")
        return {name for name, info in constraints.items() if info["index"]}

    before = index_names()
    service.rebuild("cart_view")
    service.rebuild("cart_view")

    assert index_names() == before


def test_rebuild_projection_command_verifies_then_swaps(shop_log: None, capsys: pytest.CaptureFixture[str]) -> None:
    call_command("rebuild_projection", "cart_view", "--verify", "--no-progress")
    assert "cart_view: 0 row(s) differ" in capsys.readouterr().out

    call_command("rebuild_projection", "cart_view", "--no-progress", "--batch-size", "30")
    assert "swapped in" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [("--batch-size", "-5", "must be at least 1"), ("--batch-size", "0", "must be at least 1"),
     ("--pause", "-1", "must be at least 0"), ("--pause", "soon", "'soon' is not a float")],
)  # fmt: skip
def test_a_wrong_number_is_a_usage_error_and_starts_no_run(db: None, option: str, value: str, said: str) -> None:
    # These were tracebacks: a negative LIMIT from the database, sleep() refusing after one batch.
    # (From a shell it is argparse's usage message and exit status 2; call_command raises it.)
    with pytest.raises(CommandError, match=f"argument {option}: {said}"):
        call_command("rebuild_projection", "cart_view", option, value, "--no-progress")
    assert not RebuildRun.objects.exists()


def test_ctrl_c_says_how_to_resume_instead_of_a_traceback(db: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(service, "rebuild", interrupted)
    with pytest.raises(CommandError, match="run the same command again to resume cart_view") as stopped:
        call_command("rebuild_projection", "cart_view", "--no-progress")
    assert stopped.value.returncode == 130


def test_two_copies_of_a_table_with_indexes_can_exist_at_once(db: None) -> None:
    # The fault lab keeps a mirror of each async view while a rebuild makes its shadow: on SQLite,
    # whose index names are one namespace for the whole database, the copies' indexes must not collide.
    try:
        shadow.create("projection_order_history", "copy_one")
        shadow.create("projection_order_history", "copy_two")
        assert shadow.exists("copy_one") and shadow.exists("copy_two")
    finally:
        shadow.drop("copy_one")
        shadow.drop("copy_two")
