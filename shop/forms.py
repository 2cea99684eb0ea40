"""The shop's forms. They check only the shape of the input (a whole number, a
non-empty name); the cart's rules (1 to 99, active products) stay in the decider,
so the shop and the API refuse the same things with the same words.
"""

from django import forms

from carts.decider import MAX_LINE_QUANTITY


def _quantity_field(low: int) -> forms.IntegerField:
    return forms.IntegerField(
        label="Quantity",
        error_messages={"invalid": "Enter a whole number.", "required": "Enter a quantity."},
        widget=forms.NumberInput(attrs={"min": low, "max": MAX_LINE_QUANTITY, "class": "qty", "inputmode": "numeric"}),
    )


class AddToCartForm(forms.Form):
    quantity = _quantity_field(low=1)


class CartLineForm(forms.Form):
    """Update or remove one line; `version` is the cart version the shopper saw."""

    quantity = _quantity_field(low=0)
    cart_id = forms.CharField(widget=forms.HiddenInput)
    version = forms.IntegerField(widget=forms.HiddenInput)


class CartVersionForm(forms.Form):
    cart_id = forms.CharField(widget=forms.HiddenInput)
    version = forms.IntegerField(widget=forms.HiddenInput)


class CheckoutForm(CartVersionForm):
    coupon = forms.CharField(label="Coupon code (optional)", required=False, max_length=40)


class SignUpForm(forms.Form):
    username = forms.CharField(
        label="Username", max_length=150, widget=forms.TextInput(attrs={"autocomplete": "username"})
    )
    password = forms.CharField(
        label="Password", widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}), strip=False
    )
