from kernel.principal import Principal, PrincipalKind


def test_each_kind_is_stored_as_kind_colon_id() -> None:
    assert str(Principal.user(42)) == "user:42"
    assert str(Principal.visitor("tok")) == "anon:tok"
    assert str(Principal.cart("c-1")) == "cart:c-1"
    assert str(Principal.signup("s-1")) == "signup:s-1"


def test_a_process_is_stored_by_its_bare_name() -> None:
    assert str(Principal.process("account-creator")) == "account-creator"


def test_parsing_gives_back_what_was_stored() -> None:
    assert Principal.parse("user:42") == Principal(PrincipalKind.USER, "42")
    assert Principal.parse("anon:a:b") == Principal(PrincipalKind.VISITOR, "a:b")
    assert Principal.parse("account-creator") == Principal(PrincipalKind.PROCESS, "account-creator")
    assert Principal.parse("writer:3") == Principal(PrincipalKind.PROCESS, "writer:3")
