import AppStore
import CivilCalendar
import Crypto
import Encodings
import FileAccess
import Foundation
import GooglePlay
import JOSE
import ProtobufWire

/// `dev play-key` and `dev play-notify`: Google Play Real-time Developer Notifications as Pub/Sub pushes them, signed
/// by a local key shaped like Google's push-signing keys. A tenant whose `play_store.notifications.jwks_file` is the
/// key's JWKS verifies them exactly like Google's (signature, issuer, audience, service account, expiry).
extension DevCommands {
    /// The key `dev play-notify` signs with without `--dir`: the development key committed to the repository, for the
    /// demo tenant (relative, as ``defaultDirectory`` is).
    static let defaultPlayDirectory = "Config/dev-play"

    enum PlayKeyFile {
        /// The RSA-2048 private key, PEM (PKCS #8).
        static let signingKey = "push-signing-key.pem"
        /// Its public key as a JSON Web Key Set, which a tenant's `jwks_file` names.
        static let keySet = "push-jwks.json"
    }

    /// The `email` claim without `--email`: the push service account a development tenant names.
    static let defaultPushEmail = "dev-rtdn@entitlementd.local"
    /// The push token's `sub` and `azp`: Google puts the service account's numeric unique ID in both.
    static let pushSubject = "104857600421337000042"
    static let pubSubSubscription = "projects/entitlementd-dev/subscriptions/rtdn"
    static let googleIssuer = "https://accounts.google.com"
    /// Pub/Sub's push tokens last an hour.
    static let pushTokenLifetime = Seconds.perHour

    /// `/v1/google/notifications/TENANT`, where a tenant's pushes go.
    static func playNotificationsPath(_ tenant: String) -> String { "/v1/google/notifications/\(tenant)" }

    /// The audience a push subscription sends by default: the endpoint's URL, here at `--addr`.
    func defaultAudience(tenant: String) -> String { "http://\(address)\(Self.playNotificationsPath(tenant))" }

    // MARK: - play-key

    /// `dev play-key [--dir DIR] [--force]`: a new RSA-2048 push-signing key and its JWKS in DIR (default
    /// ``defaultPlayDirectory``); refuses to replace either file without `--force`.
    func playKey() throws -> Int32 {
        try arguments.check(positionals: [], options: ["--dir", "--force"])
        let directory = try arguments.optional("--dir") ?? Self.defaultPlayDirectory
        let keyPath = Self.path(directory, PlayKeyFile.signingKey)
        let keySetPath = Self.path(directory, PlayKeyFile.keySet)
        if let existing = [keyPath, keySetPath].first(where: { FileManager.default.fileExists(atPath: $0) }),
            !arguments.flag("--force")
        {
            throw Failure(
                description: "\(existing) exists: \(directory) already holds a push-signing key. Pass --force to "
                    + "replace it (tenants whose jwks_file is the old key set will refuse what the new key signs).")
        }
        let key: RSA.PrivateKey
        do {
            key = try RSA.PrivateKey(bits: 2048)
        } catch {
            throw Failure(description: "cannot make an RSA key: \(error.message)")
        }
        let kid = "entctl-dev-" + SecureRandom.hex(4)
        let keySet = JSONWebKeySet(keys: [kid: key.publicKey]).jsonRepresentation + Array("\n".utf8)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for (path, bytes, mode) in [
                (keyPath, Array(key.pemRepresentation.utf8), 0o600), (keySetPath, keySet, 0o644),
            ] {
                try? FileManager.default.removeItem(atPath: path)
                guard FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: mode])
                else { throw Failure(description: "cannot write \(path)") }
            }
        } catch let error as Failure {
            throw error
        } catch {
            throw Failure(description: "cannot write the push-signing key in \(directory): \(error)")
        }
        let audience = defaultAudience(tenant: "TENANT")
        let snippet = JSONValue.object([
            ("audience", .string(audience)), ("push_service_account", .string(Self.defaultPushEmail)),
            ("jwks_file", .string(Self.absolute(keySetPath))),
        ]).text
        printer.print(
            JSONValue.object([
                ("dir", .string(Self.absolute(directory))), ("signingKey", .string(Self.absolute(keyPath))),
                ("jwks", .string(Self.absolute(keySetPath))), ("kid", .string(kid)),
            ]),
            human: [
                "signing key: \(Self.absolute(keyPath)) (kid \(kid))",
                "key set:     \(Self.absolute(keySetPath))",
                "To use it, set the tenant's \"play_store\" \"notifications\" in the tenants file to",
                "  " + snippet,
                "(jwks_file absolute or relative to the tenants file; the audience and account are what dev play-notify",
                "sends by default), reload the server (kill -HUP) and post with --dir \(directory). Trust it only in a",
                "tenant for development: whoever holds the signing key can push notifications the tenant accepts, and a",
                "VOIDED_PURCHASE revokes a purchase without asking Google.",
            ])
        return 0
    }

    // MARK: - play-notify

    /// What a Real-time Developer Notification is about.
    enum PlayNotificationKind: Equatable {
        /// `subscriptionNotification` with this `notificationType`.
        case subscription(Int)
        /// `oneTimeProductNotification`: 1 purchased, 2 canceled.
        case oneTimeProduct(Int)
        case voidedPurchase
        case test

        var name: String {
            switch self {
            case .subscription(let type):
                SubscriptionNotificationType(rawValue: type)?.name ?? "subscription notification type \(type)"
            case .oneTimeProduct(let type): type == 2 ? "ONE_TIME_PRODUCT_CANCELED" : "ONE_TIME_PRODUCT_PURCHASED"
            case .voidedPurchase: "VOIDED_PURCHASE"
            case .test: "TEST"
            }
        }
    }

    /// TYPE: a subscription notification by Google's name (`SUBSCRIPTION_RENEWED`, or `RENEWED`) or number, any case;
    /// `ONE_TIME_PRODUCT_PURCHASED`, `ONE_TIME_PRODUCT_CANCELED`, `VOIDED_PURCHASE` or `TEST`. A number Google does
    /// not document is sent as given, after a warning: the server must cope with types added later.
    static func playNotificationKind(_ text: String) throws(UsageError) -> PlayNotificationKind {
        let name = text.uppercased()
        if !name.isEmpty, name.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            guard let number = Int32(name).map(Int.init) else {
                throw UsageError(description: "invalid TYPE '\(text)': a notification type number is at most \(Int32.max)")
            }
            if SubscriptionNotificationType(rawValue: number) == nil {
                warn("subscription notification type \(number) is not one Google documents; sending it as given")
            }
            return .subscription(number)
        }
        switch name {
        case "TEST", "TEST_NOTIFICATION": return .test
        case "ONE_TIME_PRODUCT_PURCHASED": return .oneTimeProduct(1)
        case "ONE_TIME_PRODUCT_CANCELED": return .oneTimeProduct(2)
        case "VOIDED_PURCHASE": return .voidedPurchase
        default: break
        }
        let full = name.hasPrefix("SUBSCRIPTION_") ? name : "SUBSCRIPTION_" + name
        if let type = SubscriptionNotificationType.allCases.first(where: { $0.name == full }) {
            return .subscription(type.rawValue)
        }
        throw UsageError(
            description: "unknown TYPE '\(text)': expected a subscription notification such as SUBSCRIPTION_RENEWED "
                + "(or RENEWED, or its number), ONE_TIME_PRODUCT_PURCHASED, ONE_TIME_PRODUCT_CANCELED, VOIDED_PURCHASE "
                + "or TEST")
    }

    static let playNotifyOptions: Set<String> = [
        "--tenant", "--package", "--token", "--sku", "--order-id", "--refund-type", "--audience", "--email", "--dir",
        "--message-id", "--event-time",
    ]

    /// `dev play-notify TYPE --tenant ID --package NAME [options]`: a Developer Notification in a Pub/Sub push
    /// envelope, with the OIDC token Pub/Sub would send, posted to `/v1/google/notifications/ID` at `--addr`.
    func playNotify() async throws -> Int32 {
        try arguments.check(positionals: ["TYPE"], options: Self.playNotifyOptions)
        let kind = try Self.playNotificationKind(arguments.positionals[0])
        let tenant = try arguments.required("--tenant")
        let package = try arguments.required("--package")
        let now = LocalPayloads.nowMilliseconds()
        let notification = try playNotification(kind, package: package, eventTime: try arguments.date("--event-time", now: now) ?? now)
        let messageID = try arguments.optional("--message-id") ?? Self.digits(16)
        let audience = try arguments.optional("--audience") ?? defaultAudience(tenant: tenant)
        let email = try arguments.optional("--email") ?? Self.defaultPushEmail
        let (key, kid) = try pushSigningKey()
        let envelope = Self.pushEnvelope(data: Array(notification.text.utf8), messageID: messageID, publishedAt: now)
        let token = try Self.pushToken(audience: audience, email: email, now: now / 1000, key: key, kid: kid)
        return try await postAndPrint(
            Array(envelope.text.utf8), path: Self.playNotificationsPath(tenant),
            headers: [("authorization", "Bearer \(token)")])
    }

    /// The Developer Notification: `version`, `packageName`, `eventTimeMillis` (a string, as Google sends it), then
    /// the one notification TYPE names. Checks that the options given apply to it.
    private func playNotification(_ kind: PlayNotificationKind, package: String, eventTime: Int64) throws(UsageError)
        -> JSONValue
    {
        func refuse(_ option: String, _ applies: String) throws(UsageError) {
            if arguments.value(option) != nil {
                throw UsageError(
                    description: "\(arguments.command): \(option) does not apply to \(kind.name) (only to \(applies))")
            }
        }
        if kind != .voidedPurchase {
            try refuse("--order-id", "VOIDED_PURCHASE")
            try refuse("--refund-type", "VOIDED_PURCHASE")
        }
        var members: [(String, JSONValue)] = [
            ("version", .string("1.0")), ("packageName", .string(package)), ("eventTimeMillis", .string(String(eventTime))),
        ]
        switch kind {
        case .test:
            try refuse("--token", "purchase notifications")
            try refuse("--sku", "ONE_TIME_PRODUCT_* and VOIDED_PURCHASE")
            members.append(("testNotification", .object([("version", .string("1.0"))])))
        case .subscription(let type):
            try refuse("--sku", "ONE_TIME_PRODUCT_* and VOIDED_PURCHASE")
            members.append((
                "subscriptionNotification",
                .object([
                    ("version", .string("1.0")), ("notificationType", .number(String(type))),
                    ("purchaseToken", .string(try arguments.required("--token"))),
                ])
            ))
        case .oneTimeProduct(let type):
            let token = try arguments.required("--token")
            members.append((
                "oneTimeProductNotification",
                .object([
                    ("version", .string("1.0")), ("notificationType", .number(String(type))),
                    ("purchaseToken", .string(token)), ("sku", .string(try arguments.required("--sku"))),
                ])
            ))
        case .voidedPurchase:
            let token = try arguments.required("--token")
            // The notification names no product, only whether it was a subscription (1) or a one-time product (2).
            let productType = try arguments.optional("--sku") == nil ? 1 : 2
            let refundType = try arguments.choice("--refund-type", DevNames.refundTypes) ?? 1
            members.append((
                "voidedPurchaseNotification",
                .object([
                    ("purchaseToken", .string(token)),
                    ("orderId", .string(try arguments.optional("--order-id") ?? Self.orderID())),
                    ("productType", .number(String(productType))), ("refundType", .number(String(refundType))),
                ])
            ))
        }
        return .object(members)
    }

    /// The body of a Pub/Sub push as Pub/Sub writes it: the data in base64, the message ID and publish time under
    /// both the camelCase and the older snake_case names, no `attributes` (a message without any has none).
    static func pushEnvelope(data: [UInt8], messageID: String, publishedAt milliseconds: Int64) -> JSONValue {
        let published = TimeText.rfc3339(
            ProtoTimestamp(seconds: milliseconds / 1000, nanos: Int32(milliseconds % 1000) * 1_000_000))
        return .object([
            (
                "message",
                .object([
                    ("data", .string(Base64.encode(data, padded: true))), ("messageId", .string(messageID)),
                    ("message_id", .string(messageID)), ("publishTime", .string(published)),
                    ("publish_time", .string(published)),
                ])
            ),
            ("subscription", .string(pubSubSubscription)),
        ])
    }

    /// The OIDC token Pub/Sub puts in `Authorization: Bearer`: RS256 with the key's `kid`, Google's claims in
    /// Google's order. `now` in seconds.
    static func pushToken(audience: String, email: String, now: Int64, key: RSA.PrivateKey, kid: String) throws -> String {
        let header = JSONValue.object([("alg", .string("RS256")), ("kid", .string(kid)), ("typ", .string("JWT"))])
        let claims = JSONValue.object([
            ("aud", .string(audience)), ("azp", .string(pushSubject)), ("email", .string(email)),
            ("email_verified", .bool(true)), ("exp", .number(String(now + pushTokenLifetime))),
            ("iat", .number(String(now))), ("iss", .string(googleIssuer)), ("sub", .string(pushSubject)),
        ])
        do {
            return try JWSSigning.sign(headerJSON: Array(header.text.utf8), payload: Array(claims.text.utf8), key: key)
        } catch {
            throw Failure(description: "cannot sign the push token: \(error.message)")
        }
    }

    /// The key in `--dir` and the `kid` its JWKS gives it.
    private func pushSigningKey() throws -> (RSA.PrivateKey, String) {
        let directory = try arguments.optional("--dir") ?? Self.defaultPlayDirectory
        let keyPath = Self.path(directory, PlayKeyFile.signingKey)
        let keySetPath = Self.path(directory, PlayKeyFile.keySet)
        guard FileManager.default.fileExists(atPath: keyPath) else {
            if arguments.value("--dir") == nil {
                throw Failure(
                    description: "no push-signing key in \(directory) (the repository's, used without --dir): run entctl "
                        + "from the repository root, or pass --dir DIR with a key made by `entctl dev play-key --dir DIR`")
            }
            throw Failure(
                description: "no push-signing key in \(directory): create one with `entctl dev play-key --dir \(directory)`")
        }
        let key: RSA.PrivateKey
        let keySet: JSONWebKeySet
        do {
            key = try RSA.PrivateKey(pemRepresentation: String(decoding: try read(keyPath), as: UTF8.self))
        } catch let error as CryptoError {
            throw Failure(description: "\(keyPath) is not an RSA private key: \(error.message)")
        }
        do {
            keySet = try JSONWebKeySet(json: try read(keySetPath))
        } catch let error as JOSEError {
            throw Failure(description: "\(keySetPath) is not a JSON Web Key Set: \(error.message)")
        }
        guard let kid = keySet.keys.first(where: { $0.value == key.publicKey })?.key else {
            throw Failure(
                description: "\(keySetPath) has no key for \(keyPath): make both again with `entctl dev play-key --dir "
                    + "\(directory) --force`")
        }
        return (key, kid)
    }

    private func read(_ path: String) throws -> [UInt8] {
        switch FileSystem.readFile(path) {
        case .success(let bytes): return bytes
        case .failure(let error): throw Failure(description: "cannot read \(path): \(error.reason)")
        }
    }

    /// A Google-style order ID: `GPA.` and four groups of digits.
    static func orderID() -> String { "GPA.\(digits(4))-\(digits(4))-\(digits(4))-\(digits(5))" }

    /// `count` random decimal digits, the first not 0 (Pub/Sub message IDs are such numbers).
    static func digits(_ count: Int) -> String {
        String(Int.random(in: 1...9)) + (1..<count).map { _ in String(Int.random(in: 0...9)) }.joined()
    }
}
