from django.apps import AppConfig


class InventoryConfig(AppConfig):
    name = "inventory"
