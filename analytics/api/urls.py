from django.urls import URLPattern, URLResolver, path

from . import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("analytics/summary", views.SummaryView.as_view(), name="analytics-summary"),
    path("analytics/funnel", views.FunnelView.as_view(), name="analytics-funnel"),
    path("analytics/revenue", views.RevenueView.as_view(), name="analytics-revenue"),
    path("analytics/products", views.TopProductsView.as_view(), name="analytics-products"),
    path("analytics/checkout-time", views.CheckoutTimeView.as_view(), name="analytics-checkout-time"),
    path("analytics/hourly", views.HourlyView.as_view(), name="analytics-hourly"),
    path("analytics/sessions", views.SessionsView.as_view(), name="analytics-sessions"),
    path("analytics/recommendations", views.RecommendationsView.as_view(), name="analytics-recommendations"),
]
