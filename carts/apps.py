from django.apps import AppConfig


class CartsConfig(AppConfig):
    name = "carts"
