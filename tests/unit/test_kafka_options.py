"""librdkafka options from the environment (relay/config.py): KAFKA_ + the name, dots as underscores."""

import pytest

from relay import config


def test_every_kafka_variable_becomes_the_librdkafka_option_of_that_name() -> None:
    environ = {
        "KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
        "KAFKA_SASL_MECHANISM": "SCRAM-SHA-512",
        "KAFKA_SASL_USERNAME": "cartlog",
        "KAFKA_SSL_CA_LOCATION": "/etc/ssl/ca.pem",
        "PATH": "/usr/bin",
    }
    assert config.options_from_environment(environ) == {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": "cartlog",
        "ssl.ca.location": "/etc/ssl/ca.pem",
    }


def test_cartlogs_own_kafka_settings_and_empty_values_are_not_options() -> None:
    environ = {name: "3" for name in config.OWN_SETTINGS} | {"KAFKA_CLIENT_ID": ""}
    assert config.options_from_environment(environ) == {}


@pytest.fixture
def secured(monkeypatch: pytest.MonkeyPatch, settings) -> None:  # type: ignore[no-untyped-def]
    settings.KAFKA_BOOTSTRAP_SERVERS = "broker:9093"
    for name, value in {
        "KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
        "KAFKA_SESSION_TIMEOUT_MS": "45000",
        "KAFKA_ENABLE_AUTO_COMMIT": "true",
        "KAFKA_ACKS": "1",
        "KAFKA_GROUP_ID": "theirs",
    }.items():
        monkeypatch.setenv(name, value)


@pytest.mark.usefixtures("secured")
def test_the_options_reach_producer_consumer_and_admin_and_win_over_defaults_but_not_guarantees() -> None:
    producer, consumer, admin = config.producer(), config.consumer("cartlog-x"), config.common()
    for client in (producer, consumer, admin):
        assert client["security.protocol"] == "SASL_SSL"
        assert client["bootstrap.servers"] == "broker:9093"
    assert consumer["session.timeout.ms"] == "45000"  # the operator's value over cartlog's default
    assert (consumer["group.id"], consumer["enable.auto.commit"]) == ("cartlog-x", False)
    assert (producer["acks"], producer["enable.idempotence"]) == ("all", True)
