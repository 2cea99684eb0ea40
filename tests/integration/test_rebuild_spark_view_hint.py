"""`rebuild_projection analytics_...`: an operator who fixed a Spark job and asks for a rebuild of its view
is told the Spark views are not projections and what recomputes them."""

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db


def test_a_spark_view_name_is_refused_with_the_command_that_recomputes_it() -> None:
    with pytest.raises(CommandError) as refused:
        call_command("rebuild_projection", "analytics_productstats", "--no-progress")

    message = str(refused.value)
    assert message.startswith("unknown projection 'analytics_productstats'; known: cart_view, ")
    assert message.endswith(
        "; analytics_productstats looks like a Spark view (analytics_*): those are not projections, every "
        "`python manage.py run_spark_jobs` recomputes them all from the whole archive, so run that"
    )


def test_another_unknown_name_gets_no_spark_hint() -> None:
    with pytest.raises(CommandError) as refused:
        call_command("rebuild_projection", "cart_veiw", "--no-progress")

    assert "Spark" not in str(refused.value)
    assert str(refused.value).startswith("unknown projection 'cart_veiw'; known: cart_view, ")
