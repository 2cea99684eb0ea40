from django.urls import path

from . import views

urlpatterns = [path("claims/<str:claim_id>", views.ClaimView.as_view(), name="claim")]
