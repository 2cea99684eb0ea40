"""Browsing: the catalog home (categories, search) and a product page with "Add to cart"."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from carts import services
from catalog.models import Product

from .. import queries
from ..forms import AddToCartForm
from ..methods import get_only, post_only
from ..sending import Refusal, attempt, context, ensure_cart


@get_only
def home(request: HttpRequest) -> HttpResponse:
    search = request.GET.get("q", "").strip()[:100]
    category = request.GET.get("category", "").strip()[:80]
    page = {
        "products": queries.products(search, category),
        "categories": queries.categories(),
        "search": search,
        "category": category,
    }
    return render(request, "shop/home.html", page)


@get_only
def product(request: HttpRequest, sku: str) -> HttpResponse:
    return _product_page(request, get_object_or_404(Product, sku=sku), AddToCartForm(initial={"quantity": 1}))


@post_only
def add(request: HttpRequest, sku: str) -> HttpResponse:
    item = get_object_or_404(Product, sku=sku)
    form = AddToCartForm(request.POST)
    if not form.is_valid():
        return _product_page(request, item, form, status=400)
    quantity = form.cleaned_data["quantity"]
    outcome = attempt(lambda: services.add_to_cart(context(request), ensure_cart(request), sku, quantity))
    if isinstance(outcome, Refusal):
        form.add_error("quantity" if outcome.field == "quantity" else None, outcome.message)
        return _product_page(request, item, form, status=400)
    messages.success(request, f"Added {quantity} x {item.name} to your cart.")
    return redirect("shop:product", sku=sku)


def _product_page(request: HttpRequest, item: Product, form: AddToCartForm, status: int = 200) -> HttpResponse:
    page = {"product": queries.with_stock([item])[0], "form": form, "also_bought": queries.also_bought(item.sku)}
    return render(request, "shop/product.html", page, status=status)
