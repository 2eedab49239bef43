"""Prefect's clients share one verified TLS context (mathprobe/flows/_prefect_engine.py): each
client used to build its own from certifi's bundle (44 ms of CPU, four to six times before a
run's first request). What a user relies on is unchanged: a Prefect API over https is still
verified against the CA file Prefect reads, and PREFECT_API_TLS_INSECURE_SKIP_VERIFY still turns
verification off, for that client only."""
from __future__ import annotations

import ssl

import pytest

pytestmark = pytest.mark.timeout(60)

API = "https://prefect.example.invalid/api"     # never connected to: the client is only made


def tls_context(client) -> ssl.SSLContext:
    return client._client._transport._pool._ssl_context


def test_prefect_clients_share_one_verified_context():
    import certifi
    from prefect.client.orchestration import PrefectClient, SyncPrefectClient
    from prefect.settings import PREFECT_API_SSL_CERT_FILE

    from mathprobe.flows import _prefect_engine

    contexts = [tls_context(PrefectClient(API)), tls_context(SyncPrefectClient(API)),
                tls_context(PrefectClient(API))]
    assert contexts[0] is contexts[1] is contexts[2]          # made once, not per client
    cafile = PREFECT_API_SSL_CERT_FILE.value() or certifi.where()     # the one Prefect reads
    assert contexts[0] is _prefect_engine.verified_context(cafile)
    ctx = contexts[0]
    assert ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname
    assert ctx.cert_store_stats() == ssl.create_default_context(cafile=cafile).cert_store_stats()
    assert ctx.cert_store_stats()["x509_ca"] > 100            # the whole bundle is loaded


def test_skipping_verification_still_gives_that_client_an_unverified_context_of_its_own():
    from prefect.client.orchestration import PrefectClient
    from prefect.settings import PREFECT_API_TLS_INSECURE_SKIP_VERIFY, temporary_settings

    import mathprobe.flows._prefect_engine  # noqa: F401

    verified = tls_context(PrefectClient(API))
    with temporary_settings({PREFECT_API_TLS_INSECURE_SKIP_VERIFY: True}):
        insecure = tls_context(PrefectClient(API))
    assert insecure is not verified
    assert insecure.verify_mode == ssl.CERT_NONE and not insecure.check_hostname
    after = tls_context(PrefectClient(API))
    assert after is verified and after.verify_mode == ssl.CERT_REQUIRED and after.check_hostname


def test_a_ca_file_prefect_is_told_to_read_gets_a_context_of_its_own(tmp_path):
    import certifi
    from prefect.client.orchestration import PrefectClient
    from prefect.settings import PREFECT_API_SSL_CERT_FILE, temporary_settings

    import mathprobe.flows._prefect_engine  # noqa: F401

    bundle = tmp_path / "ca.pem"
    pem = open(certifi.where()).read()
    bundle.write_text(pem[:pem.index("-----END CERTIFICATE-----") + 26])   # one CA only
    with temporary_settings({PREFECT_API_SSL_CERT_FILE: str(bundle)}):
        own = tls_context(PrefectClient(API))
    assert own is not tls_context(PrefectClient(API))
    assert own.cert_store_stats()["x509_ca"] == 1
