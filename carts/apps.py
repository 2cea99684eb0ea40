from django.apps import AppConfig


class CartsConfig(AppConfig):
    name = "carts"

    def ready(self) -> None:
        from cartlog import bootstrap

        bootstrap.register_event_types()
