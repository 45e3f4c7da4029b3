/// A Stripe event as a webhook delivers it: which object changed, when, in which mode. `data.object` is a snapshot
/// rendered at event time, possibly stale when it arrives (events come in any order, more than once), so it is read
/// as "this object changed" and decoded by its `object` kind.
public struct StripeEvent: Decodable, Sendable {
    public struct Data: Decodable, Sendable {
        public var object: StripeObject
    }

    /// `evt_...`: deliveries are deduplicated on it.
    public var id: String
    public var type: String
    /// Seconds since 1970: the ordering clock of events about one object.
    public var created: Int64
    public var livemode: Bool?
    public var apiVersion: String?
    public var data: Data

    enum CodingKeys: String, CodingKey {
        case id, type, created, livemode, data
        case apiVersion = "api_version"
    }
}

/// The object an event carries, by its `object` field: the kinds this service reads, or another one (kept by name).
public enum StripeObject: Decodable, Sendable {
    case subscription(StripeSubscription)
    case checkoutSession(StripeCheckoutSession)
    case invoice(StripeInvoice)
    case charge(StripeCharge)
    case dispute(StripeDispute)
    case other(kind: String)

    private enum Kind: String, CodingKey { case object }

    public init(from decoder: any Decoder) throws {
        let kind = try decoder.container(keyedBy: Kind.self).decode(String.self, forKey: .object)
        switch kind {
        case "subscription": self = .subscription(try StripeSubscription(from: decoder))
        case "checkout.session": self = .checkoutSession(try StripeCheckoutSession(from: decoder))
        case "invoice": self = .invoice(try StripeInvoice(from: decoder))
        case "charge": self = .charge(try StripeCharge(from: decoder))
        case "dispute": self = .dispute(try StripeDispute(from: decoder))
        default: self = .other(kind: kind)
        }
    }
}

/// A field that holds an object's ID, or the object itself when the request expanded it (`"customer": "cus_1"` or
/// `"customer": {"id": "cus_1", ...}`): the ID either way.
public struct StripeID: Decodable, Sendable, Hashable {
    public var id: String

    public init(_ id: String) { self.id = id }

    private enum Keys: String, CodingKey { case id }

    public init(from decoder: any Decoder) throws {
        if let id = try? decoder.singleValueContainer().decode(String.self) {
            self.id = id
        } else {
            id = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .id)
        }
    }
}
