from django.apps import AppConfig


class CartlogConfig(AppConfig):
    """The project itself as the last app: it wires the others when Django starts."""

    name = "cartlog"

    def ready(self) -> None:
        from . import bootstrap

        bootstrap.start()
