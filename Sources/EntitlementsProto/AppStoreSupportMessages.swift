public import ProtobufWire

// AdminService's App Store support actions: Look Up Order ID, Extend a Subscription Renewal Date, Send Consumption
// Information, test notifications and the setup check.

/// `entitlements.v1.LookUpOrderRequest`: a customer's order ID to look up with Apple.
public struct LookUpOrderRequest: ProtoMessage {
    public var orderID: String = ""
    public var reason: String = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: orderID = try reader.decodeString(tag)
            case 2: reason = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, orderID)
        writer.writeString(2, reason)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.LookUpOrderResponse`: the order's transactions as Apple signed them.
public struct LookUpOrderResponse: ProtoMessage {
    public var found: Bool = false
    public var transactions: [Transaction] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: found = try reader.decodeBool(tag)
            case 2: transactions.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeBool(1, found)
        writer.writeRepeatedMessages(2, transactions)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.ExtendSubscriptionRequest`: an App Store subscription to extend with Apple.
public struct ExtendSubscriptionRequest: ProtoMessage {
    /// `ExtendSubscriptionRequest.ReasonCode`: Apple's reasons for an extension.
    public struct ReasonCode: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let undeclared = Self(rawValue: 0)
        public static let customerSatisfaction = Self(rawValue: 1)
        public static let other = Self(rawValue: 2)
        public static let serviceIssueOrOutage = Self(rawValue: 3)
    }

    public var originalTransactionID: String = ""
    public var extendByDays: Int32 = 0
    public var reasonCode: ReasonCode = ReasonCode.undeclared
    public var requestIdentifier: String = ""
    public var reason: String = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: originalTransactionID = try reader.decodeString(tag)
            case 2: extendByDays = try reader.decodeInt32(tag)
            case 3: reasonCode = try reader.decodeEnum(tag)
            case 4: requestIdentifier = try reader.decodeString(tag)
            case 5: reason = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, originalTransactionID)
        writer.writeInt32(2, extendByDays)
        writer.writeEnum(3, reasonCode)
        writer.writeString(4, requestIdentifier)
        writer.writeString(5, reason)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.ExtendSubscriptionResponse`: Apple's new expiry and the owner's status.
public struct ExtendSubscriptionResponse: ProtoMessage {
    public var expiresAt: ProtoTimestamp?
    public var webOrderLineItemID: String = ""
    public var requestIdentifier: String = ""
    public var customer: CustomerStatus?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: expiresAt = try reader.decodeMessage(tag)
            case 2: webOrderLineItemID = try reader.decodeString(tag)
            case 3: requestIdentifier = try reader.decodeString(tag)
            case 4: customer = try reader.decodeMessage(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeMessage(1, expiresAt)
        writer.writeString(2, webOrderLineItemID)
        writer.writeString(3, requestIdentifier)
        writer.writeMessage(4, customer)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.SendConsumptionInfoRequest`: an answer to Apple's CONSUMPTION_REQUEST.
public struct SendConsumptionInfoRequest: ProtoMessage {
    /// `SendConsumptionInfoRequest.DeliveryStatus`; unspecified: the server decides.
    public struct DeliveryStatus: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = Self(rawValue: 0)
        public static let delivered = Self(rawValue: 1)
        public static let undeliveredQualityIssue = Self(rawValue: 2)
        public static let undeliveredWrongItem = Self(rawValue: 3)
        public static let undeliveredServerOutage = Self(rawValue: 4)
        public static let undeliveredOther = Self(rawValue: 5)
    }

    /// `SendConsumptionInfoRequest.RefundPreference`; unspecified: none sent.
    public struct RefundPreference: ProtoEnum {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let unspecified = Self(rawValue: 0)
        public static let decline = Self(rawValue: 1)
        public static let grantFull = Self(rawValue: 2)
        public static let grantProrated = Self(rawValue: 3)
    }

    public var transactionID: String = ""
    public var customerConsented: Bool = false
    public var deliveryStatus: DeliveryStatus = DeliveryStatus.unspecified
    public var sampleContentProvided: Bool = false
    public var consumptionPercentage: Int32?
    public var refundPreference: RefundPreference = RefundPreference.unspecified
    public var reason: String = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: transactionID = try reader.decodeString(tag)
            case 2: customerConsented = try reader.decodeBool(tag)
            case 3: deliveryStatus = try reader.decodeEnum(tag)
            case 4: sampleContentProvided = try reader.decodeBool(tag)
            case 5: consumptionPercentage = try reader.decodeInt32(tag)
            case 6: refundPreference = try reader.decodeEnum(tag)
            case 7: reason = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, transactionID)
        writer.writeBool(2, customerConsented)
        writer.writeEnum(3, deliveryStatus)
        writer.writeBool(4, sampleContentProvided)
        writer.writeOptionalInt32(5, consumptionPercentage)
        writer.writeEnum(6, refundPreference)
        writer.writeString(7, reason)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.SendConsumptionInfoResponse`: what was sent to Apple.
public struct SendConsumptionInfoResponse: ProtoMessage {
    public var deliveryStatus: SendConsumptionInfoRequest.DeliveryStatus = SendConsumptionInfoRequest.DeliveryStatus.unspecified
    public var ownerAppUserID: String = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: deliveryStatus = try reader.decodeEnum(tag)
            case 2: ownerAppUserID = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeEnum(1, deliveryStatus)
        writer.writeString(2, ownerAppUserID)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.RequestTestNotificationRequest`: the environment to send a TEST notification in.
public struct RequestTestNotificationRequest: ProtoMessage {
    public var environment: StoreEnvironment = StoreEnvironment.unspecified
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: environment = try reader.decodeEnum(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeEnum(1, environment)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.RequestTestNotificationResponse`: Apple's token for the test notification.
public struct RequestTestNotificationResponse: ProtoMessage {
    public var testNotificationToken: String = ""
    public var environment: StoreEnvironment = StoreEnvironment.unspecified
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: testNotificationToken = try reader.decodeString(tag)
            case 2: environment = try reader.decodeEnum(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, testNotificationToken)
        writer.writeEnum(2, environment)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.GetTestNotificationStatusRequest`: a test notification to ask Apple about.
public struct GetTestNotificationStatusRequest: ProtoMessage {
    public var testNotificationToken: String = ""
    public var environment: StoreEnvironment = StoreEnvironment.unspecified
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: testNotificationToken = try reader.decodeString(tag)
            case 2: environment = try reader.decodeEnum(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, testNotificationToken)
        writer.writeEnum(2, environment)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.GetTestNotificationStatusResponse`: Apple's attempts, and whether this server received it.
public struct GetTestNotificationStatusResponse: ProtoMessage {
    public var sendAttempts: [TestNotificationAttempt] = []
    public var received: Bool = false
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: sendAttempts.append(try reader.decodeMessage(tag))
            case 2: received = try reader.decodeBool(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeRepeatedMessages(1, sendAttempts)
        writer.writeBool(2, received)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.TestNotificationAttempt`: one of Apple's attempts to send a notification.
public struct TestNotificationAttempt: ProtoMessage {
    public var attemptedAt: ProtoTimestamp?
    public var result: String = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: attemptedAt = try reader.decodeMessage(tag)
            case 2: result = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeMessage(1, attemptedAt)
        writer.writeString(2, result)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.CheckAppStoreSetupRequest`: how long to wait for the test notification.
public struct CheckAppStoreSetupRequest: ProtoMessage {
    public var wait: ProtoDuration?
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: wait = try reader.decodeMessage(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeMessage(1, wait)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.CheckAppStoreSetupResponse`: every check of the tenant's App Store setup.
public struct CheckAppStoreSetupResponse: ProtoMessage {
    public var tenantID: String = ""
    public var ok: Bool = false
    public var checks: [AppStoreSetupCheck] = []
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: tenantID = try reader.decodeString(tag)
            case 2: ok = try reader.decodeBool(tag)
            case 3: checks.append(try reader.decodeMessage(tag))
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, tenantID)
        writer.writeBool(2, ok)
        writer.writeRepeatedMessages(3, checks)
        writer.writeRaw(unknownFields)
    }
}

/// `entitlements.v1.AppStoreSetupCheck`: one check of CheckAppStoreSetup.
public struct AppStoreSetupCheck: ProtoMessage {
    public var environment: StoreEnvironment = StoreEnvironment.unspecified
    public var name: String = ""
    public var ok: Bool = false
    public var detail: String = ""
    public var unknownFields: [UInt8] = []

    public init() {}

    public init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: environment = try reader.decodeEnum(tag)
            case 2: name = try reader.decodeString(tag)
            case 3: ok = try reader.decodeBool(tag)
            case 4: detail = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    public func encode(to writer: inout ProtoWriter) {
        writer.writeEnum(1, environment)
        writer.writeString(2, name)
        writer.writeBool(3, ok)
        writer.writeString(4, detail)
        writer.writeRaw(unknownFields)
    }
}
