from django.urls import URLPattern, URLResolver

app_name = "shop"
urlpatterns: list[URLPattern | URLResolver] = []
