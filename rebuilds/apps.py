from django.apps import AppConfig


class RebuildsConfig(AppConfig):
    name = "rebuilds"
