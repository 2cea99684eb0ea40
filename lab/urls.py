from django.urls import path

from . import views

app_name = "lab"
urlpatterns = [
    path("", views.lab_page, name="page"),
    path("panel/", views.panel, name="panel"),
    path("guide/", views.guide, name="guide"),
    path("<str:name>/", views.flip, name="flip"),
]
