"""Sign-up, token login and token revocation, and forget me. Sign-up and login are
throttled per client address, and login per account name after too many wrong passwords
(accounts/throttles.py): 429 with Retry-After."""

from django.contrib.auth import logout
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts import forgetting, services, tokens
from accounts.authentication import TokenAuthentication
from accounts.throttles import LoginThrottle, SignUpThrottle
from api import examples as ex
from api.problems import PROBLEM_JSON
from api.problems import problem as problem_body
from api.schema import location_header, problem


class CredentialsInput(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False)


class AccountOutput(serializers.Serializer):
    username = serializers.CharField()


class PendingOutput(serializers.Serializer):
    claim_id = serializers.CharField()
    status = serializers.CharField()


class TokenOutput(serializers.Serializer):
    token = serializers.CharField()


TOO_MANY = problem("Too many attempts from this address; retry after Retry-After seconds")


class AccountsView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []
    throttle_classes = [SignUpThrottle]

    @extend_schema(
        operation_id="sign_up",
        summary="Create an account by claiming its username",
        description="Claims the username in log order (docs/claims.md) and creates the account once the claim is "
        "accepted. If the validator has not answered within CLAIM_WAIT_SECONDS the answer is 202 with "
        "the claim to poll. Usernames are unique whatever their case; passwords go through Django's "
        "password validators; a refusal lists every refused field in `errors` at once. Throttled per client address.",
        examples=ex.SIGN_UP,
        request=CredentialsInput,
        parameters=[location_header(202, "The claim to poll: GET it until it is decided")],
        responses={
            201: AccountOutput,
            202: OpenApiResponse(PendingOutput, description="Not decided yet; poll the Location"),
            400: problem("Invalid username or password"),
            409: problem("Username taken"),
            429: TOO_MANY,
        },
    )
    def post(self, request: Request) -> Response:
        serializer = CredentialsInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = services.sign_up(serializer.validated_data["username"], serializer.validated_data["password"])
        if result.status is services.SignUpStatus.CREATED and result.user is not None:
            return Response({"username": result.user.get_username()}, status=201)
        if result.status is services.SignUpStatus.PENDING:
            location = f"/api/claims/{result.claim_id}"
            body = {"claim_id": result.claim_id, "status": "pending"}
            return Response(body, status=202, headers={"Location": location})
        return Response(problem_body(409, "Username taken", result.detail), status=409, content_type=PROBLEM_JSON)


class TokenView(APIView):
    authentication_classes = [TokenAuthentication]

    def get_permissions(self) -> list[BasePermission]:
        # Anyone may log in; only a token's holder may revoke it.
        return [AllowAny()] if self.request.method == "POST" else [IsAuthenticated()]

    def get_throttles(self) -> list[BaseThrottle]:
        return [LoginThrottle()] if self.request.method == "POST" else []

    def perform_authentication(self, request: Request) -> None:
        if request.method != "POST":  # a stale token sent along with a login must not refuse the login
            super().perform_authentication(request)

    @extend_schema(
        operation_id="login_token",
        summary="Log in: exchange a username and password for an API token (it expires; see docs/security.md)",
        description="Exchanges a username and password for an API token; send it as `Authorization: Token <key>`. "
        "Tokens expire (docs/security.md). Throttled per client address, and per account name after "
        "too many wrong passwords (429 with Retry-After, even for the right one).",
        examples=ex.LOGIN_TOKEN,
        request=CredentialsInput,
        responses={200: TokenOutput, 400: problem("Wrong username or password"), 429: TOO_MANY},
    )
    def post(self, request: Request) -> Response:
        serializer = CredentialsInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        token = tokens.issue_token(request._request, **serializer.validated_data)
        if token is None:
            body = problem_body(400, "Invalid credentials", "The username or password is wrong.")
            return Response(body, status=400, content_type=PROBLEM_JSON)
        # RFC 6749 5.1's rule for a token answer: no cache, shared or the browser's, may keep it.
        return Response({"token": token}, headers={"Cache-Control": "no-store"})

    @extend_schema(
        operation_id="logout_token",
        summary="Log out: revoke the token this request carries",
        description="Revokes the token this request carries; other tokens of the account stay valid.",
        examples=ex.LOGOUT_TOKEN,
        request=None,
        responses={204: None, 401: problem("No valid token")},
    )
    def delete(self, request: Request) -> Response:
        tokens.revoke(request.auth)
        return Response(status=204)


class AccountMeView(APIView):
    # A token, or the browser's session (with its CSRF token) like every other endpoint: a signed-in
    # shopper asking to be forgotten got 401 "credentials were not provided".
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="forget_me",
        summary="Forget me: erase your personal data, close the account, revoke its tokens",
        description="Destroys your data key, so the shipping details of every order you placed read `[erased]` "
        "wherever they are shown; appends PersonForgotten to `person-user:<id>`; deactivates the account and "
        "revokes all its tokens. The orders themselves (lines, totals) stay. Cannot be undone "
        "(docs/personal-data.md).",
        examples=ex.FORGET_ME,
        request=None,
        responses={
            204: None,
            401: problem("No valid token or session"),
            403: problem("A session request without its CSRF token"),
        },
    )
    def delete(self, request: Request) -> Response:
        forgetting.forget_account(request.user)  # type: ignore[arg-type]
        if request.auth is None:  # signed in by session: end it, as the shop's Forget me does
            logout(request._request)
        return Response(status=204)
