"""The body of Scripts/benchmark-app-store-api (see there). Not run directly."""
import argparse, hashlib, json, os, secrets, subprocess, sys, tempfile, time, uuid

import jwt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_support import ROOT, build_release, free_port, h2load, machine, wait_for_port  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "Tests", "Interop"))
from fake_app_store_api import AppleSigner, FakeAppStoreAPI, write_key  # noqa: E402

KEY_ID, ISSUER_ID, BUNDLE_ID = "2X9R4HXF34", "57246542-96fe-1a63-e053-0824d011072a", "com.example.app"
ENTCTL = os.path.join(ROOT, ".build/release/entctl")


def transaction(signer, original, transaction_id, now, product="com.example.pro.monthly"):
    return signer.sign({
        "transactionId": transaction_id, "originalTransactionId": original, "bundleId": BUNDLE_ID,
        "productId": product, "purchaseDate": now - 3_600_000, "originalPurchaseDate": now - 3_600_000,
        "expiresDate": now + 30 * 86_400_000, "quantity": 1, "type": "Auto-Renewable Subscription",
        "inAppOwnershipType": "PURCHASED", "signedDate": now, "environment": "Sandbox", "transactionReason": "RENEWAL",
        "storefront": "USA", "storefrontId": "143441", "price": 9990, "currency": "USD"})


def grpc_frame(message: bytes) -> bytes:
    return b"\x00" + len(message).to_bytes(4, "big") + message


def field(number: int, value: bytes) -> bytes:
    return bytes([number << 3 | 2, len(value)]) + value


def entctl(port, key, *args):
    out = subprocess.run([ENTCTL, "--addr", f"127.0.0.1:{port}", "--key", key, "--timeout", "3600", "--json", *args],
                         check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--notifications", type=int, default=5_000)
    parser.add_argument("--requests", type=int, default=5_000, help="Purchase requests per h2load run")
    args = parser.parse_args()

    build_release("entitlementd", "entctl")
    work = tempfile.mkdtemp(prefix="entitlementd-bench-appstore-")
    subprocess.run([ENTCTL, "dev", "init", "--dir", f"{work}/ca"], check=True, stdout=subprocess.DEVNULL)
    signer = AppleSigner(f"{work}/ca")
    key_file = write_key(__import__("pathlib").Path(work) / "SubscriptionKey.p8")
    fake = FakeAppStoreAPI(key_file, KEY_ID, ISSUER_ID, BUNDLE_ID)
    public_key, secret_key = "pk_" + secrets.token_hex(32), "sk_" + secrets.token_hex(32)
    with open(f"{work}/tenants.json", "w") as f:
        json.dump({"tenants": [{
            "id": "bench",
            "public_keys": ["pk_sha256:" + hashlib.sha256(public_key.encode()).hexdigest()],
            "secret_keys": ["sk_sha256:" + hashlib.sha256(secret_key.encode()).hexdigest()],
            "entitlements": ["pro"], "products": {"com.example.pro.monthly": ["pro"]},
            "app_store": {"bundle_id": BUNDLE_ID, "environments": ["Sandbox"], "transfer_policy": "transfer",
                          "root_certificates": [f"{work}/ca/root.pem"],
                          "products": {"com.example.pro.monthly": {"type": "auto_renewable"}},
                          "server_api": {"key_file": str(key_file), "key_id": KEY_ID, "issuer_id": ISSUER_ID,
                                         "production_url": fake.url, "sandbox_url": fake.url,
                                         "reconcile_minutes": 0}}}]}, f)
    port = free_port()
    with open(f"{work}/server.toml", "w") as f:
        f.write(f'[server]\nlisten = "127.0.0.1:{port}"\nlog_level = "warning"\n'
                f'[storage]\ndatabase = "{work}/bench.sqlite"\ntenants = "{work}/tenants.json"\n')
    server = subprocess.Popen([os.path.join(ROOT, ".build/release/entitlementd"), "--config", f"{work}/server.toml"],
                              stdout=subprocess.DEVNULL, stderr=open(f"{work}/server.log", "wb"))
    try:
        wait_for_port(port)
        print(f"machine: {machine()}")
        now = int(time.time() * 1000)

        # 1. Purchase by transaction ID, the same purchase sent again (as an app forwards it at each launch).
        original = "2000000000000001"
        fake.transactions[original] = transaction(signer, original, original, now)
        fake.subscriptions[original] = {"status": 1, "signedTransactionInfo": fake.transactions[original]}
        request = field(1, b"bench-user") + field(2, field(2, original.encode()))
        with open(f"{work}/purchase.bin", "wb") as f:
            f.write(grpc_frame(request))
        url = f"http://127.0.0.1:{port}/entitlements.v1.EntitlementService/Purchase"
        extra = ["-d", f"{work}/purchase.bin", "-H", "content-type: application/grpc", "-H", "te: trailers",
                 "-H", f"authorization: Bearer {public_key}"]
        h2load(url, 500, extra)  # warm up: the first call attaches the purchase
        purchase_rate, purchase_p99, ok = h2load(url, args.requests, extra)
        token = jwt.encode({"iss": ISSUER_ID, "iat": int(time.time()), "exp": int(time.time()) + 1800,
                            "aud": "appstoreconnect-v1", "bid": BUNDLE_ID},
                           open(key_file).read(), algorithm="ES256", headers={"kid": KEY_ID, "typ": "JWT"})
        # A Purchase of a subscription is two calls to Apple: the transaction, then its statuses.
        fake_rate, fake_p99, _ = h2load(f"{fake.url}/inApps/v1/transactions/{original}", args.requests,
                                        ["--h1", "-H", f"authorization: Bearer {token}"])
        print(f"Purchase by transaction ID (a subscription: Get Transaction Info + Get All Subscription Statuses, "
              f"JWS verified, applied): {purchase_rate:,.0f}/s, p99 {purchase_p99:.2f} ms ({ok:,} ok); "
              f"the fake alone, one call: {fake_rate:,.0f}/s, p99 {fake_p99:.2f} ms; "
              f"ours / (fake / 2) = {purchase_rate / (fake_rate / 2):.2f}")

        # 2. Reconciliation: N renewals nobody owns yet, never delivered.
        started = time.monotonic()
        for n in range(args.notifications):
            original = f"3{n:015d}"
            signed = transaction(signer, original, original, now - args.notifications + n)
            fake.add_notification(signer.sign({
                "notificationType": "DID_RENEW", "notificationUUID": str(uuid.uuid4()), "version": "2.0",
                "signedDate": now - args.notifications + n,
                "data": {"bundleId": BUNDLE_ID, "environment": "Sandbox", "signedTransactionInfo": signed}}))
        print(f"signed {args.notifications:,} notifications in {time.monotonic() - started:.1f} s")
        since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now / 1000 - 86_400))
        started = time.monotonic()
        (first,) = entctl(port, secret_key, "appstore", "reconcile", "--since", since)["environments"]
        applied_seconds = time.monotonic() - started
        started = time.monotonic()
        (again,) = entctl(port, secret_key, "appstore", "reconcile", "--since", since)["environments"]
        replay_seconds = time.monotonic() - started
        body = json.dumps({"startDate": now - 86_400_000, "endDate": now + 60_000}).encode()
        started = time.monotonic()
        pages, token_text = 0, None
        import urllib.request
        while True:
            target = fake.url + "/inApps/v1/notifications/history" + (f"?paginationToken={token_text}" if token_text else "")
            req = urllib.request.Request(target, data=body, method="POST", headers={
                "authorization": f"Bearer {token}", "content-type": "application/json"})
            page = json.loads(urllib.request.urlopen(req).read())
            pages += 1
            if not page.get("hasMore"):
                break
            token_text = page["paginationToken"]
        paging_seconds = time.monotonic() - started
        found = first.get("found", 0)
        print(f"reconciliation of {found:,} missed notifications ({first.get('pages', 0)} pages): "
              f"{found / applied_seconds:,.0f}/s applied ({first.get('unowned', 0):,} recorded without an owner); "
              f"replayed, all already applied: {again.get('alreadyProcessed', 0) / replay_seconds:,.0f}/s; "
              f"the fake's paging alone: {found / paging_seconds:,.0f}/s ({pages} pages); "
              f"applied / paging = {paging_seconds / applied_seconds:.2f}")
    finally:
        server.terminate()
        server.wait(timeout=30)
        fake.close()


if __name__ == "__main__":
    main()
