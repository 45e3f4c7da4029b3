public import Encodings

/// A Stripe event as a webhook delivers it: which object changed, when, in which mode. `data.object` is a snapshot
/// rendered at event time, possibly stale when it arrives (events come in any order, more than once), so it is read
/// as "this object changed" and decoded by its `object` kind.
public struct StripeEvent: Sendable {
    public struct Data: Sendable {
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
}

extension StripeEvent: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init(id: "", type: "", created: 0, data: Data(object: .other(kind: "")))
        try reader.readMembers(into: &self, [
            .required("id", \.id), .required("type", \.type), .required("created", \.created),
            .optional("livemode", \.livemode), .optional("api_version", \.apiVersion), .required("data", \.data),
        ])
    }
}

extension StripeEvent.Data: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init(object: .other(kind: ""))
        try reader.readMembers(into: &self, [.required("object", \.object)])
    }
}

/// The object an event carries, by its `object` field: the kinds this service reads, or another one (kept by name).
public enum StripeObject: Sendable, JSONReadable {
    case subscription(StripeSubscription)
    case checkoutSession(StripeCheckoutSession)
    case invoice(StripeInvoice)
    case charge(StripeCharge)
    case dispute(StripeDispute)
    case other(kind: String)

    public init(json reader: inout JSONReader) throws(JSONReadError) {
        // The kind may come after the members it decides how to read: a copy of the reader looks ahead for it.
        var lookahead = reader
        var kind: String?
        try lookahead.readObject { reader, key throws(JSONReadError) in
            if key == "object" { kind = try reader.optional(String.self) } else { try reader.skipValue() }
        }
        switch kind {
        case "subscription": self = .subscription(try StripeSubscription(json: &reader))
        case "checkout.session": self = .checkoutSession(try StripeCheckoutSession(json: &reader))
        case "invoice": self = .invoice(try StripeInvoice(json: &reader))
        case "charge": self = .charge(try StripeCharge(json: &reader))
        case "dispute": self = .dispute(try StripeDispute(json: &reader))
        case let kind?:
            reader = lookahead
            self = .other(kind: kind)
        case nil: throw .missing("object")
        }
    }
}

/// A field that holds an object's ID, or the object itself when the request expanded it (`"customer": "cus_1"` or
/// `"customer": {"id": "cus_1", ...}`): the ID either way.
public struct StripeID: Sendable, Hashable, JSONReadable {
    public var id: String

    public init(_ id: String) { self.id = id }

    public init(json reader: inout JSONReader) throws(JSONReadError) {
        let value = try JSONValue(json: &reader)
        if let id = value.string {
            self.id = id
        } else if case .object = value {
            guard let id = value["id"]?.string else { throw .missing("id") }
            self.id = id
        } else {
            throw JSONReadError(problem: "expected an ID or an object with one")
        }
    }
}
