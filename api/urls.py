"""Every REST route, in one list: the web layer's table of contents.

Each command has its own view (`AddToCartView` runs AddToCart); a URL that
takes two commands by method combines their views (`CartLineView`).
"""

from django.urls import URLPattern, URLResolver, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from . import (
    accounts,
    analytics,
    carts,
    catalog,
    category_activity,
    claims,
    orders,
    problem_types,
    problems,
    projections,
)

urlpatterns: list[URLPattern | URLResolver] = [
    # First: the cart routes take nearly every request, and Django tries the patterns in order.
    path("carts", carts.StartCartView.as_view(), name="carts"),
    path("carts/<str:cart_id>", carts.GetCartView.as_view(), name="cart"),
    path("carts/<str:cart_id>/events", carts.CartEventsView.as_view(), name="cart-events"),
    path("carts/<str:cart_id>/items", carts.AddToCartView.as_view(), name="cart-items"),
    path("carts/<str:cart_id>/items/<str:sku>", carts.CartLineView.as_view(), name="cart-item"),
    path("carts/<str:cart_id>/checkout", carts.CheckoutView.as_view(), name="cart-checkout"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file (?script), not inline: the
    # Content-Security-Policy (docs/security.md) runs scripts from the site's own URLs only.
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
    path("accounts", accounts.AccountsView.as_view(), name="accounts"),
    path("accounts/me", accounts.AccountMeView.as_view(), name="account-me"),
    path("auth/token", accounts.TokenView.as_view(), name="auth-token"),
    path("products", catalog.ProductsView.as_view(), name="products"),
    path("products/<str:sku>", catalog.ProductView.as_view(), name="product"),
    path("orders", orders.OrdersView.as_view(), name="orders"),
    path("projections", projections.ProjectionsView.as_view(), name="projections"),
    path("claims/<str:claim_id>", claims.ClaimView.as_view(), name="claim"),
    path("analytics/summary", analytics.SummaryView.as_view(), name="analytics-summary"),
    path("analytics/funnel", analytics.FunnelView.as_view(), name="analytics-funnel"),
    path("analytics/revenue", analytics.RevenueView.as_view(), name="analytics-revenue"),
    path("analytics/products", analytics.TopProductsView.as_view(), name="analytics-products"),
    path("analytics/checkout-time", analytics.CheckoutTimeView.as_view(), name="analytics-checkout-time"),
    path("analytics/hourly", analytics.HourlyView.as_view(), name="analytics-hourly"),
    path("analytics/sessions", analytics.SessionsView.as_view(), name="analytics-sessions"),
    path("analytics/abandoned", analytics.AbandonedView.as_view(), name="analytics-abandoned"),
    path("analytics/recommendations", analytics.RecommendationsView.as_view(), name="analytics-recommendations"),
    path(
        "analytics/category-activity",
        category_activity.CategoryActivityView.as_view(),
        name="analytics-category-activity",
    ),
    path("problems/", problem_types.index, name="problem-types"),
    path("problems/<slug:slug>", problem_types.problem_type, name="problem-type"),
    # Last: any other path under /api/ is a problem document even with DEBUG on,
    # where Django would otherwise answer with its HTML debug page.
    re_path(r"^.*$", problems.not_found),
]
