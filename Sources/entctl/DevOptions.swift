import AppStore
import JOSE
import ProtobufWire

/// The options of the `dev` commands (local App Store signing, Google Play notifications) and how their values are
/// read.
extension EntctlOptions {
    static let devValueOptions: Set<String> = [
        "--dir", "--product", "--bundle-id", "--type", "--expires", "--original-transaction-id", "--transaction-id",
        "--app-account-token", "--environment", "--purchase-date", "--ownership", "--revocation-date", "--signed-date",
        "--auto-renew", "--auto-renew-product", "--grace-period-expires", "--app-apple-id", "--transaction",
        "--renewal-info", "--tenant", "--package", "--token", "--sku", "--order-id", "--refund-type", "--audience",
        "--email", "--message-id", "--event-time", "--secret", "--object", "--event-id", "--created", "--subscription",
        "--customer", "--price", "--status", "--period-end", "--app-user-id", "--session", "--mode", "--payment-intent",
        "--payment-status", "--invoice", "--charge", "--dispute", "--listen", "--issuer", "--ttl",
    ]
    static let devFlagOptions: Set<String> = [
        "--force", "--billing-retry", "--upgraded", "--livemode", "--cancel-at-period-end", "--partial",
    ]
}

extension CommandArguments {
    /// The value of an option the command cannot do without; it must not be empty.
    func required(_ name: String) throws(UsageError) -> String {
        guard let text = value(name) else { throw UsageError(description: "\(command) needs \(name)") }
        return try nonEmpty(name, text)
    }

    /// The value of an option when given; it must not be empty.
    func optional(_ name: String) throws(UsageError) -> String? {
        guard let text = value(name) else { return nil }
        return try nonEmpty(name, text)
    }

    private func nonEmpty(_ name: String, _ text: String) throws(UsageError) -> String {
        guard !text.isEmpty else { throw UsageError(description: "\(command): \(name) must not be empty") }
        return text
    }

    /// A date in milliseconds since 1970: RFC 3339, or `+30d` / `-1d` (any ``TimeText/parseDuration(_:)`` span) from
    /// `now`.
    func date(_ name: String, now: Int64) throws(UsageError) -> Int64? {
        guard let text = value(name) else { return nil }
        if let sign = text.first, sign == "+" || sign == "-",
            let span = TimeText.parseDuration(String(text.dropFirst()))
        {
            let milliseconds = span.components.seconds * 1000
            return sign == "+" ? now + milliseconds : now - milliseconds
        }
        if let milliseconds = TimeText.parseRFC3339(text)?.unixMilliseconds {
            return milliseconds
        }
        throw UsageError(
            description: "invalid \(name) '\(text)': expected RFC 3339 such as 2030-01-31T12:00:00Z, or a span from "
                + "now such as +30d or -1h")
    }

    /// One of `choices` (by name, case-insensitive).
    func choice<Value>(_ name: String, _ choices: KeyValuePairs<String, Value>) throws(UsageError) -> Value? {
        guard let text = value(name) else { return nil }
        guard let match = choices.first(where: { $0.key.lowercased() == text.lowercased() }) else {
            throw UsageError(
                description: "invalid \(name) '\(text)': expected \(choices.map(\.key).joined(separator: ", "))")
        }
        return match.value
    }

    /// A UUID in its 8-4-4-4-12 hexadecimal form, returned in lowercase (as StoreKit writes `appAccountToken`).
    func uuid(_ name: String) throws(UsageError) -> String? {
        guard let text = value(name) else { return nil }
        let bytes = Array(text.utf8)
        let hyphens: Set<Int> = [8, 13, 18, 23]
        let valid = bytes.count == 36
            && bytes.indices.allSatisfy { index in
                hyphens.contains(index)
                    ? bytes[index] == UInt8(ascii: "-")
                    : Base16.isDigit(bytes[index])
            }
        guard valid else {
            throw UsageError(
                description: "invalid \(name) '\(text)': expected a UUID such as 8e2f3c1a-5b7d-4e9f-a0c2-1d3b5f7a9c4e")
        }
        return text.lowercased()
    }

    /// A compact JWS given as an option, split and decoded (not verified); a payload of `Payload` is read from it.
    func signedPayload<Payload: SignedPayload>(_ name: String, as type: Payload.Type) throws(UsageError)
        -> (token: String, payload: Payload)?
    {
        guard let token = value(name) else { return nil }
        do {
            let jws = try CompactJWS(appStoreToken: token)
            return (token, try Payload(jsonPayload: jws.payload))
        } catch {
            throw UsageError(description: "invalid \(name): \(error.message)")
        }
    }
}

private enum Base16 {
    static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}

/// The names the `dev` commands accept for store values.
enum DevNames {
    static let productTypes: KeyValuePairs<String, ProductType> = [
        "auto-renewable": .autoRenewableSubscription, "non-consumable": .nonConsumable, "consumable": .consumable,
        "non-renewing": .nonRenewingSubscription,
    ]
    static let environments: KeyValuePairs<String, AppStoreEnvironment> = [
        "Sandbox": .sandbox, "Production": .production, "LocalTesting": .localTesting, "Xcode": .xcode,
    ]
    static let ownerships: KeyValuePairs<String, InAppOwnershipType> = [
        "purchased": .purchased, "family-shared": .familyShared,
    ]
    static let switches: KeyValuePairs<String, Bool> = ["on": true, "off": false]
    /// `voidedPurchaseNotification.refundType`.
    static let refundTypes: KeyValuePairs<String, Int> = ["full": 1, "partial": 2]
}
