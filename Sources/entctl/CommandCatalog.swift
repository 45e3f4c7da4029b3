/// Every command `entctl` has, grouped as `entctl --help` lists them.
extension CommandHelp {
    static let groups: [CommandGroup] = [
        CommandGroup(
            title: "EntitlementService commands (a public key; the demo one on a loopback address)",
            keyNote: "Key: --key KEY or $ENTCTL_KEY, a public key (pk_...); without either, the demo public key is sent,\n"
                + "to a loopback address (127.0.0.1, ::1, localhost) only.",
            commands: [identify, status, watch, purchase, redeem, restore, offersEligibility, offersSign]),
        CommandGroup(
            title: "AdminService commands (a secret key; the demo one on a loopback address)",
            keyNote: "Key: --key KEY or $ENTCTL_KEY, a secret key (sk_...); without either, the demo secret key is sent,\n"
                + "to a loopback address (127.0.0.1, ::1, localhost) only.",
            commands: [
                grant, revoke, customer, attributes, export, delete, audit, events, customers, count, trust, metrics, find,
                refreshPurchase, redemptionCode, webhooksTest, webhooksList, webhooksRedeliver, appStoreReconcile, appStoreLookup, appStoreExtend, appStoreConsumption,
                appStoreTestNotification, appStoreCheck,
            ]),
        CommandGroup(
            title: "Other commands", keyNote: nil, commands: [health, verifyStatus, genKey, hashKey, genWebhookSecret]),
        CommandGroup(
            title: "Local App Store signing, for development (DIR defaults to \(DevCommands.defaultDirectory), "
                + "the demo tenant's CA)",
            keyNote: nil,
            commands: devCommands),
        CommandGroup(
            title: "Local Google Play notifications, for development (DIR defaults to "
                + "\(DevCommands.defaultPlayDirectory), the repository's development push-signing key)",
            keyNote: nil,
            commands: devPlayCommands),
        CommandGroup(
            title: "Local Stripe webhooks, for development (signed with the demo tenant's endpoint secret unless --secret)",
            keyNote: nil,
            commands: [devStripe]),
        CommandGroup(
            title: "User tokens, for development (signed with the demo tenant's HS256 secret unless --secret)",
            keyNote: nil,
            commands: [devUserToken]),
        CommandGroup(
            title: "A local backend for the tenant's webhooks, for development (the demo endpoint's secret unless --secret)",
            keyNote: nil,
            commands: [devWebhookReceiver]),
    ]

    // MARK: EntitlementService

    static let identify = CommandHelp(
        name: "identify", arguments: "APP_USER_ID [--anonymous-id ID]",
        summary: "resolve or create a customer; prints its status and app account token",
        details: [
            "", "Calls EntitlementService/Identify. The app account token is the UUID the app passes to StoreKit as the",
            "purchase's appAccountToken, so App Store notifications about the purchase reach this customer.",
        ],
        options: [("--anonymous-id ID", "merge this anonymous customer (an ID starting with $anon:) into APP_USER_ID")])

    static let status = CommandHelp(
        name: "status", arguments: "APP_USER_ID",
        summary: "current status, version and active entitlements with their expiry",
        details: ["", "Calls EntitlementService/SyncStatus."])

    static let watch = CommandHelp(
        name: "watch", arguments: "APP_USER_ID [--after-version N]",
        summary: "print each status event as it arrives, until Ctrl-C or the server ends the stream",
        details: ["", "Calls EntitlementService/StreamStatus; the first line is a SNAPSHOT. Ctrl-C exits 0."],
        options: [
            ("--after-version N", "replay the changes after version N instead of a snapshot (a snapshot if they are gone)")
        ])

    static let purchase = CommandHelp(
        name: "purchase", arguments: "APP_USER_ID (SIGNED_TRANSACTION | --transaction-id ID | --play PRODUCT_ID:TOKEN)",
        summary: "attach a StoreKit 2 signed transaction or a Google Play purchase (- reads it from standard input)",
        details: [
            "", "Calls EntitlementService/Purchase: the server verifies the purchase (an App Store signed transaction",
            "itself, a Play purchase token with Google's Play Developer API), stores it and pushes the change.",
            "",
            "  entctl purchase alice \"$T\"                                          # an App Store signed transaction",
            "  entctl purchase alice --play com.example.pro.monthly:\"$PLAY_TOKEN\"  # a Play product and its token",
            "  entctl purchase alice --transaction-id 2000000123456789            # fetched from Apple by the server",
        ],
        options: [
            ("--transaction-id ID", "an App Store transaction ID: the server asks Apple's App Store Server API for it"),
            ("", "(the tenant needs app_store.server_api)"),
            ("--play PRODUCT_ID:TOKEN", "a Google Play purchase: the product ID and its purchase token (TOKEN - reads"),
            ("", "it from standard input)"),
        ])

    static let redeem = CommandHelp(
        name: "redeem", arguments: "APP_USER_ID CODE",
        summary: "attach a web purchase nobody owned, with the redemption code redemption-code issued",
        details: [
            "", "Calls EntitlementService/Purchase with web_redemption: the code is single use; the purchase moves to",
            "APP_USER_ID as the tenant's transfer policy for web purchases allows. After too many failed attempts",
            "by one user ID or from one address, their next attempts wait (RESOURCE_EXHAUSTED says how long).",
            "",
            "  entctl redeem alice rc_...",
        ])

    static let restore = CommandHelp(
        name: "restore",
        arguments: "APP_USER_ID [SIGNED_TRANSACTION...] [--play PRODUCT_ID:TOKEN]... [--history TRANSACTION_ID]...",
        summary: "attach up to 100 purchases of either store; others' purchases move as the tenant's transfer policy says",
        details: [
            "", "Calls EntitlementService/Restore with every purchase the device holds; one result per purchase, the",
            "App Store ones first. - reads a token from standard input. With --history the server reads the",
            "customer's whole App Store transaction history from Apple and attaches the newest state of each purchase.",
            "",
            "  entctl restore alice \"$T1\" \"$T2\" --play com.example.pro.monthly:\"$PLAY_TOKEN\"",
            "  entctl restore alice --history 2000000123456789        # needs the tenant's app_store.server_api",
        ],
        options: [
            ("--play PRODUCT_ID:TOKEN", "a Google Play purchase; repeat it for each"),
            ("--history TRANSACTION_ID", "any App Store transaction ID of the customer (at most 10)"),
        ])

    // MARK: AdminService

    static let grant = CommandHelp(
        name: "grant",
        arguments: "APP_USER_ID ENTITLEMENT [--duration SPAN | --expires-at RFC3339] [--reason TEXT] [--idempotency-key KEY]",
        summary: "grant an entitlement (without --duration or --expires-at it never expires)",
        details: ["", "Calls AdminService/GrantEntitlement."],
        options: [
            ("--duration SPAN", "how long from now: 30d, 12h, 90m or 45s"),
            ("--expires-at RFC3339", "when it ends, such as 2030-01-31T12:00:00Z"),
            ("--reason TEXT", "why, recorded with the grant and its events"),
            ("--idempotency-key KEY", "retrying with the same key returns the first grant instead of a second"),
        ])

    static let revoke = CommandHelp(
        name: "revoke", arguments: "GRANT_ID [--reason TEXT]", summary: "end a grant now",
        details: ["", "Calls AdminService/RevokeGrant with the grant ID that grant printed."],
        options: [("--reason TEXT", "why, recorded with the revocation")])

    static let customer = CommandHelp(
        name: "customer", arguments: "APP_USER_ID",
        summary: "status, aliases, grants, store transactions, attributes and offer signatures",
        details: ["", "Calls AdminService/GetCustomer; revoked grants are listed too."])

    static let attributes = CommandHelp(
        name: "attributes", arguments: "APP_USER_ID [KEY=VALUE ...] [--unset KEY ...] [--app]",
        summary: "set or remove a customer's attributes; without changes, list them",
        details: [
            "", "Calls AdminService/SetCustomerAttributes with the secret key (any key the tenant lets its backend",
            "write), or with --app EntitlementService/SetAttributes with the public key, as an app for its current",
            "user (the tenant's app keys only). Without KEY=VALUE or --unset, lists them (AdminService/GetCustomer).",
            "",
            "  entctl attributes alice '$email=alice@example.com' plan=gold",
            "  entctl attributes alice --unset plan",
        ],
        options: [
            ("--unset KEY", "remove the key; repeat it for each"),
            ("--app", "call as an app with the public key"),
        ])

    static let export = CommandHelp(
        name: "export", arguments: "APP_USER_ID [--output FILE]",
        summary: "everything stored about a customer, as one JSON document",
        details: [
            "", "Calls AdminService/ExportCustomer (a read-only key may) and writes the document (README, \"Exporting a",
            "customer\") to standard output, or to a new FILE only its owner may read. Each export is in the tenant's",
            "audit log (entctl audit).",
        ],
        options: [("--output FILE", "write to FILE, which must not exist yet (created with mode 0600)")])

    static let delete = CommandHelp(
        name: "delete", arguments: "APP_USER_ID --confirm APP_USER_ID",
        summary: "erase a customer and everything that identifies them (cannot be undone)",
        details: [
            "", "Calls AdminService/DeleteCustomer (a key that may write). The purchases stay for the tenant's accounts",
            "without an owner (README, \"Erasing a customer\"); the erasure is in the audit log by the ID's hash.",
        ],
        options: [("--confirm APP_USER_ID", "the same app user ID again")])

    static let audit = CommandHelp(
        name: "audit", arguments: "[--page-size N] [--page-token T] [--all]",
        summary: "the tenant's audit log: exports and erasures of customers, newest first",
        details: ["", "Calls AdminService/ListAuditEvents (a read-only key may)."],
        options: [
            ("--page-size N", "entries per page (default: the server's, 50; at most 500)"),
            ("--page-token T", "the page after the one that printed 'more: --page-token T'"),
            ("--all", "every page from there on"),
        ])

    static let events = CommandHelp(
        name: "events", arguments: "APP_USER_ID [--page-size N] [--page-token T] [--all]",
        summary: "the customer's history, newest first",
        details: ["", "Calls AdminService/ListCustomerEvents; --json prints one object per page."],
        options: [
            ("--page-size N", "events per page (default: the server's)"),
            ("--page-token T", "the page after the one that printed 'more: --page-token T'"),
            ("--all", "every page from there on"),
        ])

    static let customers = CommandHelp(
        name: "customers",
        arguments: "[--entitlement ID] [--store STORE] [--product ID] [--state STATE] [--changed-since T] [--page-size N] [--page-token T] [--all]",
        summary: "the tenant's customers in creation order, filtered by what they hold now",
        details: [
            "", "Calls AdminService/ListCustomers; filters combine, and --entitlement, --store, --product name one",
            "active entitlement. A page token stays valid while customers change. --json prints one object per page.",
            "",
            "  entctl customers --entitlement pro --store APP_STORE --all",
            "  entctl customers --state INACTIVE --changed-since 2030-01-31T12:00:00Z",
        ],
        options: [
            ("--entitlement ID", "holding this entitlement now"),
            ("--store STORE", "holding an active entitlement from APP_STORE, PLAY_STORE, WEB or GRANT"),
            ("--product ID", "holding an active entitlement this store product gives"),
            ("--state STATE", "ACTIVE, INACTIVE, GRACE_PERIOD or BILLING_RETRY"),
            ("--changed-since T", "last changed at or after T (RFC 3339)"),
            ("--page-size N", "customers per page (default: the server's, 100; at most 1000)"),
            ("--page-token T", "the page after the one that printed 'more: --page-token T'"),
            ("--all", "every page from there on"),
        ])

    static let count = CommandHelp(
        name: "count", arguments: "",
        summary: "customers with an active entitlement now, in all and per entitlement, product and store",
        details: ["", "Calls AdminService/CountCustomers; the database counts them from its indexes."])

    static let trust = CommandHelp(
        name: "trust", arguments: "",
        summary: "the tenant's user tokens (mode, the tokens this server judged, by outcome and reason) and status keys",
        details: [
            "", "Calls AdminService/DescribeTrust. The counts are the answering instance's since it started, as its",
            "entitlementd_user_tokens_total series; observe mode's would_refuse lines are who required mode would refuse.",
        ])

    static let metrics = CommandHelp(
        name: "metrics", arguments: "METRIC --from DATE --to DATE",
        summary: "a revenue metric over a range of UTC dates: a table, --csv or --json",
        details: [
            "", "Calls AdminService/GetMetrics (a read-only key may): REVENUE, REFUNDS, NET_REVENUE, PROCEEDS,",
            "NEW_SUBSCRIPTIONS, TRIAL_STARTS, TRIAL_CONVERSIONS, RENEWALS, REFUND_RATE, ACTIVE_SUBSCRIPTIONS,",
            "ACTIVE_TRIALS, MRR, CHURN, REACTIVATIONS, TRIAL_CONVERSION_RATE, GRACE_PERIOD_SUBSCRIPTIONS,",
            "BILLING_RETRY_SUBSCRIPTIONS, GRACE_PERIOD_MRR or BILLING_RETRY_MRR, as the README's \"Metrics\"",
            "defines them; amounts per currency in its units, three decimals. One line per period and group.",
        ],
        options: [
            ("--from DATE, --to DATE", "the range's first and last UTC dates, YYYY-MM-DD, both included"),
            ("--interval I", "DAY (default), WEEK (Monday to Sunday) or MONTH"),
            ("--group-by D", "STORE, PRODUCT, ENTITLEMENT, COUNTRY or OFFER_KIND; repeat for more"),
            ("--store S", "only app_store, play_store or stripe"),
            ("--product ID, --entitlement ID", "only that product, or products giving that entitlement"),
            ("--country CC, --offer-kind K", "only that ISO 3166-1 alpha-2 country, or offer kind (none, free_trial, ...)"),
            ("--environment E", "PRODUCTION (default), SANDBOX, XCODE or LOCAL_TESTING; never mixed"),
            ("--in-reporting-currency", "amounts also in the tenant's reporting currency, with the rates used"),
            ("--csv", "start_date, the groups, currency, value, denominator (a rate's) as CSV"),
        ])

    static let find = CommandHelp(
        name: "find", arguments: "ID",
        summary: "what an app user ID, alias, e-mail address, transaction or order ID, or Stripe ID names",
        details: [
            "", "Calls AdminService/FindCustomers (exact matches, an e-mail address ($email) ignoring case; a read-only",
            "key may). One line per match: the owner",
            "(or 'nobody' for a purchase no customer owns yet), what matched, and the purchase's store and original",
            "transaction ID.",
        ])

    static let refreshPurchase = CommandHelp(
        name: "refresh-purchase", arguments: "TOKEN [--product ID]",
        summary: "fetch a Google Play purchase from Google again and apply it; prints it and whether it changed",
        details: [
            "", "Calls AdminService/RefreshStorePurchase with a Play purchase token: for a notification that never",
            "arrived or a support case. A failed acknowledgement is tried again. Prints changed or unchanged, the",
            "purchase as stored now (acknowledgement, superseded by, replaces) and its owner's status.",
            "",
            "  entctl refresh-purchase \"$PLAY_TOKEN\" --product com.example.pro.monthly",
        ],
        options: [("--product ID", "the Play product ID; needed only when the server does not hold the purchase yet")])

    // MARK: Other

    static let health = CommandHelp(
        name: "health", arguments: "[SERVICE]", summary: "check grpc.health.v1.Health; exits 0 only when SERVING",
        details: [
            "", "SERVICE is the whole server when left out (or \"\"), or the full name of a service it serves, such as",
            "entitlements.v1.EntitlementService; a name it does not serve is NOT_FOUND. Sends no key.",
        ])

    static let verifyStatus = CommandHelp(
        name: "verify-status", arguments: "JWS",
        summary: "check a signed status (signed_status) against the tenant's published keys, as an app would",
        details: [
            "",
            "Verifies the ES256 signature with the key of the token's kid, fetched from the server's",
            "/.well-known/entitlementd/TENANT/jwks.json at --addr (TENANT: --tenant, else the token's tenant claim)",
            "or read from --jwks FILE, then checks exp. Prints the customer, entitlements and validity; exits 0 only",
            "for a status that verifies and has not expired. - reads JWS from standard input.",
            "",
            "  entctl verify-status \"$(entctl status alice --json | jq -r .customer.signedStatus)\"",
        ],
        options: [
            ("--tenant ID", "the tenant that must have signed it (default: the token's tenant claim)"),
            ("--jwks FILE", "the tenant's keys as a JWKS file instead of the server's"),
        ])

    static let genKey = CommandHelp(
        name: "gen-key", arguments: "public|secret",
        summary: "make a new API key and print it with its hash string for the tenants file (offline)",
        details: ["", "The key is shown once: only its hash goes into the tenants file."])

    static let hashKey = CommandHelp(
        name: "hash-key", arguments: "KEY",
        summary: "print the hash string of KEY for the tenants file (offline; - reads KEY from standard input)")

    static let genWebhookSecret = CommandHelp(
        name: "gen-webhook-secret", arguments: "",
        summary: "make a new Standard Webhooks secret (whsec_...) for signing outgoing webhooks (offline)",
        details: [
            "", "Prints whsec_ and the standard base64 of 32 random bytes, the form every Standard Webhooks library takes",
            "(Python: Webhook(secret).verify(body, headers)). The HMAC key is the decoded bytes. --json prints",
            "{\"secret\": ..., \"bytes\": 32}.",
        ])

    static let webhooksTest = CommandHelp(
        name: "webhooks test", arguments: "ENDPOINT_ID",
        summary: "send a signed test delivery to one of the tenant's webhook endpoints; prints how it answered",
        details: [
            "", "Calls AdminService/SendTestWebhook: one delivery of type webhook.test, signed with each of the",
            "endpoint's secrets (Standard Webhooks), sent now, once. Exits 0 only when the endpoint answered 2xx.",
            "",
            "  entctl webhooks test backend",
        ])

    static let webhooksList = CommandHelp(
        name: "webhooks list",
        arguments: "[--endpoint ID] [--user APP_USER_ID] [--state S] [--since T] [--until T] [--page-size N] [--page-token T]",
        summary: "list the webhook delivery log, newest first: state, attempts, last answer, next attempt",
        details: [
            "", "Calls AdminService/ListWebhookDeliveries. --state is pending, delivered, failed or notice (the log's",
            "webhook.exhausted and webhook.disabled entries); --since/--until (RFC 3339) bound when deliveries were made.",
            "",
            "  entctl webhooks list --state failed",
        ])

    static let webhooksRedeliver = CommandHelp(
        name: "webhooks redeliver", arguments: "[DELIVERY_ID] [--endpoint ID] [--since T] [--until T]",
        summary: "send webhook deliveries again with their original webhook-id: one, or every failed one in a range",
        details: [
            "", "Calls AdminService/RedeliverWebhooks. With DELIVERY_ID (from `webhooks list`) that delivery goes again",
            "whatever its state; without, every failed delivery matching --endpoint and --since/--until does. An",
            "endpoint a 410 disabled is enabled again.",
            "",
            "  entctl webhooks redeliver --endpoint backend --since 2030-01-30T00:00:00Z",
        ])

    static let appStoreReconcile = CommandHelp(
        name: "appstore reconcile", arguments: "[--since T] [--until T] [--transaction-id ID]... [--only-failures]",
        summary: "apply the App Store notifications Apple sent that the server never applied (its notification history)",
        details: [
            "", "Calls AdminService/ReconcileAppStore: the server reads the tenant's notification history from Apple's",
            "App Store Server API (every environment the tenant accepts) and applies each notification not applied",
            "before, verified as a delivered one. Without --since, as far back as Apple keeps them (180 days, 30 in",
            "sandbox); with --transaction-id, only those customers' notifications. The server does the same on its",
            "own for failed deliveries, at startup and every app_store.server_api.reconcile_minutes. A long window",
            "takes a while (Apple gives 20 notifications a page): raise --timeout.",
            "",
            "  entctl appstore reconcile --since 2030-01-30T00:00:00Z",
        ],
        options: [
            ("--since T, --until T", "the window of Apple's signed dates, RFC 3339"),
            ("--transaction-id ID", "any App Store transaction ID of a customer; repeat it for each (at most 10)"),
            ("--only-failures", "only notifications Apple failed to deliver or is still retrying"),
        ])

    static let appStoreLookup = CommandHelp(
        name: "appstore lookup", arguments: "ORDER_ID [--reason TEXT]",
        summary: "the App Store transactions behind an order ID from a receipt email, and who holds each here",
        details: [
            "", "Calls AdminService/LookUpOrder (Apple's Look Up Order ID, production only). Each owner gets an audit",
            "event with --reason. Exits 1 when Apple knows no such order.",
            "",
            "  entctl appstore lookup MK5TTTVWJH --reason \"ticket 4711\"",
        ],
        options: [("--reason TEXT", "why, for the audit event")])

    static let appStoreExtend = CommandHelp(
        name: "appstore extend",
        arguments: "ORIGINAL_TRANSACTION_ID --days N [--reason-code CODE] [--request-id ID] [--reason TEXT]",
        summary: "extend an App Store subscription's renewal date with Apple (1 to 90 days, twice a year at most)",
        details: [
            "", "Calls AdminService/ExtendSubscription: the server checks Apple's limits (an active, paid, own",
            "subscription not in billing retry, extended less than twice in 365 days), asks Apple, and applies the new",
            "expiry at once, audited on the owner. Apple emails the customer; it cannot be undone.",
            "",
            "  entctl appstore extend 2000000123456789 --days 7 --reason-code service-issue --reason \"outage\"",
        ],
        options: [
            ("--days N", "1 to 90"),
            ("--reason-code CODE", "undeclared (default), customer-satisfaction, other or service-issue"),
            ("--request-id ID", "Apple's requestIdentifier: the same one retries the same extension (default: new)"),
            ("--reason TEXT", "why, for the audit event"),
        ])

    static let appStoreConsumption = CommandHelp(
        name: "appstore consumption",
        arguments: "TRANSACTION_ID --consented [--delivery STATUS] [--sample] [--consumed PERCENT] [options]",
        summary: "answer Apple's CONSUMPTION_REQUEST for a transaction (within 12 hours, with the customer's consent)",
        details: [
            "", "Calls AdminService/SendConsumptionInfo. Without --delivery the server says delivered when it holds the",
            "purchase for a customer. Audited on the owner.",
            "",
            "  entctl appstore consumption 2000000123456789 --consented --consumed 80 --refund-preference decline",
        ],
        options: [
            ("--consented", "the customer consented to sending it (required)"),
            ("--delivery STATUS", "delivered, undelivered-quality-issue, undelivered-wrong-item,"),
            ("", "undelivered-server-outage or undelivered-other"),
            ("--sample", "a free sample or trial was given before the purchase"),
            ("--consumed PERCENT", "how much was consumed, 0 to 100 (consumables, non-consumables, non-renewing)"),
            ("--refund-preference P", "decline, grant-full or grant-prorated"),
            ("--reason TEXT", "why, for the audit event"),
        ])

    static let appStoreTestNotification = CommandHelp(
        name: "appstore test-notification", arguments: "[--environment ENV] [--wait SECONDS]",
        summary: "have Apple send a TEST notification and wait until it reaches the server",
        details: [
            "", "Calls AdminService/RequestTestNotification, then GetTestNotificationStatus every half second until the",
            "server received it or --wait (default 10) passes; exits 0 only when it arrived.",
        ],
        options: [
            ("--environment ENV", "production or sandbox (default: production when the tenant accepts it)"),
            ("--wait SECONDS", "how long to wait for it"),
        ])

    static let offersEligibility = CommandHelp(
        name: "offers eligibility", arguments: "APP_USER_ID PRODUCT_ID...",
        summary: "which App Store introductory and promotional offers the user may have now",
        details: [
            "", "Calls EntitlementService/GetOfferEligibility, as an app for its user: for each product, whether its",
            "introductory offer is for the user (judged on the user's purchases in every store), and each promotional",
            "offer set up on it (the tenant's app_store.offers) with the rule that refuses it. Signs nothing.",
            "",
            "  entctl offers eligibility alice com.example.pro.monthly",
        ])

    static let offersSign = CommandHelp(
        name: "offers sign", arguments: "APP_USER_ID PRODUCT_ID [--offer ID] [--transaction-id ID] [--app-transaction-id ID]",
        summary: "sign an App Store promotional offer (or introductory offer eligibility) for the user",
        details: [
            "", "Calls EntitlementService/SignOffer, as an app for its user: with --offer, the promotional offer's",
            "StoreKit 1 signature and compact JWS, once the offer's rules pass; without it, the introductory offer",
            "eligibility JWS. Each signature is recorded on the customer (an OFFER_SIGNED event).",
            "",
            "  entctl offers sign alice com.example.pro.monthly --offer winback_50",
        ],
        options: [
            ("--offer ID", "the promotional offer's identifier, as in App Store Connect"),
            ("--transaction-id ID", "one of the user's App Store transactions for the JWS to name (default: the newest)"),
            ("--app-transaction-id ID", "the app's AppTransaction.appTransactionID, named instead"),
        ])

    static let appStoreCheck = CommandHelp(
        name: "appstore check", arguments: "[--tenant ID] [--wait SECONDS]",
        summary: "check the tenant's App Store Server API setup: the key, the bundle ID and the notification URL",
        details: [
            "", "Calls AdminService/CheckAppStoreSetup: in each environment the tenant accepts, an authenticated call",
            "proves the .p8 key, key ID, issuer ID and bundle ID, and a TEST notification that must reach the server",
            "proves the notification URL Apple has. Prints what is wrong in words; exits 0 only when all is well.",
            "",
            "  entctl --key \"$SECRET_KEY\" appstore check --tenant demo",
        ],
        options: [
            ("--tenant ID", "the tenant the key must be of"),
            ("--wait SECONDS", "how long to wait for the test notification (default 10, at most 60)"),
        ])

    static let redemptionCode = CommandHelp(
        name: "redemption-code", arguments: "STRIPE_ID",
        summary: "issue a single-use code for an anonymous web purchase (by checkout session, subscription, customer...)",
        details: [
            "", "Calls AdminService/GetRedemptionCode. STRIPE_ID names the purchase: its Checkout Session (cs_...),",
            "subscription (sub_...), customer (cus_..., the newest purchase nobody owns), invoice (in_...) or payment",
            "intent (pi_...). The code is shown only now (the server keeps its hash) and replaces the purchase's",
            "unused one; it expires after the tenant's stripe.redemption_code_days.",
            "",
            "  entctl redemption-code cs_test_...",
        ])

    // MARK: dev

    /// `entctl dev --help`: the subcommands.
    static let dev = CommandHelp(
        name: "dev",
        arguments:
            "init|sign-transaction|sign-renewal-info|sign-notification|notify|play-key|play-notify|stripe|webhook-receiver "
            + "[options]",
        summary: "sign App Store data, Google Play notifications and Stripe webhooks with local keys, and receive the "
            + "tenant's webhooks, for development",
        details: [""] + columns((devCommands + devPlayCommands + [devStripe, devUserToken, devWebhookReceiver]).map { ($0.name, $0.summary) })
            + [
            "",
            "The signing commands use \(DevCommands.defaultDirectory), the CA the demo tenant trusts for Sandbox, and",
            "play-notify \(DevCommands.defaultPlayDirectory), the repository's development push-signing key, unless --dir",
            "names another (run entctl from the repository root for the defaults).",
        ])

    static let devCommands = [devInit, devSignTransaction, devSignRenewalInfo, devSignNotification, devNotify]

    static let devInit = CommandHelp(
        name: "dev init", arguments: "--dir DIR [--force]",
        summary: "create a local signing CA shaped like Apple's in DIR",
        details: [
            "",
            "DIR gets root.pem, intermediate.pem, leaf.pem and leaf-key.pem. For a tenant to accept what it signs, add",
            "DIR/root.pem to the tenant's app_store.root_certificates in the tenants file (a tenant that accepts",
            "Sandbox or LocalTesting, never Production), reload the server (kill -HUP) and sign with --dir DIR.",
            "Without --dir the signing commands use \(DevCommands.defaultDirectory), the demo tenant's CA.",
        ],
        options: [
            ("--dir DIR", "where to write the CA (required)"),
            ("--force", "replace a CA already in DIR (tenants trusting the old root reject what the new one signs)"),
        ])

    static let devSignTransaction = CommandHelp(
        name: "dev sign-transaction", arguments: "--product ID --bundle-id ID [options]",
        summary: "print a signed App Store transaction",
        details: [
            "",
            "IDs are generated when not given; it is bought when signed unless --purchase-date says otherwise, and an",
            "auto-renewable subscription expires 30 days after the purchase unless --expires says otherwise.",
            "TIME is RFC 3339 (2030-01-31T12:00:00Z) or a span from now (+30d, -1h); dates default to now.",
            "",
            "For the demo tenant (com.example.pro.monthly grants pro):",
            "  entctl dev sign-transaction --product com.example.pro.monthly --bundle-id com.example.app --expires +30d",
        ],
        options: [
            ("--product ID", "the product ID (the demo tenant maps com.example.pro.monthly to pro)"),
            ("--bundle-id ID", "the app's bundle ID (the demo tenant's is com.example.app)"),
            ("--dir DIR", "the signing CA (default \(DevCommands.defaultDirectory))"),
            ("--type TYPE", "auto-renewable (default), non-consumable, consumable or non-renewing"),
            ("--expires TIME", "when a subscription expires"),
            ("--original-transaction-id ID", "the purchase's first transaction, which later renewals share"),
            ("--transaction-id ID", "this transaction"),
            ("--app-account-token UUID", "the token identify printed, to attribute the purchase to its customer"),
            ("--environment ENV", "Sandbox (default), Production, LocalTesting or Xcode"),
            ("--purchase-date TIME", "when it was bought (default: when signed)"),
            ("--ownership WHO", "purchased (default) or family-shared"),
            ("--revocation-date TIME", "when Apple refunded or revoked it"),
            ("--signed-date TIME", "when it was signed (default now)"),
            ("--upgraded", "the user upgraded away from it (it grants nothing)"),
            ("--offer ID", "bought under the promotional offer ID (offerType 2, offerIdentifier ID)"),
        ])

    static let devSignRenewalInfo = CommandHelp(
        name: "dev sign-renewal-info", arguments: "--original-transaction-id ID --product ID [options]",
        summary: "print a signed renewal info",
        details: ["", "TIME is RFC 3339 or a span from now (+30d, -1h)."],
        options: [
            ("--original-transaction-id ID", "the subscription's original transaction ID"),
            ("--product ID", "the product subscribed now"),
            ("--dir DIR", "the signing CA (default \(DevCommands.defaultDirectory))"),
            ("--auto-renew on|off", "whether it renews (default on)"),
            ("--auto-renew-product ID", "the product it renews as (a downgrade waiting for the renewal)"),
            ("--grace-period-expires TIME", "in a billing grace period until TIME (implies --billing-retry)"),
            ("--billing-retry", "Apple is retrying a failed renewal"),
            ("--environment ENV", "Sandbox (default), Production, LocalTesting or Xcode"),
            ("--signed-date TIME", "when it was signed (default now)"),
        ])

    static let notificationOptions: [(String, String)] = [
        ("--bundle-id ID", "the app's bundle ID (default: that of --transaction)"),
        ("--dir DIR", "the signing CA (default \(DevCommands.defaultDirectory))"),
        ("--app-apple-id N", "the app's Apple ID, which Production notifications carry"),
        ("--transaction JWS", "a signed transaction to include (from dev sign-transaction)"),
        ("--renewal-info JWS", "a signed renewal info to include (from dev sign-renewal-info)"),
        ("--environment ENV", "Sandbox, Production, LocalTesting or Xcode (default: that of --transaction)"),
        ("--signed-date TIME", "when it was signed (default now)"),
    ]

    static let devSignNotification = CommandHelp(
        name: "dev sign-notification", arguments: "TYPE [SUBTYPE] [options]",
        summary: "print a signed App Store Server Notification V2 payload",
        details: ["", "TYPE and SUBTYPE are Apple's names, such as DID_RENEW or EXPIRED VOLUNTARY."],
        options: notificationOptions)

    static let devNotify = CommandHelp(
        name: "dev notify", arguments: "TYPE [SUBTYPE] --tenant ID [options]",
        summary: "sign a notification and POST it to the server's App Store webhook",
        details: [
            "",
            "Posts to /v1/apple/notifications/ID at --addr over cleartext HTTP/1.1 and prints the HTTP status and",
            "answer; exits 0 only on a 2xx. Takes the options of dev sign-notification.",
        ],
        options: [("--tenant ID", "the tenant whose webhook it is (the demo tenant's is demo)")] + notificationOptions)

    // MARK: dev (Google Play)

    static let devPlayCommands = [devPlayKey, devPlayNotify]

    static let devUserToken = CommandHelp(
        name: "dev user-token", arguments: "APP_USER_ID [options]",
        summary: "print a user token for APP_USER_ID, signed as a tenant's backend would (HS256)",
        details: [
            "",
            "A JWT with sub APP_USER_ID, aud the tenant, iss, iat, exp and jti, signed with one of the tenant's",
            "user_tokens.hs256_secrets (default: the demo tenant's). Apps send it as the entitlements-user-token",
            "metadata; a tenant whose user_tokens.mode is required refuses app calls without one.",
            "",
            "  entctl dev user-token alice",
            "  entctl status alice --user-token \"$(entctl dev user-token alice)\"",
        ],
        options: [
            ("--tenant ID", "the token's aud (default demo)"),
            ("--secret S", "the HS256 secret (default the demo tenant's, \(DevCommands.demoUserTokenSecret))"),
            ("--issuer ISS", "the token's iss (default \(DevCommands.demoUserTokenIssuer), the demo tenant's)"),
            ("--ttl SECONDS", "how long it is valid (default 600; at most the tenant's max_lifetime_seconds is accepted)"),
        ])

    static let devStripe = CommandHelp(
        name: "dev stripe", arguments: "TYPE --tenant ID [options]",
        summary: "sign a Stripe event and POST it to the server's Stripe webhook",
        details: [
            "",
            "Posts to /v1/stripe/webhooks/ID at --addr over cleartext HTTP/1.1 with a Stripe-Signature made with",
            "--secret (default: the demo tenant's endpoint secret), prints the HTTP status and answer; exits 0 only on",
            "a 2xx. The object is built from the options for customer.subscription.*, checkout.session.*, invoice.*,",
            "charge.refunded and charge.dispute.*; any other TYPE needs --object. TIME is RFC 3339 or a span from now.",
            "",
            "  entctl dev stripe checkout.session.completed --tenant demo --subscription sub_1 --app-user-id alice",
            "  entctl dev stripe customer.subscription.created --tenant demo --subscription sub_1",
            "  entctl dev stripe customer.subscription.updated --tenant demo --subscription sub_1 --cancel-at-period-end",
        ],
        options: [
            ("--tenant ID", "the tenant whose webhook it is (the demo tenant's is demo)"),
            ("--secret WHSEC", "the endpoint secret to sign with (default \(DevCommands.demoWebhookSecret))"),
            ("--object FILE", "the event's data.object as JSON (- reads standard input), instead of the options below"),
            ("--event-id ID", "the event's ID (default a new evt_dev_...); resend one to see duplicates ignored"),
            ("--created TIME", "the event's created time (default now): older events change nothing"),
            ("--livemode", "a live-mode object (default test mode, which the demo tenant accepts)"),
            ("--subscription ID", "the subscription (default a new sub_dev_...); checkout sessions: subscription mode"),
            ("--customer ID", "the Stripe customer (default a new cus_dev_...)"),
            ("--price ID", "the price bought (default \(DevCommands.demoPrice), Pro in the demo tenant)"),
            ("--status STATUS", "subscription status (default active; canceled for .deleted), or dispute status"),
            ("--period-end TIME", "the current period's end (default +30d)"),
            ("--cancel-at-period-end", "the subscription ends at the period's end (will not renew)"),
            ("--app-user-id ID", "the buyer: client_reference_id of a session, metadata.app_user_id of a subscription"),
            ("--session ID", "the Checkout Session ID (default a new cs_test_dev_...)"),
            ("--mode MODE", "payment or subscription (default: subscription with --subscription, else payment)"),
            ("--payment-intent ID", "the payment intent (one-time sessions, invoices, refunds, disputes)"),
            ("--payment-status S", "paid (default), unpaid or no_payment_required"),
            ("--invoice ID", "the invoice (invoice.*; a subscription's latest_invoice)"),
            ("--charge ID", "the charge (charge.refunded, disputes)"),
            ("--dispute ID", "the dispute"),
            ("--partial", "charge.refunded: half the amount, not all"),
        ])

    static let devPlayKey = CommandHelp(
        name: "dev play-key", arguments: "[--dir DIR] [--force]",
        summary: "make an RSA push-signing key and its JWKS, shaped like Google's, in DIR",
        details: [
            "",
            "DIR gets \(DevCommands.PlayKeyFile.signingKey) (mode 0600) and \(DevCommands.PlayKeyFile.keySet). For a tenant to",
            "accept what it signs, set its play_store.notifications.jwks_file to DIR/\(DevCommands.PlayKeyFile.keySet), with the",
            "audience and push_service_account dev play-notify sends (printed), and reload the server (kill -HUP).",
            "Development tenants only: a VOIDED_PURCHASE it signs revokes a purchase without asking Google.",
            "",
            "  entctl dev play-key --dir data/my-play",
        ],
        options: [
            ("--dir DIR", "where to write the key (default \(DevCommands.defaultPlayDirectory), the repository's own)"),
            ("--force", "replace a key already in DIR (tenants trusting the old key set refuse what the new one signs)"),
        ])

    static let devPlayNotify = CommandHelp(
        name: "dev play-notify", arguments: "TYPE --tenant ID --package NAME [options]",
        summary: "POST a Real-time Developer Notification to the server as an authenticated Pub/Sub push",
        details: [
            "",
            "TYPE: a subscription notification by Google's name or number (SUBSCRIPTION_RENEWED, RENEWED or 2; an",
            "unknown number is sent after a warning), ONE_TIME_PRODUCT_PURCHASED or ONE_TIME_PRODUCT_CANCELED (with",
            "--sku), VOIDED_PURCHASE or TEST. Posts to /v1/google/notifications/ID at --addr over cleartext HTTP/1.1",
            "with an RS256 OIDC token signed by DIR's key, prints the HTTP status and answer; exits 0 only on a 2xx.",
            "",
            "  entctl dev play-notify SUBSCRIPTION_RENEWED --tenant demo --package com.example.app --token \"$PLAY_TOKEN\"",
        ],
        options: [
            ("--tenant ID", "the tenant whose endpoint it is"),
            ("--package NAME", "the app's package name (the tenant's play_store.package_name)"),
            ("--token T", "the purchase token (every TYPE but TEST needs one)"),
            ("--sku ID", "the one-time product; with VOIDED_PURCHASE it makes productType 2 (else 1)"),
            ("--order-id ID", "VOIDED_PURCHASE: the voided order (default a new GPA.... ID)"),
            ("--refund-type full|partial", "VOIDED_PURCHASE: refundType 1 (default) or 2"),
            ("--audience URL", "the token's aud (default http://ADDR/v1/google/notifications/ID)"),
            ("--email ADDR", "the token's email (default \(DevCommands.defaultPushEmail))"),
            ("--dir DIR", "the push-signing key (default \(DevCommands.defaultPlayDirectory))"),
            ("--message-id ID", "the Pub/Sub messageId, the server's deduplication key (default a new one)"),
            ("--event-time TIME", "eventTimeMillis: RFC 3339 or a span from now (+30d, -1h); default now"),
        ])

    static let devWebhookReceiver = CommandHelp(
        name: "dev webhook-receiver", arguments: "[--listen HOST:PORT] [--secret WHSEC]",
        summary: "receive the server's webhook deliveries, check their signatures and print them",
        details: [
            "",
            "Stands in for the tenant's backend: takes POST \(DevCommands.receiverPath) on HOST:PORT, checks each",
            "delivery's Standard Webhooks signature (webhook-id, webhook-timestamp within 5 minutes, a v1 signature",
            "made with --secret) and prints one line per delivery (--json: one object with the body as sent). A",
            "delivery whose signature holds is answered 204; any other 401, which the server retries. Ctrl-C stops it.",
            "The demo tenant's endpoint demo-backend points here:",
            "http://\(DevCommands.defaultReceiverAddress)\(DevCommands.receiverPath).",
            "",
            "  entctl dev webhook-receiver &",
            "  entctl webhooks test demo-backend",
        ],
        options: [
            ("--listen HOST:PORT", "where to listen (default \(DevCommands.defaultReceiverAddress))"),
            ("--secret WHSEC", "the endpoint's secret (default the demo endpoint's, \(DevCommands.demoEndpointSecret))"),
        ])
}
