from django.apps import AppConfig


class OpsConfig(AppConfig):
    """After `cartlog` in INSTALLED_APPS: it meters the command handler that cartlog.bootstrap installed."""

    name = "ops"

    def ready(self) -> None:
        from . import metrics

        metrics.meter_installed_handler()
