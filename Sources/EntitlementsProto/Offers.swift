public import ProtobufWire

/// `entitlements.v1.GetOfferEligibilityRequest`.
public struct GetOfferEligibilityRequest: ProtoMessage {
    public var appUserID = ""
    public var productIDs: [String] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(appUserID: String, productIDs: [String]) {
        self.appUserID = appUserID
        self.productIDs = productIDs
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: appUserID = try reader.decodeString(tag)
            case 2: productIDs.append(try reader.decodeString(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, appUserID)
        writer.writeRepeatedStrings(2, productIDs)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.GetOfferEligibilityResponse`.
public struct GetOfferEligibilityResponse: ProtoMessage {
    public var introductoryOffers: [IntroductoryOfferEligibility] = []
    public var promotionalOffers: [PromotionalOfferEligibility] = []
    public var appUserID = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: introductoryOffers.append(try reader.decodeMessage(tag))
            case 2: promotionalOffers.append(try reader.decodeMessage(tag))
            case 3: appUserID = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeRepeatedMessages(1, introductoryOffers)
        writer.writeRepeatedMessages(2, promotionalOffers)
        writer.writeString(3, appUserID)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.IntroductoryOfferEligibility`.
public struct IntroductoryOfferEligibility: ProtoMessage {
    /// `entitlements.v1.IntroductoryOfferEligibility.Reason`.
    public struct Reason: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = Self(rawValue: 0)
        public static let neverSubscribed = Self(rawValue: 1)
        public static let noHistory = Self(rawValue: 2)
        public static let subscribedBefore = Self(rawValue: 3)
    }

    public var productID = ""
    public var eligible = false
    public var reason = Reason.unspecified
    public var subscribedStore = Store.unspecified
    public var subscribedProductID = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: productID = try reader.decodeString(tag)
            case 2: eligible = try reader.decodeBool(tag)
            case 3: reason = try reader.decodeEnum(tag)
            case 4: subscribedStore = try reader.decodeEnum(tag)
            case 5: subscribedProductID = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, productID)
        writer.writeBool(2, eligible)
        writer.writeEnum(3, reason)
        writer.writeEnum(4, subscribedStore)
        writer.writeString(5, subscribedProductID)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.PromotionalOfferEligibility`.
public struct PromotionalOfferEligibility: ProtoMessage {
    public var offerID = ""
    public var productID = ""
    public var eligible = false
    public var refusedRule = ""
    public var message = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: offerID = try reader.decodeString(tag)
            case 2: productID = try reader.decodeString(tag)
            case 3: eligible = try reader.decodeBool(tag)
            case 4: refusedRule = try reader.decodeString(tag)
            case 5: message = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, offerID)
        writer.writeString(2, productID)
        writer.writeBool(3, eligible)
        writer.writeString(4, refusedRule)
        writer.writeString(5, message)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.SignOfferRequest`.
public struct SignOfferRequest: ProtoMessage {
    public var appUserID = ""
    public var productID = ""
    public var offerID = ""
    public var transactionID = ""
    public var appTransactionID = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(appUserID: String, productID: String, offerID: String = "", transactionID: String = "", appTransactionID: String = "") {
        self.appUserID = appUserID
        self.productID = productID
        self.offerID = offerID
        self.transactionID = transactionID
        self.appTransactionID = appTransactionID
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: appUserID = try reader.decodeString(tag)
            case 2: productID = try reader.decodeString(tag)
            case 3: offerID = try reader.decodeString(tag)
            case 4: transactionID = try reader.decodeString(tag)
            case 5: appTransactionID = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, appUserID)
        writer.writeString(2, productID)
        writer.writeString(3, offerID)
        writer.writeString(4, transactionID)
        writer.writeString(5, appTransactionID)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.SignOfferResponse`.
public struct SignOfferResponse: ProtoMessage {
    public var appUserID = ""
    public var productID = ""
    public var offerID = ""
    public var keyID = ""
    public var nonce = ""
    public var timestamp: Int64 = 0
    public var signature = ""
    public var appAccountToken = ""
    public var compactJWS = ""
    public var introductoryOfferAllowed = false
    public var transactionID = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: appUserID = try reader.decodeString(tag)
            case 2: productID = try reader.decodeString(tag)
            case 3: offerID = try reader.decodeString(tag)
            case 4: keyID = try reader.decodeString(tag)
            case 5: nonce = try reader.decodeString(tag)
            case 6: timestamp = try reader.decodeInt64(tag)
            case 7: signature = try reader.decodeString(tag)
            case 8: appAccountToken = try reader.decodeString(tag)
            case 9: compactJWS = try reader.decodeString(tag)
            case 10: introductoryOfferAllowed = try reader.decodeBool(tag)
            case 11: transactionID = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, appUserID)
        writer.writeString(2, productID)
        writer.writeString(3, offerID)
        writer.writeString(4, keyID)
        writer.writeString(5, nonce)
        writer.writeInt64(6, timestamp)
        writer.writeString(7, signature)
        writer.writeString(8, appAccountToken)
        writer.writeString(9, compactJWS)
        writer.writeBool(10, introductoryOfferAllowed)
        writer.writeString(11, transactionID)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.OfferSignature`: one offer signature made for a customer (GetCustomer).
public struct OfferSignature: ProtoMessage {
    public var offerID = ""
    public var productID = ""
    public var nonce = ""
    public var signedAt: ProtoTimestamp?
    public var redeemedTransactionID = ""
    public var redeemedAt: ProtoTimestamp?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: offerID = try reader.decodeString(tag)
            case 2: productID = try reader.decodeString(tag)
            case 3: nonce = try reader.decodeString(tag)
            case 4: signedAt = try reader.decodeMessage(tag)
            case 5: redeemedTransactionID = try reader.decodeString(tag)
            case 6: redeemedAt = try reader.decodeMessage(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, offerID)
        writer.writeString(2, productID)
        writer.writeString(3, nonce)
        writer.writeMessage(4, signedAt)
        writer.writeString(5, redeemedTransactionID)
        writer.writeMessage(6, redeemedAt)
        writer.writeRaw(unknownFields)
    }
}
