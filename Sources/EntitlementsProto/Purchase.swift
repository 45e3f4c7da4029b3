public import ProtobufWire

/// `entitlements.v1.PurchaseRequest`: one store purchase to verify and attach.
public struct PurchaseRequest: ProtoMessage {
    /// The `purchase` oneof: the store's proof of purchase.
    public enum Purchase: Sendable, Hashable {
        case appStore(AppStorePurchase)
        case playStore(PlayStorePurchase)
        case webRedemption(WebRedemption)
    }

    public var appUserID = ""
    /// `nil` when the client set neither case (an invalid request).
    public var purchase: Purchase?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(appUserID: String = "", purchase: Purchase? = nil) {
        self.appUserID = appUserID
        self.purchase = purchase
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: appUserID = try reader.decodeString(tag)
            case 2: purchase = .appStore(try reader.decodeMessage(tag))
            case 3: purchase = .playStore(try reader.decodeMessage(tag))
            case 4: purchase = .webRedemption(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, appUserID)
        switch purchase {
        case .appStore(let appStore)?: writer.writeMessage(2, appStore)
        case .playStore(let playStore)?: writer.writeMessage(3, playStore)
        case .webRedemption(let redemption)?: writer.writeMessage(4, redemption)
        case nil: break
        }
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.AppStorePurchase`: proof of an App Store purchase.
public struct AppStorePurchase: ProtoMessage {
    /// StoreKit 2 JWS transaction, verified by the server.
    public var signedTransaction = ""
    /// Or only its transaction ID, looked up with Apple's App Store Server API.
    public var transactionID = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(signedTransaction: String = "", transactionID: String = "") {
        self.signedTransaction = signedTransaction
        self.transactionID = transactionID
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: signedTransaction = try reader.decodeString(tag)
            case 2: transactionID = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, signedTransaction)
        writer.writeString(2, transactionID)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.PlayStorePurchase`: proof of a Google Play purchase.
public struct PlayStorePurchase: ProtoMessage {
    public var productID = ""
    public var purchaseToken = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(productID: String = "", purchaseToken: String = "") {
        self.productID = productID
        self.purchaseToken = purchaseToken
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: productID = try reader.decodeString(tag)
            case 2: purchaseToken = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, productID)
        writer.writeString(2, purchaseToken)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.PurchaseResponse`.
public struct PurchaseResponse: ProtoMessage {
    public var customer: CustomerStatus?
    /// The customer the purchase was moved away from; empty if it was not transferred.
    public var transferredFromAppUserID = ""
    public var result: PurchaseResult?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(customer: CustomerStatus? = nil, transferredFromAppUserID: String = "", result: PurchaseResult? = nil) {
        self.customer = customer
        self.transferredFromAppUserID = transferredFromAppUserID
        self.result = result
    }

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: customer = try reader.decodeMessage(tag)
            case 2: transferredFromAppUserID = try reader.decodeString(tag)
            case 3: result = try reader.decodeMessage(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeMessage(1, customer)
        writer.writeString(2, transferredFromAppUserID)
        writer.writeMessage(3, result)
        writer.writeRaw(unknownFields)
    }
}
