public import Encodings

/// Which pricing phase a subscription's line item is in (`lineItems[].offerPhase`), or an order paid for
/// (`subscriptionDetails.offerPhaseDetails`, whose members Google names with a `Details` suffix): exactly one of
/// the four is present.
public struct OfferPhase: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case basePrice
        case freeTrial
        case introductoryPrice
        /// A period Google prorated at a plan change (or to align an add-on's renewal with its base).
        case prorationPeriod
    }

    public var kind: Kind?

    public init(kind: Kind? = nil) { self.kind = kind }
}

extension OfferPhase: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readObject { reader, key throws(JSONReadError) in
            let phase: Kind? =
                switch key.text {
                case "basePrice", "baseDetails": .basePrice
                case "freeTrial", "freeTrialDetails": .freeTrial
                case "introductoryPrice", "introductoryPriceDetails": .introductoryPrice
                case "prorationPeriod", "prorationPeriodDetails": .prorationPeriod
                default: nil
                }
            try reader.skipValue()
            if let phase { kind = phase }
        }
    }
}
