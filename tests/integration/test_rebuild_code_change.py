"""A `--verify` made before a fix is not resumed by the one after it, when the fix keeps VERSION.

docs/rebuilding.md's worked example deploys a fix without bumping cart_view's
VERSION. An operator who had run `--verify` while the bug was live (to see
whether the view was right: "0 row(s) differ") left a shadow the buggy code
built; the `--verify` after the fix resumed it, compared the bug's rows with
the bug's rows and said "0 row(s) differ", and the rebuild swapped them in.
A run now keeps a digest of the source it folds with (rebuilds.fingerprint)
and is resumed only by the same code. The deploy is simulated twice over: the
bug is patched in and out, and the digest says "before" then "after".
"""

import json
from pathlib import Path
from typing import Any

import pytest

from projections import cart_view
from rebuilds import fingerprint, runs, service
from rebuilds.models import RebuildRun

from .rebuild_support import rows, shop
from .test_rebuild_worked_example import touched_by_the_bug, values_counting_lines

pytestmark = pytest.mark.django_db(transaction=True)


def deployed(monkeypatch: pytest.MonkeyPatch, code: str) -> None:
    monkeypatch.setattr(runs, "fingerprint", lambda: code)


def test_a_verify_made_by_the_buggy_code_is_not_resumed_after_the_fix(
    seeded_catalog: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The shop runs with the bug; the operator verifies: the bug's view equals the bug's rebuild.
    deployed(monkeypatch, "before")
    with monkeypatch.context() as bug:
        bug.setattr(cart_view, "_values", values_counting_lines)
        cart_ids = shop(40, seed=31)
        before = service.rebuild("cart_view", verify=True)
    assert before.differences == []
    expected = touched_by_the_bug(cart_ids)
    assert expected

    # The fix is deployed (same VERSION): --verify shows the rows it changes, from a fresh run.
    deployed(monkeypatch, "after")
    after = service.rebuild("cart_view", verify=True)

    # Before the fix: the same run resumed, 0 row(s) differ.
    assert after.run_id != before.run_id
    assert {d.key for d in after.differences} == expected
    assert RebuildRun.objects.get(id=before.run_id).status == "abandoned"
    assert service.rebuild("cart_view").run_id == after.run_id  # the same code resumes its own run
    swapped = rows(cart_view.TABLE, cart_view.KEY)
    for cart_id in expected:  # the fixed count: units, not lines
        assert swapped[cart_id]["item_count"] == sum(line["quantity"] for line in json.loads(swapped[cart_id]["lines"]))


def test_the_digest_changes_with_a_fold_outside_the_projection_and_not_with_tests(
    tmp_path: Path, settings: Any
) -> None:
    # cart_view folds with carts/decider.py: a fix there (the real one of 2026-11-28) changes the digest.
    (tmp_path / "carts").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "carts" / "decider.py").write_text("PRICE = 'first add'\n")
    (tmp_path / "tests" / "test_x.py").write_text("")
    settings.BASE_DIR = tmp_path
    digest = fingerprint.digest.__wrapped__
    before = digest()
    (tmp_path / "tests" / "test_x.py").write_text("assert True\n")
    assert digest() == before
    (tmp_path / "carts" / "decider.py").write_text("PRICE = 'latest add'\n")
    assert digest() != before
