#!/usr/bin/env python3
"""Cross-checks the hand-written Swift codecs of EntitlementsProto against protoc-generated classes.

Driven by Tests/EntitlementsProtoTests/PythonInteropTests.swift, which first runs
`python -m grpc_tools.protoc -I Protos --python_out=<generated_dir> Protos/entitlements/v1/*.proto`.

    roundtrip.py emit  <generated_dir>
        Prints {"messages": [every message name in the protos], "cases": {case: hex}}: each case
        serialized by Python *with* unknown fields appended (at the top level and in nested
        messages).
    roundtrip.py emit-json <generated_dir>
        Prints {"cases": {case: {"type", "binary", "json"}}}: each case without unknown fields, its bytes in hex and
        google.protobuf.json_format's JSON of it.
    roundtrip.py check-json <generated_dir> <input.json>
        input.json is {case: {"json", "jsonWithDefaults", "binary"}}: ProtoJSON's JSON of the case's bytes (must be
        json_format's, and parse back to the case), the same with every field without presence written (must be
        json_format's with always_print_fields_with_no_presence), and its bytes of json_format's JSON (must be the
        case's). Prints {"failures": ...}.
    roundtrip.py check <generated_dir> <input.json>
        input.json is {"reencoded": {case: hex}, "swift": {case: hex}}: Swift's re-encoding of
        the emitted bytes (must equal the case with unknown fields) and Swift's own encoding of
        the case (must equal the case without unknown fields). Prints {"failures": {key: why}}.

The fixtures below mirror Fixtures.swift value for value; change both together.
"""

import json
import sys

# Unknown fields 1999 (varint 7), 2000 (bytes "abc") and 2001 (fixed32): numbers no message uses.
UNKNOWN = bytes.fromhex("f87c07" "827d03616263" "8d7d01020304")


def load(generated_dir):
    sys.path.insert(0, generated_dir)
    global st, es, ad, Timestamp, Duration, text_format, DecodeError, json_format
    from entitlements.v1 import admin_service_pb2 as ad
    from entitlements.v1 import entitlement_service_pb2 as es
    from entitlements.v1 import status_pb2 as st
    from google.protobuf import json_format, text_format
    from google.protobuf.duration_pb2 import Duration
    from google.protobuf.message import DecodeError
    from google.protobuf.timestamp_pb2 import Timestamp


def unk(message, u):
    if u:
        message.MergeFromString(UNKNOWN)
    return message


def ts(seconds, nanos, u):
    return unk(Timestamp(seconds=seconds, nanos=nanos), u)


def active_entitlement(u, i):
    m = st.ActiveEntitlement(id=f"pro-{i}", source=st.APP_STORE if i == 0 else 99,
                             product_id=f"com.example.pro.{i}", will_renew=True,
                             in_grace_period=True, in_billing_retry=True)
    m.expires_at.CopyFrom(ts(1_700_000_000 + i, 250_000_000, u))
    return unk(m, u)


def subscription_status(u, state=None):
    m = st.SubscriptionStatus(state=st.SubscriptionStatus.ACTIVE if state is None else state)
    for i in range(2):
        m.entitlements.add().CopyFrom(active_entitlement(u, i))
    return unk(m, u)


def customer_status(u):
    m = st.CustomerStatus(app_user_id="user-1", version=42, signed_status="eyJhbGciOiJFUzI1NiJ9.e30.c2ln")
    m.status.CopyFrom(subscription_status(u))
    m.server_time.CopyFrom(ts(1_700_000_100, 5, u))
    return unk(m, u)


def customer_status_extremes(u):
    m = st.CustomerStatus(app_user_id="ユーザー✓", version=2**64 - 1)
    m.status.CopyFrom(unk(st.SubscriptionStatus(state=st.SubscriptionStatus.INACTIVE), u))
    m.server_time.CopyFrom(ts(-62_135_596_800, 999_999_999, u))
    return unk(m, u)


def status_event(u, kind=None):
    m = st.StatusEvent(kind=st.StatusEvent.STATUS_CHANGED if kind is None else kind, reason="app store renewal")
    m.customer.CopyFrom(customer_status(u))
    return unk(m, u)


def app_store_purchase(u, i=0):
    return unk(es.AppStorePurchase(signed_transaction=f"eyJhbGciOiJFUzI1NiJ9.payload-{i}.signature",
                                   transaction_id=f"200000000{i}"), u)


def play_store_purchase(u, i=0):
    return unk(es.PlayStorePurchase(product_id=f"pro_monthly_{i}", purchase_token=f"token-{i}"), u)


def with_customer(cls, u, **fields):
    m = cls(**fields)
    m.customer.CopyFrom(customer_status(u))
    return unk(m, u)


def identify_response_empty_customer(u):
    m = es.IdentifyResponse()
    m.customer.SetInParent()
    return unk(m, u)


def purchase_request(u, case):
    m = es.PurchaseRequest(app_user_id="user-1")
    if case == "app_store":
        m.app_store.CopyFrom(app_store_purchase(u))
    elif case == "play_store":
        m.play_store.CopyFrom(play_store_purchase(u))
    elif case == "web_redemption":
        m.web_redemption.CopyFrom(unk(es.WebRedemption(code="rc_abc"), u))
    else:
        m.app_store.SetInParent()
    return unk(m, u)


def restore_request(u):
    m = es.RestoreRequest(app_user_id="user-1")
    for i in range(2):
        m.app_store.add().CopyFrom(app_store_purchase(u, i))
        m.play_store.add().CopyFrom(play_store_purchase(u, i))
    m.app_store_transaction_ids.extend(["2000000000000001", ""])
    return unk(m, u)


def purchase_result(u, i=0):
    known = i == 0
    m = es.PurchaseResult(
        store=st.APP_STORE if known else 99, product_id=f"com.example.pro.{i}", original_transaction_id=f"1000-{i}",
        transaction_id=f"2000-{i}", environment=st.LOCAL_TESTING if known else 99,
        outcome=es.PurchaseResult.OLDER_THAN_STORED if known else 99, active=True, entitlement_ids=["pro", ""],
        transferred_from_app_user_id="user-0", claimed=True)
    m.purchased_at.CopyFrom(ts(1_700_000_000, 0, u))
    m.expires_at.CopyFrom(ts(1_731_536_000, 0, u))
    m.revoked_at.CopyFrom(ts(1_710_000_000, 0, u))
    return unk(m, u)


def purchase_response(u):
    m = with_customer(es.PurchaseResponse, u, transferred_from_app_user_id="user-0")
    m.result.CopyFrom(purchase_result(u))
    return m


def restore_response(u):
    m = with_customer(es.RestoreResponse, u, transferred_from_app_user_ids=["user-a", "user-b"])
    for i in range(2):
        m.results.add().CopyFrom(purchase_result(u, i))
    m.app_store_histories.add().CopyFrom(app_store_history_result(u))
    return m


def app_store_history_result(u):
    m = es.AppStoreHistoryResult(transaction_id="2000000000000001", environment=st.SANDBOX, transactions_found=41)
    for i in range(2):
        m.purchases.add().CopyFrom(purchase_result(u, i))
    return unk(m, u)


def grant_entitlement_request(u):
    m = ad.GrantEntitlementRequest(app_user_id="user-1", entitlement_id="pro", reason="support ticket 42",
                                   idempotency_key="key-1")
    m.expires_at.CopyFrom(ts(1_800_000_000, 0, u))
    m.duration.CopyFrom(unk(Duration(seconds=-86_400, nanos=-5), u))
    return unk(m, u)


def grant(u, i=0):
    m = ad.Grant(grant_id=f"grant-{i}", app_user_id="user-1", entitlement_id="pro", reason="support",
                 revocation_reason="mistake")
    m.starts_at.CopyFrom(ts(1_700_000_000, 1, u))
    m.expires_at.CopyFrom(ts(1_800_000_000, 2, u))
    m.revoked_at.CopyFrom(ts(1_750_000_000, 3, u))
    return unk(m, u)


def grant_epoch_timestamps(u):
    m = ad.Grant(grant_id="grant-epoch")
    m.starts_at.SetInParent()
    return unk(m, u)


def transaction(u, i=0):
    known = i == 0
    m = ad.Transaction(
        store=st.PLAY_STORE if known else 99, product_id=f"pro_yearly_{i}", original_transaction_id=f"1000-{i}",
        transaction_id=f"2000-{i}", environment=st.SANDBOX if known else 99,
        revocation_reason="REFUND_FULL", owner_app_user_id="user-1",
        ownership=ad.Transaction.FAMILY_SHARED if known else 99, will_renew=True, in_grace_period=True,
        in_billing_retry=True, renewal_product_id=f"pro_monthly_{i}", superseded_by=f"token-new-{i}",
        replaces=f"token-old-{i}", acknowledgement=ad.Transaction.FAILED if known else 99,
        acknowledgement_attempts=40 + i, acknowledgement_error="Google could not answer (503)", suspended=True)
    m.purchased_at.CopyFrom(ts(1_700_000_000, 0, u))
    m.original_purchase_at.CopyFrom(ts(1_600_000_000, 0, u))
    m.expires_at.CopyFrom(ts(1_731_536_000, 0, u))
    m.revoked_at.CopyFrom(ts(1_710_000_000, 0, u))
    return unk(m, u)


def refresh_store_purchase_response(u):
    m = ad.RefreshStorePurchaseResponse(changed=True)
    m.transaction.CopyFrom(transaction(u))
    m.customer.CopyFrom(customer_status(u))
    return unk(m, u)


def send_test_webhook_response(u):
    m = ad.SendTestWebhookResponse(webhook_id="msg_abc", delivered=True, status_code=204, error="none")
    m.duration.CopyFrom(unk(Duration(seconds=1, nanos=500_000_000), u))
    return unk(m, u)


def webhook_delivery(u):
    m = ad.WebhookDelivery(
        delivery_id=42, endpoint_id="backend", webhook_id="msg_abc", type="customer.renewal", state=1,
        app_user_id="user-1", version=7, attempts=2, last_status_code=503, last_error="HTTP 503: busy",
        body='{"type":"customer.renewal"}')
    m.created_at.CopyFrom(ts(1_700_000_000, 0, u))
    m.last_attempt_at.CopyFrom(ts(1_700_000_010, 0, u))
    m.next_attempt_at.CopyFrom(ts(1_700_000_310, 0, u))
    m.delivered_at.CopyFrom(ts(1_700_000_400, 0, u))
    return unk(m, u)


def list_webhook_deliveries_request(u):
    m = ad.ListWebhookDeliveriesRequest(
        endpoint_id="backend", app_user_id="user-1", state=3, page_size=20, page_token="d42")
    m.created_after.CopyFrom(ts(1_700_000_000, 0, u))
    m.created_before.CopyFrom(ts(1_700_000_100, 5, u))
    return unk(m, u)


def list_webhook_deliveries_response(u):
    m = ad.ListWebhookDeliveriesResponse(next_page_token="d41")
    m.deliveries.append(webhook_delivery(u))
    return unk(m, u)


def redeliver_webhooks_request(u):
    m = ad.RedeliverWebhooksRequest(delivery_id=42, endpoint_id="backend")
    m.created_after.CopyFrom(ts(1_700_000_000, 0, u))
    m.created_before.CopyFrom(ts(1_700_000_100, 0, u))
    return unk(m, u)


def list_customers_request(u, unknown_enums=False):
    m = ad.ListCustomersRequest(
        page_size=50, page_token="page-2", entitlement_id="pro", store=99 if unknown_enums else st.PLAY_STORE,
        product_id="monthly", state=99 if unknown_enums else ad.ListCustomersRequest.GRACE_PERIOD)
    m.changed_since.CopyFrom(ts(1_700_000_000, 0, u))
    return unk(m, u)


def listed_customer(u, i=0):
    m = ad.ListedCustomer()
    m.customer.CopyFrom(customer_status(u))
    m.created_at.CopyFrom(ts(1_600_000_000 + i, 0, u))
    m.changed_at.CopyFrom(ts(1_700_000_000 + i, 0, u))
    return unk(m, u)


def list_customers_response(u):
    m = ad.ListCustomersResponse(next_page_token="page-2")
    m.customers.extend(listed_customer(u, i) for i in range(2))
    return unk(m, u)


def reconcile_app_store_request(u):
    m = ad.ReconcileAppStoreRequest(transaction_ids=["2000000000000001", ""], only_failures=True)
    m.start_time.CopyFrom(ts(1_700_000_000, 0, u))
    m.end_time.CopyFrom(ts(1_710_000_000, 0, u))
    return unk(m, u)


def reconciliation(u, i):
    report = ad.AppStoreReconciliation(
        environment=st.PRODUCTION if i == 0 else 99, pages=2 + i, found=41, applied=3, unchanged=1, unowned=2,
        already_processed=30, rejected=5, rejections=["bad signature", ""])
    report.start_time.CopyFrom(ts(1_700_000_000, 0, u))
    report.end_time.CopyFrom(ts(1_710_000_000, 0, u))
    return unk(report, u)


def reconcile_app_store_response(u):
    m = ad.ReconcileAppStoreResponse()
    for i in range(2):
        m.environments.add().CopyFrom(reconciliation(u, i))
    return unk(m, u)


def extend_subscription_request(u, reason_code):
    return unk(ad.ExtendSubscriptionRequest(original_transaction_id="2000000000000001", extend_by_days=30,
                                            reason_code=reason_code, request_identifier="9a1b",
                                            reason="outage 2030-01-31"), u)


def send_consumption_info_request(u, percentage):
    m = ad.SendConsumptionInfoRequest(
        transaction_id="2000000000000001", customer_consented=True,
        delivery_status=ad.SendConsumptionInfoRequest.DELIVERED, sample_content_provided=True,
        refund_preference=ad.SendConsumptionInfoRequest.GRANT_PRORATED, reason="refund request")
    if percentage is not None:
        m.consumption_percentage = percentage
    return unk(m, u)


def test_notification_attempt(u, result):
    m = ad.TestNotificationAttempt(result=result)
    m.attempted_at.CopyFrom(ts(1_700_000_000, 0, u))
    return unk(m, u)


def setup_check(u, ok):
    return unk(ad.AppStoreSetupCheck(
        environment=st.SANDBOX, name="key" if ok else "notification_url", ok=ok,
        detail="Apple accepted the key." if ok else "Apple has no notification URL."), u)


def app_store_support_cases():
    def look_up_order_response(u):
        m = ad.LookUpOrderResponse(found=True)
        m.transactions.add().CopyFrom(transaction(u))
        m.transactions.add().CopyFrom(transaction(u, 1))
        return unk(m, u)

    def extend_subscription_response(u):
        m = ad.ExtendSubscriptionResponse(web_order_line_item_id="2000000000000002", request_identifier="9a1b")
        m.expires_at.CopyFrom(ts(1_710_000_000, 0, u))
        m.customer.CopyFrom(customer_status(u))
        return unk(m, u)

    def test_status_response(u):
        m = ad.GetTestNotificationStatusResponse(received=True)
        m.send_attempts.add().CopyFrom(test_notification_attempt(u, "TIMED_OUT"))
        m.send_attempts.add().CopyFrom(test_notification_attempt(u, "SUCCESS"))
        return unk(m, u)

    def check_request(u):
        m = ad.CheckAppStoreSetupRequest()
        m.wait.CopyFrom(unk(Duration(seconds=5, nanos=0), u))
        return unk(m, u)

    def check_response(u):
        m = ad.CheckAppStoreSetupResponse(tenant_id="demo", ok=False)
        m.checks.add().CopyFrom(setup_check(u, True))
        m.checks.add().CopyFrom(setup_check(u, False))
        return unk(m, u)

    return {
        "LookUpOrderRequest": (ad.LookUpOrderRequest,
                               lambda u: unk(ad.LookUpOrderRequest(order_id="MK5TTTVWJH", reason="ticket 7"), u)),
        "LookUpOrderResponse": (ad.LookUpOrderResponse, look_up_order_response),
        "ExtendSubscriptionRequest": (ad.ExtendSubscriptionRequest, lambda u: extend_subscription_request(
            u, ad.ExtendSubscriptionRequest.SERVICE_ISSUE_OR_OUTAGE)),
        "ExtendSubscriptionRequest#unknownEnums": (ad.ExtendSubscriptionRequest,
                                                   lambda u: extend_subscription_request(u, 99)),
        "ExtendSubscriptionResponse": (ad.ExtendSubscriptionResponse, extend_subscription_response),
        "SendConsumptionInfoRequest": (ad.SendConsumptionInfoRequest,
                                       lambda u: send_consumption_info_request(u, 25_000)),
        "SendConsumptionInfoRequest#zeroPercentage": (ad.SendConsumptionInfoRequest,
                                                      lambda u: send_consumption_info_request(u, 0)),
        "SendConsumptionInfoRequest#noPercentage": (ad.SendConsumptionInfoRequest,
                                                    lambda u: send_consumption_info_request(u, None)),
        "SendConsumptionInfoResponse": (ad.SendConsumptionInfoResponse, lambda u: unk(ad.SendConsumptionInfoResponse(
            delivery_status=ad.SendConsumptionInfoRequest.UNDELIVERED_OTHER, owner_app_user_id="user-1"), u)),
        "RequestTestNotificationRequest": (ad.RequestTestNotificationRequest,
                                           lambda u: unk(ad.RequestTestNotificationRequest(environment=st.SANDBOX), u)),
        "RequestTestNotificationResponse": (ad.RequestTestNotificationResponse, lambda u: unk(
            ad.RequestTestNotificationResponse(
                test_notification_token="ce3af791-365e-4c60-841b-1674b43c1609_1700000000000",
                environment=st.PRODUCTION), u)),
        "GetTestNotificationStatusRequest": (ad.GetTestNotificationStatusRequest, lambda u: unk(
            ad.GetTestNotificationStatusRequest(test_notification_token="token-1", environment=99), u)),
        "GetTestNotificationStatusResponse": (ad.GetTestNotificationStatusResponse, test_status_response),
        "TestNotificationAttempt": (ad.TestNotificationAttempt, lambda u: test_notification_attempt(u, "SUCCESS")),
        "CheckAppStoreSetupRequest": (ad.CheckAppStoreSetupRequest, check_request),
        "CheckAppStoreSetupResponse": (ad.CheckAppStoreSetupResponse, check_response),
        "AppStoreSetupCheck": (ad.AppStoreSetupCheck, lambda u: setup_check(u, True)),
    }


def count_customers_response(u):
    m = ad.CountCustomersResponse(active_customers=3_000_000_000)
    m.entitlements.extend([unk(ad.CustomerCount(id="plus", customers=1), u), unk(ad.CustomerCount(id="pro", customers=2), u)])
    m.products.extend([unk(ad.CustomerCount(id="monthly", customers=2), u)])
    m.stores.extend([unk(ad.StoreCount(store=st.APP_STORE, customers=2), u), unk(ad.StoreCount(store=99, customers=1), u)])
    m.counted_at.CopyFrom(ts(1_700_000_000, 0, u))
    return unk(m, u)


def redemption_code(u):
    m = ad.RedemptionCode(code="rc_abc")
    m.expires_at.CopyFrom(ts(1_700_000_000, 0, u))
    m.transaction.CopyFrom(transaction(u))
    return unk(m, u)


def customer(u):
    m = ad.Customer(aliases=["$anon:1", "$anon:2"])
    m.customer.CopyFrom(customer_status(u))
    for i in range(2):
        m.grants.add().CopyFrom(grant(u, i))
        m.transactions.add().CopyFrom(transaction(u, i))
    return unk(m, u)


def attribute(u, i):
    m = st.Attribute(key="$email" if i == 0 else "crm_id", value="Ana@Example.com" if i == 0 else "4711")
    m.updated_at.CopyFrom(ts(1_700_000_000 + i, 0, u))
    return unk(m, u)


def set_attributes_request(cls, u):
    m = cls(app_user_id="user-1", unset_keys=["plan", "$locale"])
    for i in range(2):
        m.attributes.add().CopyFrom(attribute(u, i))
    return unk(m, u)


def set_attributes_response(cls, u):
    m = cls(changed_keys=["$email", "plan"], app_user_id="user-1")
    m.attributes.add().CopyFrom(attribute(u, 0))
    return unk(m, u)


def introductory_offer_eligibility(u):
    m = es.IntroductoryOfferEligibility(
        product_id="com.example.pro", eligible=False,
        reason=es.IntroductoryOfferEligibility.SUBSCRIBED_BEFORE, subscribed_store=st.PLAY_STORE,
        subscribed_product_id="pro_monthly")
    return unk(m, u)


def promotional_offer_eligibility(u):
    m = es.PromotionalOfferEligibility(
        offer_id="winback_50", product_id="com.example.pro", eligible=False, refused_rule="lapsed_days",
        message='Offer "winback_50" is for customers lapsed at least 30 days.')
    return unk(m, u)


def offer_signature(u, redeemed):
    m = ad.OfferSignature(
        offer_id="winback_50" if redeemed else "", product_id="com.example.pro",
        nonce="0c3a1b9e-4b3f-4d8a-9e2f-6a1d2c3b4e5f" if redeemed else "5d0e2c1a-7b6f-4e3d-8c2b-1a0f9e8d7c6b")
    m.signed_at.CopyFrom(ts(1_700_000_000, 123_000_000, u))
    if redeemed:
        m.redeemed_transaction_id = "2000000002"
        m.redeemed_at.CopyFrom(ts(1_700_000_600, 0, u))
    return unk(m, u)


def customer_with_offer_signatures(u):
    m = customer(u)
    m.offer_signatures.add().CopyFrom(offer_signature(u, True))
    m.offer_signatures.add().CopyFrom(offer_signature(u, False))
    return m


def offer_eligibility_response(u):
    m = es.GetOfferEligibilityResponse(app_user_id="user-1")
    m.introductory_offers.add().CopyFrom(introductory_offer_eligibility(u))
    m.promotional_offers.add().CopyFrom(promotional_offer_eligibility(u))
    return unk(m, u)


def sign_offer_response(u):
    m = es.SignOfferResponse(
        app_user_id="user-1", product_id="com.example.pro", offer_id="winback_50", key_id="2X9R4HXF34",
        nonce="0c3a1b9e-4b3f-4d8a-9e2f-6a1d2c3b4e5f", timestamp=1_700_000_000_123, signature="MEUCIQ==",
        app_account_token="7e3fb20b-4cdb-47cc-936d-99d65f608138", compact_jws="eyJhbGciOiJFUzI1NiJ9.e30.sig",
        introductory_offer_allowed=True, transaction_id="2000000001")
    return unk(m, u)


def customer_with_attributes(u):
    m = customer(u)
    for i in range(2):
        m.attributes.add().CopyFrom(attribute(u, i))
    return m


def audit_event(u, i):
    m = ad.AuditEvent(id=41 if i == 0 else 2**64 - 1, action=ad.AuditEvent.CUSTOMER_DELETED if i == 0 else 99,
                      key_name="support-ana", request_id=f"req-{i}", subject="erased_abc")
    m.occurred_at.CopyFrom(ts(1_700_000_000, 5, u))
    return unk(m, u)


def list_audit_events_response(u):
    m = ad.ListAuditEventsResponse(next_page_token="40")
    for i in range(2):
        m.events.add().CopyFrom(audit_event(u, i))
    return unk(m, u)


def customer_event(u, i=0):
    known = i == 0
    m = ad.CustomerEvent(version=10 + i, cause=ad.CustomerEvent.GRANT if known else 99,
                         change=st.StatusEvent.STATUS_CHANGED if known else 99, reason="support ticket 42",
                         related_app_user_id="user-0", reference_id=f"grant-{i}", key_name="support-ana")
    m.occurred_at.CopyFrom(ts(1_700_000_000 + i, 0, u))
    m.status.CopyFrom(subscription_status(u))
    return unk(m, u)


def customer_match(u, i):
    known = i == 0
    return unk(ad.CustomerMatch(app_user_id="" if i else "alice",
                                matched_by=ad.CustomerMatch.TRANSACTION_ID if known else 99,
                                store=st.PLAY_STORE if known else 99, original_transaction_id=f"token-{i}"), u)


def find_customers_response(u):
    m = ad.FindCustomersResponse()
    for i in range(2):
        m.matches.add().CopyFrom(customer_match(u, i))
    return unk(m, u)


def key_description(u):
    return unk(ad.KeyDescription(tenant_id="demo", key_name="support-ana", scope=ad.KeyDescription.READ,
                                 entitlements=["premium", "pro"], allows_undeclared_entitlements=True,
                                 webhook_endpoints=["backend", "crm"]), u)


def trust_description(u):
    m = ad.TrustDescription()
    m.user_tokens.CopyFrom(user_token_description(u))
    m.signed_status.CopyFrom(status_signing_description(u))
    return unk(m, u)


def user_token_description(u, mode=None):
    m = ad.UserTokenDescription(
        mode=ad.UserTokenDescription.REQUIRED if mode is None else mode, issuer="https://auth.example.com",
        max_lifetime_seconds=3600, hs256_secrets=2, keys_from="https://auth.example.com/jwks", allows_anonymous=True)
    for outcome, reason, count in [("accepted", "", 2**40), ("refused", "expired", 3)]:
        m.counts.add().CopyFrom(unk(ad.UserTokenCount(outcome=outcome, reason=reason, count=count), u))
    m.counted_since.CopyFrom(ts(1_700_000_000, 0, u))
    return unk(m, u)


def status_signing_description(u):
    return unk(ad.StatusSigningDescription(signing_key_id="2027-06", key_ids=["2027-06", "2026-12"],
                                           offline_validity_hours=72), u)


def list_customer_events_response(u):
    m = ad.ListCustomerEventsResponse(next_page_token="page-2")
    for i in range(2):
        m.events.add().CopyFrom(customer_event(u, i))
    return unk(m, u)


def metric_cases():
    def filter_(u):
        return unk(ad.MetricFilter(store="play_store", product_id="premium", entitlement_id="pro", country="DE",
                                   offer_kind="free_trial"), u)

    def request(u, unknown_enums=False):
        m = ad.GetMetricsRequest(metric=99 if unknown_enums else ad.REFUND_RATE, start_date="2026-01-01",
                                 end_date="2026-12-31", interval=99 if unknown_enums else ad.MONTH,
                                 environment=st.SANDBOX, in_reporting_currency=True)
        m.group_by.extend([ad.ENTITLEMENT, 99 if unknown_enums else ad.OFFER_KIND])
        m.filter.CopyFrom(filter_(u))
        return unk(m, u)

    def group(u):
        return unk(ad.MetricGroupValue(dimension=ad.COUNTRY, value="ユーザー✓"), u)

    def rate(u):
        return unk(ad.MetricExchangeRate(date="2026-01-02", rate="1.0583"), u)

    def point(u, i):
        m = ad.MetricPoint(start_date=f"2026-0{i + 1}-01", value=-(2**63) if i else 2**63 - 1, denominator=i)
        if i:
            m.missing_rate_dates.extend(["2026-02-07", "2026-02-08"])
        else:
            m.converted_value = 0  # set, though zero
        m.rates.add().CopyFrom(rate(u))
        return unk(m, u)

    def series(u):
        m = ad.MetricSeries(currency="EUR")
        m.group.add().CopyFrom(group(u))
        m.points.add().CopyFrom(point(u, 0))
        m.points.add().CopyFrom(point(u, 1))
        return unk(m, u)

    def response(u):
        m = ad.GetMetricsResponse(metric=ad.NET_REVENUE, reporting_currency="USD")
        m.series.add().CopyFrom(series(u))
        m.series.add().CopyFrom(unk(ad.MetricSeries(), u))
        return unk(m, u)

    def rows_request(u):
        m = ad.ListMetricRowsRequest(metric=ad.REFUNDS, start_date="2026-03-01", end_date="2026-03-31",
                                     environment=st.PRODUCTION, currency="EUR", page_size=50, page_token="tok")
        m.group.add().CopyFrom(group(u))
        m.filter.CopyFrom(filter_(u))
        return unk(m, u)

    def ledger_row(u, taxed):
        m = ad.LedgerRow(kind="refund", direction="refund", store="app_store", transaction_id="2000000000000001",
                         original_transaction_id="2000000000000000", app_user_id="ユーザー✓", product_id="monthly",
                         entitlement_ids=["pro", "plus"], environment=st.SANDBOX, country="FR",
                         offer_kind="introductory", amount_milliunits=-4990, currency="EUR",
                         proceeds_milliunits=-3493)
        if taxed:
            m.tax_milliunits = 0
        m.period_start.CopyFrom(ts(1_700_000_000, 0, u))
        m.period_end.CopyFrom(ts(1_702_592_000, 0, u))
        m.occurred_at.CopyFrom(ts(1_701_000_000, 5_000_000, u))
        return unk(m, u)

    def rows_response(u):
        m = ad.ListMetricRowsResponse(next_page_token="next")
        m.rows.add().CopyFrom(ledger_row(u, True))
        m.rows.add().CopyFrom(ledger_row(u, False))
        return unk(m, u)

    return {
        "ListMetricRowsRequest": (ad.ListMetricRowsRequest, rows_request),
        "ListMetricRowsResponse": (ad.ListMetricRowsResponse, rows_response),
        "LedgerRow": (ad.LedgerRow, lambda u: ledger_row(u, True)),
        "LedgerRow#noTax": (ad.LedgerRow, lambda u: ledger_row(u, False)),
        "GetMetricsRequest": (ad.GetMetricsRequest, request),
        "GetMetricsRequest#unknownEnums": (ad.GetMetricsRequest, lambda u: request(u, True)),
        "GetMetricsResponse": (ad.GetMetricsResponse, response),
        "MetricFilter": (ad.MetricFilter, filter_),
        "MetricSeries": (ad.MetricSeries, series),
        "MetricGroupValue": (ad.MetricGroupValue, group),
        "MetricPoint": (ad.MetricPoint, lambda u: point(u, 1)),
        "MetricPoint#converted": (ad.MetricPoint, lambda u: point(u, 0)),
        "MetricExchangeRate": (ad.MetricExchangeRate, rate),
    }


def cases():
    """Case name → (message class, builder taking "with unknown fields")."""
    return {
        "CustomerStatus": (st.CustomerStatus, customer_status),
        "CustomerStatus#extremes": (st.CustomerStatus, customer_status_extremes),
        "SubscriptionStatus": (st.SubscriptionStatus, subscription_status),
        "SubscriptionStatus#unknownState": (st.SubscriptionStatus, lambda u: subscription_status(u, 99)),
        "ActiveEntitlement": (st.ActiveEntitlement, lambda u: active_entitlement(u, 0)),
        "ActiveEntitlement#unknownStore": (st.ActiveEntitlement, lambda u: active_entitlement(u, 1)),
        "StatusEvent": (st.StatusEvent, status_event),
        "StatusEvent#unknownKind": (st.StatusEvent, lambda u: status_event(u, 99)),
        "StreamStatusRequest": (es.StreamStatusRequest,
                                lambda u: unk(es.StreamStatusRequest(app_user_id="user-1", after_version=7), u)),
        "IdentifyRequest": (es.IdentifyRequest,
                            lambda u: unk(es.IdentifyRequest(app_user_id="user-1", anonymous_id="$anon:1"), u)),
        "IdentifyResponse": (es.IdentifyResponse,
                             lambda u: with_customer(es.IdentifyResponse, u, created=True, merged=True)),
        "IdentifyResponse#emptyCustomer": (es.IdentifyResponse, identify_response_empty_customer),
        "SyncStatusRequest": (es.SyncStatusRequest, lambda u: unk(es.SyncStatusRequest(app_user_id="user-1"), u)),
        "SyncStatusResponse": (es.SyncStatusResponse, lambda u: with_customer(es.SyncStatusResponse, u)),
        "PurchaseRequest#appStore": (es.PurchaseRequest, lambda u: purchase_request(u, "app_store")),
        "PurchaseRequest#playStore": (es.PurchaseRequest, lambda u: purchase_request(u, "play_store")),
        "PurchaseRequest#emptyAppStore": (es.PurchaseRequest, lambda u: purchase_request(u, "empty")),
        "AppStorePurchase": (es.AppStorePurchase, app_store_purchase),
        "PlayStorePurchase": (es.PlayStorePurchase, play_store_purchase),
        "PurchaseResponse": (es.PurchaseResponse, purchase_response),
        "PurchaseResult": (es.PurchaseResult, purchase_result),
        "PurchaseResult#unknownEnums": (es.PurchaseResult, lambda u: purchase_result(u, 1)),
        "RestoreRequest": (es.RestoreRequest, restore_request),
        "RestoreResponse": (es.RestoreResponse, restore_response),
        "AppStoreHistoryResult": (es.AppStoreHistoryResult, app_store_history_result),
        "GrantEntitlementRequest": (ad.GrantEntitlementRequest, grant_entitlement_request),
        "Grant": (ad.Grant, grant),
        "Grant#epochTimestamps": (ad.Grant, grant_epoch_timestamps),
        "RevokeGrantRequest": (ad.RevokeGrantRequest,
                               lambda u: unk(ad.RevokeGrantRequest(grant_id="grant-0", reason="mistake"), u)),
        "GetCustomerRequest": (ad.GetCustomerRequest, lambda u: unk(ad.GetCustomerRequest(app_user_id="user-1"), u)),
        "Customer": (ad.Customer, customer),
        "Customer#attributes": (ad.Customer, customer_with_attributes),
        "ExportCustomerRequest": (ad.ExportCustomerRequest,
                                  lambda u: unk(ad.ExportCustomerRequest(app_user_id="user-1"), u)),
        "ExportCustomerChunk": (ad.ExportCustomerChunk,
                                lambda u: unk(ad.ExportCustomerChunk(data=b'{"format_version":1}\x00\xff'), u)),
        "DeleteCustomerRequest": (ad.DeleteCustomerRequest,
                                  lambda u: unk(ad.DeleteCustomerRequest(app_user_id="user-1",
                                                                         confirm_app_user_id="user-1"), u)),
        "DeleteCustomerResponse": (ad.DeleteCustomerResponse,
                                   lambda u: unk(ad.DeleteCustomerResponse(
                                       subject="erased_abc", already_deleted=True, events_deleted=4_000_000_000,
                                       purchases_kept=2, purchases_deleted=1, webhook_deliveries_deleted=7), u)),
        "ListAuditEventsRequest": (ad.ListAuditEventsRequest,
                                   lambda u: unk(ad.ListAuditEventsRequest(page_size=50, page_token="41"), u)),
        "ListAuditEventsRequest#negativePageSize": (ad.ListAuditEventsRequest,
                                                    lambda u: unk(ad.ListAuditEventsRequest(page_size=-1), u)),
        "ListAuditEventsResponse": (ad.ListAuditEventsResponse, list_audit_events_response),
        "AuditEvent": (ad.AuditEvent, lambda u: audit_event(u, 0)),
        "AuditEvent#unknownAction": (ad.AuditEvent, lambda u: audit_event(u, 1)),
        "OfferSignature": (ad.OfferSignature, lambda u: offer_signature(u, True)),
        "Customer#offerSignatures": (ad.Customer, customer_with_offer_signatures),
        "GetOfferEligibilityRequest": (es.GetOfferEligibilityRequest, lambda u: unk(es.GetOfferEligibilityRequest(
            app_user_id="user-1", product_ids=["com.example.pro", "com.example.max"]), u)),
        "GetOfferEligibilityResponse": (es.GetOfferEligibilityResponse, offer_eligibility_response),
        "IntroductoryOfferEligibility": (es.IntroductoryOfferEligibility, introductory_offer_eligibility),
        "PromotionalOfferEligibility": (es.PromotionalOfferEligibility, promotional_offer_eligibility),
        "SignOfferRequest": (es.SignOfferRequest, lambda u: unk(es.SignOfferRequest(
            app_user_id="user-1", product_id="com.example.pro", offer_id="winback_50", transaction_id="2000000001",
            app_transaction_id="705"), u)),
        "SignOfferResponse": (es.SignOfferResponse, sign_offer_response),
        "Attribute": (st.Attribute, lambda u: attribute(u, 0)),
        "SetAttributesRequest": (es.SetAttributesRequest, lambda u: set_attributes_request(es.SetAttributesRequest, u)),
        "SetAttributesResponse": (es.SetAttributesResponse,
                                  lambda u: set_attributes_response(es.SetAttributesResponse, u)),
        "SetCustomerAttributesRequest": (ad.SetCustomerAttributesRequest,
                                         lambda u: set_attributes_request(ad.SetCustomerAttributesRequest, u)),
        "SetCustomerAttributesResponse": (ad.SetCustomerAttributesResponse,
                                          lambda u: set_attributes_response(ad.SetCustomerAttributesResponse, u)),
        "Transaction": (ad.Transaction, transaction),
        "Transaction#unknownEnums": (ad.Transaction, lambda u: transaction(u, 1)),
        "ListCustomerEventsRequest": (ad.ListCustomerEventsRequest,
                                      lambda u: unk(ad.ListCustomerEventsRequest(app_user_id="user-1", page_size=50,
                                                                                 page_token="page-2"), u)),
        "ListCustomerEventsRequest#negativePageSize": (ad.ListCustomerEventsRequest,
                                                       lambda u: unk(ad.ListCustomerEventsRequest(page_size=-5), u)),
        "ListCustomerEventsResponse": (ad.ListCustomerEventsResponse, list_customer_events_response),
        "CustomerEvent": (ad.CustomerEvent, customer_event),
        "CustomerEvent#unknownEnums": (ad.CustomerEvent, lambda u: customer_event(u, 1)),
        "RefreshStorePurchaseRequest": (ad.RefreshStorePurchaseRequest,
                                        lambda u: unk(ad.RefreshStorePurchaseRequest(
                                            store=st.PLAY_STORE, purchase_id="token-1", product_id="premium"), u)),
        "RefreshStorePurchaseResponse": (ad.RefreshStorePurchaseResponse, refresh_store_purchase_response),
        "PurchaseRequest#webRedemption": (es.PurchaseRequest, lambda u: purchase_request(u, "web_redemption")),
        "WebRedemption": (es.WebRedemption, lambda u: unk(es.WebRedemption(code="rc_abc"), u)),
        "GetRedemptionCodeRequest": (ad.GetRedemptionCodeRequest, lambda u: unk(ad.GetRedemptionCodeRequest(stripe_id="cs_test_1"), u)),
        "RedemptionCode": (ad.RedemptionCode, redemption_code),
        "SendTestWebhookRequest": (ad.SendTestWebhookRequest, lambda u: unk(ad.SendTestWebhookRequest(endpoint_id="backend"), u)),
        "SendTestWebhookResponse": (ad.SendTestWebhookResponse, send_test_webhook_response),
        "ListWebhookDeliveriesRequest": (ad.ListWebhookDeliveriesRequest, list_webhook_deliveries_request),
        "ListWebhookDeliveriesResponse": (ad.ListWebhookDeliveriesResponse, list_webhook_deliveries_response),
        "WebhookDelivery": (ad.WebhookDelivery, webhook_delivery),
        "RedeliverWebhooksRequest": (ad.RedeliverWebhooksRequest, redeliver_webhooks_request),
        "RedeliverWebhooksResponse": (ad.RedeliverWebhooksResponse, lambda u: unk(ad.RedeliverWebhooksResponse(requeued=3), u)),
        "ListCustomersRequest": (ad.ListCustomersRequest, list_customers_request),
        "ListCustomersRequest#unknownEnums": (ad.ListCustomersRequest, lambda u: list_customers_request(u, True)),
        "ListCustomersResponse": (ad.ListCustomersResponse, list_customers_response),
        "ListedCustomer": (ad.ListedCustomer, listed_customer),
        "CountCustomersRequest": (ad.CountCustomersRequest, lambda u: unk(ad.CountCustomersRequest(), u)),
        "CountCustomersResponse": (ad.CountCustomersResponse, count_customers_response),
        "ReconcileAppStoreRequest": (ad.ReconcileAppStoreRequest, reconcile_app_store_request),
        "ReconcileAppStoreResponse": (ad.ReconcileAppStoreResponse, reconcile_app_store_response),
        "AppStoreReconciliation": (ad.AppStoreReconciliation, lambda u: reconciliation(u, 0)),
        **app_store_support_cases(),
        **metric_cases(),
        "CustomerCount": (ad.CustomerCount, lambda u: unk(ad.CustomerCount(id="pro", customers=2), u)),
        "FindCustomersRequest": (ad.FindCustomersRequest, lambda u: unk(ad.FindCustomersRequest(query="GPA.1234-5678"), u)),
        "FindCustomersResponse": (ad.FindCustomersResponse, find_customers_response),
        "CustomerMatch": (ad.CustomerMatch, lambda u: customer_match(u, 0)),
        "CustomerMatch#unknownEnums": (ad.CustomerMatch, lambda u: customer_match(u, 1)),
        "DescribeKeyRequest": (ad.DescribeKeyRequest, lambda u: unk(ad.DescribeKeyRequest(), u)),
        "KeyDescription": (ad.KeyDescription, key_description),
        "DescribeTrustRequest": (ad.DescribeTrustRequest, lambda u: unk(ad.DescribeTrustRequest(), u)),
        "TrustDescription": (ad.TrustDescription, trust_description),
        "UserTokenDescription": (ad.UserTokenDescription, user_token_description),
        "UserTokenDescription#unknownEnums": (ad.UserTokenDescription, lambda u: user_token_description(u, 99)),
        "UserTokenCount": (ad.UserTokenCount, lambda u: unk(ad.UserTokenCount(outcome="would_refuse",
                                                                              reason="subject", count=7), u)),
        "StatusSigningDescription": (ad.StatusSigningDescription, status_signing_description),
        "StoreCount": (ad.StoreCount, lambda u: unk(ad.StoreCount(store=st.GRANT, customers=4), u)),
    }


def message_classes():
    """Every message type declared in the protos, by name."""
    classes = {}
    for module in (st, es, ad):
        for name in module.DESCRIPTOR.message_types_by_name:
            classes[name] = getattr(module, name)
    return classes


def all_cases():
    result = cases()
    for name, cls in message_classes().items():
        result[f"{name}#empty"] = (cls, lambda u, cls=cls: unk(cls(), u))
    return result


def emit():
    print(json.dumps({
        "messages": sorted(message_classes()),
        "cases": {name: build(True).SerializeToString().hex() for name, (_, build) in all_cases().items()},
    }))


def text(message):
    return text_format.MessageToString(message, print_unknown_fields=True, as_utf8=True) or "<empty>\n"


def verify(cls, data, expected):
    try:
        parsed = cls.FromString(data)
    except DecodeError as error:
        return f"Python cannot parse Swift's bytes ({error}): {data.hex()}"
    want = expected.SerializeToString()
    if parsed != expected or parsed.SerializeToString() != want:
        return f"Python parsed\n{text(parsed)}but expected\n{text(expected)}"
    if data != want:
        return f"same value, different bytes:\n  swift  {data.hex()}\n  python {want.hex()}"
    return None


def check(input_path):
    with open(input_path) as file:
        payload = json.load(file)
    failures = {}
    known = all_cases()
    for name, (cls, build) in known.items():
        for key, with_unknown in (("reencoded", True), ("swift", False)):
            data = payload[key].get(name)
            problem = "missing" if data is None else verify(cls, bytes.fromhex(data), build(with_unknown))
            if problem:
                failures[f"{key} {name}"] = problem
    for key in payload:
        for name in payload[key].keys() - known.keys():
            failures[f"{key} {name}"] = "no such case in roundtrip.py"
    print(json.dumps({"failures": failures}))


def emit_json():
    """Every case without unknown fields: its type's full name, its bytes, and protobuf's own JSON of it."""
    cases = {}
    for name, (cls, build) in all_cases().items():
        message = build(False)
        cases[name] = {"type": cls.DESCRIPTOR.full_name, "binary": message.SerializeToString().hex(),
                       "json": json_format.MessageToJson(message, indent=None)}
    print(json.dumps({"cases": cases}))


def check_json(input_path):
    """Swift's JSON of each case's bytes must be protobuf's JSON of the case, and parse back to it; Swift's bytes of
    protobuf's JSON must be the case's bytes."""
    with open(input_path) as file:
        payload = json.load(file)
    failures = {}
    for name, (cls, build) in all_cases().items():
        expected = build(False)
        answer = payload.get(name)
        if answer is None:
            failures[name] = "missing"
            continue
        mine = json.loads(json_format.MessageToJson(expected, indent=None))
        with_defaults = json.loads(
            json_format.MessageToJson(expected, indent=None, always_print_fields_with_no_presence=True))
        try:
            if json.loads(answer["json"]) != mine:
                failures[f"json {name}"] = f"Swift wrote {answer['json']}\nprotobuf writes {json.dumps(mine)}"
            if json.loads(answer["jsonWithDefaults"]) != with_defaults:
                failures[f"json with defaults {name}"] = (
                    f"Swift wrote {answer['jsonWithDefaults']}\nprotobuf writes {json.dumps(with_defaults)}")
            parsed = json_format.Parse(answer["json"], cls())
            if parsed != expected:
                failures[f"json {name}"] = f"protobuf read Swift's JSON as\n{text(parsed)}but expected\n{text(expected)}"
        except (ValueError, json_format.ParseError) as error:
            failures[f"json {name}"] = f"protobuf cannot read Swift's JSON ({error}): {answer['json']}"
        problem = verify(cls, bytes.fromhex(answer["binary"]), expected)
        if problem:
            failures[f"binary {name}"] = problem
    print(json.dumps({"failures": failures}))


def main():
    command, generated_dir = sys.argv[1], sys.argv[2]
    load(generated_dir)
    if command == "emit":
        emit()
    elif command == "check":
        check(sys.argv[3])
    elif command == "emit-json":
        emit_json()
    elif command == "check-json":
        check_json(sys.argv[3])
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
