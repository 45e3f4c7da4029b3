"""`entctl dev`: the local signing CA and the data it signs, checked with Apple's own app-store-server-library.

Offline: no server. Every token entctl prints must pass Apple's SignedDataVerifier once its root is trusted, and
fail against the root of another CA.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import pytest
from appstoreserverlibrary.models.AutoRenewStatus import AutoRenewStatus
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.InAppOwnershipType import InAppOwnershipType
from appstoreserverlibrary.models.NotificationTypeV2 import NotificationTypeV2
from appstoreserverlibrary.models.Subtype import Subtype
from appstoreserverlibrary.models.Type import Type
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException, VerificationStatus
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from conftest import REPO_ROOT
from entctl_support import entctl, entctl_ok

BUNDLE_ID = "com.example.entitlementd"
DAY_MS = 86_400_000
CA_FILES = ["intermediate.pem", "leaf-key.pem", "leaf.pem", "root.pem"]


def now_ms() -> int:
    return int(time.time() * 1000)


class LocalCA:
    """A CA made by `entctl dev init --dir`, and entctl signing with it."""

    def __init__(self, directory: Path):
        self.dir = directory
        self.created = json.loads(entctl_ok("--json", "dev", "init", "--dir", str(directory)))

    @property
    def root_der(self) -> bytes:
        return x509.load_pem_x509_certificate((self.dir / "root.pem").read_bytes()).public_bytes(Encoding.DER)

    def sign(self, command: str, *args: str) -> str:
        lines = entctl_ok("--json", "dev", command, "--dir", str(self.dir), *args).splitlines()
        assert len(lines) == 1, lines
        token = json.loads(lines[0])["token"]
        assert re.fullmatch(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+", token), token
        return token

    def transaction(self, *args: str) -> str:
        return self.sign("sign-transaction", "--bundle-id", BUNDLE_ID, *args)

    def verifier(self, environment=Environment.SANDBOX, bundle_id=BUNDLE_ID, app_apple_id=None) -> SignedDataVerifier:
        return SignedDataVerifier(
            root_certificates=[self.root_der], enable_online_checks=False, environment=environment,
            bundle_id=bundle_id, app_apple_id=app_apple_id,
        )


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> LocalCA:
    return LocalCA(tmp_path_factory.mktemp("dev-ca") / "ca")


@pytest.fixture(scope="module")
def other_ca(tmp_path_factory) -> LocalCA:
    return LocalCA(tmp_path_factory.mktemp("other-dev-ca") / "ca")


def rfc3339(milliseconds: int) -> str:
    return datetime.fromtimestamp(milliseconds / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# --------------------------------------------------------------------------------------------------
# init


def test_init_creates_the_ca_files(tmp_path):
    directory = tmp_path / "ca"
    created = json.loads(entctl_ok("--json", "dev", "init", "--dir", str(directory)))
    assert sorted(os.listdir(directory)) == CA_FILES
    assert created["dir"] == str(directory.resolve())
    for key, name in [("root", "root.pem"), ("intermediate", "intermediate.pem"), ("leaf", "leaf.pem"),
                      ("leafKey", "leaf-key.pem")]:
        assert created[key] == str(directory.resolve() / name)
    assert (directory / "leaf-key.pem").stat().st_mode & 0o777 == 0o600
    assert datetime.fromisoformat(created["validUntil"]) > datetime.now(timezone.utc)
    root = x509.load_pem_x509_certificate((directory / "root.pem").read_bytes())
    intermediate = x509.load_pem_x509_certificate((directory / "intermediate.pem").read_bytes())
    leaf = x509.load_pem_x509_certificate((directory / "leaf.pem").read_bytes())
    intermediate.verify_directly_issued_by(root)
    leaf.verify_directly_issued_by(intermediate)
    intermediate.extensions.get_extension_for_oid(x509.ObjectIdentifier("1.2.840.113635.100.6.2.1"))
    leaf.extensions.get_extension_for_oid(x509.ObjectIdentifier("1.2.840.113635.100.6.11.1"))


def test_init_needs_a_directory_and_says_how_to_trust_it(tmp_path):
    """Without --dir there is nothing to make: signing already defaults to the demo tenant's CA."""
    refused = entctl("dev", "init", cwd=tmp_path)
    assert refused.returncode == 2, refused
    assert refused.stderr.startswith("entctl: dev init needs --dir DIR: the signing commands already default to "
                                     "Config/dev-ca")
    assert os.listdir(tmp_path) == []
    output = entctl_ok("dev", "init", "--dir", "mine", cwd=tmp_path)
    assert sorted(os.listdir(tmp_path / "mine")) == CA_FILES
    assert f"root certificate: {(tmp_path / 'mine').resolve() / 'root.pem'}" in output
    assert '"root_certificates"' in output and "kill -HUP" in output and "--dir mine" in output
    assert "never Production" in output


def test_signing_defaults_to_the_demo_tenants_ca(tmp_path):
    """From the repository root, no --dir signs with Config/dev-ca, which the demo tenant trusts; elsewhere the
    error says where it looked and what to do."""
    token = json.loads(entctl_ok("--json", "dev", "sign-transaction", "--product", "com.example.pro.monthly",
                                 "--bundle-id", "com.example.app", cwd=REPO_ROOT))["token"]
    root = x509.load_pem_x509_certificate((REPO_ROOT / "Config" / "dev-ca" / "root.pem").read_bytes())
    verifier = SignedDataVerifier([root.public_bytes(Encoding.DER)], False, Environment.SANDBOX, "com.example.app")
    assert verifier.verify_and_decode_signed_transaction(token).productId == "com.example.pro.monthly"
    elsewhere = entctl("dev", "sign-transaction", "--product", "p", "--bundle-id", "b", cwd=tmp_path)
    assert elsewhere.returncode == 1
    assert "no local signing CA in Config/dev-ca" in elsewhere.stderr and "--dir DIR" in elsewhere.stderr


def test_init_refuses_to_overwrite_without_force(tmp_path):
    directory = tmp_path / "ca"
    entctl_ok("dev", "init", "--dir", str(directory))
    before = {name: (directory / name).read_bytes() for name in CA_FILES}
    refused = entctl("dev", "init", "--dir", str(directory))
    assert refused.returncode == 1, refused
    assert refused.stdout == ""
    assert refused.stderr.startswith("entctl: ") and "--force" in refused.stderr
    assert {name: (directory / name).read_bytes() for name in CA_FILES} == before
    # One file left over from a CA is enough to refuse.
    (directory / "root.pem").unlink()
    assert entctl("dev", "init", "--dir", str(directory)).returncode == 1
    entctl_ok("dev", "init", "--dir", str(directory), "--force")
    after = {name: (directory / name).read_bytes() for name in CA_FILES}
    assert after["leaf-key.pem"] != before["leaf-key.pem"] and after["leaf.pem"] != before["leaf.pem"]


def test_signing_without_a_ca_says_how_to_make_one(tmp_path):
    result = entctl("dev", "sign-transaction", "--dir", str(tmp_path / "none"), "--product", "p", "--bundle-id", "b")
    assert result.returncode == 1
    assert "entctl dev init" in result.stderr


# --------------------------------------------------------------------------------------------------
# Transactions


def test_auto_renewable_transaction_verifies_with_apples_library(ca):
    expires = now_ms() + 7 * DAY_MS
    token = ca.transaction(
        "--product", "pro.monthly", "--expires", rfc3339(expires), "--original-transaction-id", "2000000000000042",
        "--transaction-id", "2000000000000043", "--app-account-token", "8E2F3C1A-5B7D-4E9F-A0C2-1D3B5F7A9C4E",
    )
    decoded = ca.verifier().verify_and_decode_signed_transaction(token)
    assert decoded.productId == "pro.monthly"
    assert decoded.bundleId == BUNDLE_ID
    assert decoded.type == Type.AUTO_RENEWABLE_SUBSCRIPTION
    assert decoded.expiresDate == expires // 1000 * 1000
    assert (decoded.originalTransactionId, decoded.transactionId) == ("2000000000000042", "2000000000000043")
    assert decoded.appAccountToken == "8e2f3c1a-5b7d-4e9f-a0c2-1d3b5f7a9c4e"
    assert decoded.environment == Environment.SANDBOX
    assert decoded.inAppOwnershipType == InAppOwnershipType.PURCHASED
    assert decoded.revocationDate is None
    assert abs(decoded.signedDate - now_ms()) < 60_000


def test_transaction_defaults(ca):
    before = now_ms()
    first = ca.verifier().verify_and_decode_signed_transaction(ca.transaction("--product", "pro"))
    second = ca.verifier().verify_and_decode_signed_transaction(ca.transaction("--product", "pro"))
    assert first.type == Type.AUTO_RENEWABLE_SUBSCRIPTION
    # Generated IDs: numeric like Apple's, a first purchase (transactionId = originalTransactionId), fresh each time.
    assert re.fullmatch(r"\d{16}", first.originalTransactionId)
    assert first.transactionId == first.originalTransactionId
    assert first.originalTransactionId != second.originalTransactionId
    assert before <= first.purchaseDate <= now_ms()
    assert first.expiresDate == first.purchaseDate + 30 * DAY_MS


@pytest.mark.parametrize("name, product_type", [
    ("non-consumable", Type.NON_CONSUMABLE), ("consumable", Type.CONSUMABLE),
    ("non-renewing", Type.NON_RENEWING_SUBSCRIPTION),
])
def test_other_product_types(ca, name, product_type):
    decoded = ca.verifier().verify_and_decode_signed_transaction(
        ca.transaction("--product", f"local.{name}", "--type", name))
    assert (decoded.productId, decoded.type, decoded.expiresDate) == (f"local.{name}", product_type, None)


def test_relative_dates_family_sharing_and_revocation(ca):
    before = now_ms()
    token = ca.transaction(
        "--product", "pro", "--purchase-date", "-40d", "--expires", "-10d", "--ownership", "family-shared",
        "--revocation-date", "-1h", "--signed-date", "-1h",
    )
    decoded = ca.verifier().verify_and_decode_signed_transaction(token)
    after = now_ms()
    assert before - 40 * DAY_MS <= decoded.purchaseDate <= after - 40 * DAY_MS
    assert before - 10 * DAY_MS <= decoded.expiresDate <= after - 10 * DAY_MS
    assert before - 3_600_000 <= decoded.revocationDate <= after - 3_600_000
    assert decoded.signedDate == decoded.revocationDate
    assert decoded.inAppOwnershipType == InAppOwnershipType.FAMILY_SHARED


def test_plus_span_is_from_now(ca):
    before = now_ms()
    decoded = ca.verifier().verify_and_decode_signed_transaction(ca.transaction("--product", "pro", "--expires", "+30d"))
    assert before + 30 * DAY_MS <= decoded.expiresDate <= now_ms() + 30 * DAY_MS


def test_production_transaction_fails_a_sandbox_verifier(ca):
    token = ca.transaction("--product", "pro", "--environment", "Production")
    with pytest.raises(VerificationException) as raised:
        ca.verifier().verify_and_decode_signed_transaction(token)
    assert raised.value.status == VerificationStatus.INVALID_ENVIRONMENT
    production = ca.verifier(Environment.PRODUCTION, app_apple_id=1234)
    assert production.verify_and_decode_signed_transaction(token).environment == Environment.PRODUCTION


def test_wrong_bundle_fails_apples_verifier(ca):
    token = ca.transaction("--product", "pro")
    with pytest.raises(VerificationException) as raised:
        ca.verifier(bundle_id="com.example.other").verify_and_decode_signed_transaction(token)
    assert raised.value.status == VerificationStatus.INVALID_APP_IDENTIFIER


def test_another_cas_tokens_do_not_verify_against_this_root(ca, other_ca):
    assert ca.root_der != other_ca.root_der
    foreign = [
        other_ca.transaction("--product", "pro"),
        other_ca.sign("sign-renewal-info", "--original-transaction-id", "1", "--product", "pro"),
        other_ca.sign("sign-notification", "TEST", "--bundle-id", BUNDLE_ID),
    ]
    verifier = ca.verifier()
    for token, verify in zip(foreign, [verifier.verify_and_decode_signed_transaction,
                                       verifier.verify_and_decode_renewal_info,
                                       verifier.verify_and_decode_notification]):
        with pytest.raises(VerificationException) as raised:
            verify(token)
        assert raised.value.status == VerificationStatus.VERIFICATION_FAILURE
    # Each verifies against its own root.
    other_ca.verifier().verify_and_decode_signed_transaction(foreign[0])


def test_human_output_is_the_bare_token(ca):
    lines = entctl_ok(
        "dev", "sign-transaction", "--dir", str(ca.dir), "--product", "pro", "--bundle-id", BUNDLE_ID).splitlines()
    assert len(lines) == 1
    assert ca.verifier().verify_and_decode_signed_transaction(lines[0]).productId == "pro"


# --------------------------------------------------------------------------------------------------
# Renewal info


def test_renewal_info_verifies_with_apples_library(ca):
    grace = now_ms() + 3 * DAY_MS
    token = ca.sign(
        "sign-renewal-info", "--original-transaction-id", "2000000000000042", "--product", "pro.monthly",
        "--auto-renew", "off", "--auto-renew-product", "pro.yearly", "--grace-period-expires", rfc3339(grace),
    )
    decoded = ca.verifier().verify_and_decode_renewal_info(token)
    assert (decoded.originalTransactionId, decoded.productId) == ("2000000000000042", "pro.monthly")
    assert decoded.autoRenewProductId == "pro.yearly"
    assert decoded.autoRenewStatus == AutoRenewStatus.OFF
    assert decoded.gracePeriodExpiresDate == grace // 1000 * 1000
    assert decoded.isInBillingRetryPeriod is True
    assert decoded.environment == Environment.SANDBOX


def test_renewal_info_defaults(ca):
    decoded = ca.verifier().verify_and_decode_renewal_info(
        ca.sign("sign-renewal-info", "--original-transaction-id", "7", "--product", "pro"))
    assert decoded.autoRenewStatus == AutoRenewStatus.ON
    assert decoded.autoRenewProductId == "pro"
    assert decoded.isInBillingRetryPeriod is None and decoded.gracePeriodExpiresDate is None
    billing = ca.verifier().verify_and_decode_renewal_info(
        ca.sign("sign-renewal-info", "--original-transaction-id", "7", "--product", "pro", "--billing-retry"))
    assert billing.isInBillingRetryPeriod is True and billing.gracePeriodExpiresDate is None


# --------------------------------------------------------------------------------------------------
# Notifications


def test_notification_verifies_with_apples_library(ca):
    transaction = ca.transaction("--product", "pro", "--original-transaction-id", "2000000000000042")
    renewal = ca.sign("sign-renewal-info", "--original-transaction-id", "2000000000000042", "--product", "pro",
                      "--auto-renew", "off")
    token = ca.sign("sign-notification", "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", "--bundle-id", BUNDLE_ID,
                    "--app-apple-id", "1234", "--transaction", transaction, "--renewal-info", renewal)
    verifier = ca.verifier()
    decoded = verifier.verify_and_decode_notification(token)
    assert decoded.notificationType == NotificationTypeV2.DID_CHANGE_RENEWAL_STATUS
    assert decoded.subtype == Subtype.AUTO_RENEW_DISABLED
    assert decoded.version == "2.0"
    assert str(uuid.UUID(decoded.notificationUUID)) == decoded.notificationUUID
    assert abs(decoded.signedDate - now_ms()) < 60_000
    data = decoded.data
    assert (data.bundleId, data.environment, data.appAppleId) == (BUNDLE_ID, Environment.SANDBOX, 1234)
    assert (data.signedTransactionInfo, data.signedRenewalInfo) == (transaction, renewal)
    # The nested data verifies separately.
    assert verifier.verify_and_decode_signed_transaction(data.signedTransactionInfo).originalTransactionId == \
        "2000000000000042"
    assert verifier.verify_and_decode_renewal_info(data.signedRenewalInfo).autoRenewStatus == AutoRenewStatus.OFF
    # Apple's verifier checks the notification's bundle ID.
    with pytest.raises(VerificationException) as raised:
        ca.verifier(bundle_id="com.example.other").verify_and_decode_notification(token)
    assert raised.value.status == VerificationStatus.INVALID_APP_IDENTIFIER


def test_notification_takes_bundle_and_environment_from_the_transaction(ca):
    transaction = ca.sign("sign-transaction", "--product", "pro", "--bundle-id", "com.example.prod",
                          "--environment", "Production")
    token = ca.sign("sign-notification", "did_renew", "--app-apple-id", "99", "--transaction", transaction)
    decoded = ca.verifier(Environment.PRODUCTION, "com.example.prod", 99).verify_and_decode_notification(token)
    assert decoded.notificationType == NotificationTypeV2.DID_RENEW and decoded.subtype is None
    assert (decoded.data.bundleId, decoded.data.environment) == ("com.example.prod", Environment.PRODUCTION)
    # Production notifications are checked against the app's Apple ID too.
    with pytest.raises(VerificationException) as raised:
        ca.verifier(Environment.PRODUCTION, "com.example.prod", 100).verify_and_decode_notification(token)
    assert raised.value.status == VerificationStatus.INVALID_APP_IDENTIFIER


def test_notification_ids_are_fresh(ca):
    first = ca.verifier().verify_and_decode_notification(ca.sign("sign-notification", "TEST", "--bundle-id", BUNDLE_ID))
    second = ca.verifier().verify_and_decode_notification(ca.sign("sign-notification", "TEST", "--bundle-id", BUNDLE_ID))
    assert first.notificationType == NotificationTypeV2.TEST
    assert first.data.signedTransactionInfo is None
    assert first.notificationUUID != second.notificationUUID


def test_unknown_notification_type_is_signed_after_a_warning(ca):
    result = entctl("--json", "dev", "sign-notification", "FUTURE_TYPE", "--dir", str(ca.dir), "--bundle-id", BUNDLE_ID)
    assert result.returncode == 0, result.stderr
    assert "FUTURE_TYPE" in result.stderr and "warning" in result.stderr
    decoded = ca.verifier().verify_and_decode_notification(json.loads(result.stdout)["token"])
    assert decoded.notificationType is None and decoded.rawNotificationType == "FUTURE_TYPE"


# --------------------------------------------------------------------------------------------------
# Usage errors: exit 2 before any CA is read


@pytest.mark.parametrize("args, message", [
    (["dev"], "dev needs a command"),
    (["dev", "frobnicate"], "unknown command 'dev frobnicate'"),
    (["dev", "init", "--product", "p"], "dev init does not take --product"),
    (["dev", "init", "extra"], "unexpected argument 'extra'"),
    (["dev", "sign-transaction", "--bundle-id", "b"], "dev sign-transaction needs --product"),
    (["dev", "sign-transaction", "--product", "p"], "dev sign-transaction needs --bundle-id"),
    (["dev", "sign-transaction", "--product", "", "--bundle-id", "b"], "--product must not be empty"),
    (["dev", "sign-transaction", "--product", "p", "--bundle-id", "b", "--type", "monthly"], "invalid --type 'monthly'"),
    (["dev", "sign-transaction", "--product", "p", "--bundle-id", "b", "--expires", "tomorrow"], "invalid --expires"),
    (["dev", "sign-transaction", "--product", "p", "--bundle-id", "b", "--expires", "+3x"], "invalid --expires"),
    (["dev", "sign-transaction", "--product", "p", "--bundle-id", "b", "--type", "consumable", "--expires", "+1d"],
     "--expires applies only to subscriptions"),
    (["dev", "sign-transaction", "--product", "p", "--bundle-id", "b", "--app-account-token", "not-a-uuid"],
     "invalid --app-account-token"),
    (["dev", "sign-transaction", "--product", "p", "--bundle-id", "b", "--environment", "Staging"],
     "invalid --environment 'Staging'"),
    (["dev", "sign-transaction", "--product", "p", "--bundle-id", "b", "--ownership", "shared"], "invalid --ownership"),
    (["dev", "sign-transaction", "--product", "p", "--bundle-id", "b", "--auto-renew", "on"],
     "dev sign-transaction does not take --auto-renew"),
    (["dev", "sign-renewal-info", "--product", "p"], "needs --original-transaction-id"),
    (["dev", "sign-renewal-info", "--original-transaction-id", "1", "--product", "p", "--auto-renew", "maybe"],
     "invalid --auto-renew 'maybe'"),
    (["dev", "sign-notification", "--bundle-id", "b"], "dev sign-notification needs TYPE"),
    (["dev", "sign-notification", "DID_RENEW"], "needs --bundle-id"),
    (["dev", "sign-notification", "DID-RENEW", "--bundle-id", "b"], "invalid TYPE 'DID-RENEW'"),
    (["dev", "sign-notification", "DID_RENEW", "A", "B", "--bundle-id", "b"], "unexpected argument 'B'"),
    (["dev", "sign-notification", "DID_RENEW", "--bundle-id", "b", "--transaction", "abc"], "invalid --transaction"),
    (["dev", "sign-notification", "DID_RENEW", "--bundle-id", "b", "--app-apple-id", "0"], "invalid --app-apple-id"),
    (["dev", "sign-notification", "DID_RENEW", "--bundle-id", "b", "--billing-retry"], "does not take --billing-retry"),
])
def test_bad_options_exit_2(tmp_path, args, message):
    result = entctl(*args, "--dir", str(tmp_path / "no-ca-here"))
    assert result.returncode == 2, result
    assert message in result.stderr
    assert "usage: entctl" in result.stderr
    assert result.stdout == ""
    assert not (tmp_path / "no-ca-here").exists()
