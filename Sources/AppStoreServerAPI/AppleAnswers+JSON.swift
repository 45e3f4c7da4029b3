public import Encodings

// Apple's answers and request bodies, read and written by hand: dates stay exact milliseconds (never a Double),
// members Apple adds later are skipped, and a member we need that is missing or `null` fails the answer.

extension AppStoreSubscriptionStatus: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        var status: Int?
        var originalTransactionId: String?
        var signedTransactionInfo: String?
        var signedRenewalInfo: String?
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "status" {
                status = try reader.optionalInt()
            } else if key == "originalTransactionId" {
                originalTransactionId = try reader.optionalString()
            } else if key == "signedTransactionInfo" {
                signedTransactionInfo = try reader.optionalString()
            } else if key == "signedRenewalInfo" {
                signedRenewalInfo = try reader.optionalString()
            } else {
                try reader.skipValue()
            }
        }
        guard let status else { throw .missing("status") }
        guard let originalTransactionId else { throw .missing("originalTransactionId") }
        guard let signedTransactionInfo else { throw .missing("signedTransactionInfo") }
        self.init(
            status: status, originalTransactionId: originalTransactionId, signedTransactionInfo: signedTransactionInfo,
            signedRenewalInfo: signedRenewalInfo)
    }
}

extension AppStoreNotificationRecord: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        var signedPayload: String?
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "signedPayload" { signedPayload = try reader.optionalString() } else { try reader.skipValue() }
        }
        guard let signedPayload else { throw .missing("signedPayload") }
        self.init(signedPayload: signedPayload)
    }
}

extension NotificationHistoryResponse: JSONReadable {
    init(json reader: inout JSONReader) throws(JSONReadError) {
        var notificationHistory: [AppStoreNotificationRecord]?
        var hasMore: Bool?
        var paginationToken: String?
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "notificationHistory" {
                notificationHistory = try reader.readOptional { reader throws(JSONReadError) in
                    try reader.readArray(of: AppStoreNotificationRecord.self)
                }
            } else if key == "hasMore" {
                hasMore = try reader.optionalBool()
            } else if key == "paginationToken" {
                paginationToken = try reader.optionalString()
            } else {
                try reader.skipValue()
            }
        }
        guard let notificationHistory else { throw .missing("notificationHistory") }
        guard let hasMore else { throw .missing("hasMore") }
        self.init(notificationHistory: notificationHistory, hasMore: hasMore, paginationToken: paginationToken)
    }
}

extension HistoryResponse: JSONReadable {
    init(json reader: inout JSONReader) throws(JSONReadError) {
        var revision: String?
        var hasMore: Bool?
        var signedTransactions: [String]?
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "revision" {
                revision = try reader.optionalString()
            } else if key == "hasMore" {
                hasMore = try reader.optionalBool()
            } else if key == "signedTransactions" {
                signedTransactions = try reader.optionalStrings()
            } else {
                try reader.skipValue()
            }
        }
        guard let hasMore else { throw .missing("hasMore") }
        guard let signedTransactions else { throw .missing("signedTransactions") }
        self.init(revision: revision, hasMore: hasMore, signedTransactions: signedTransactions)
    }
}

extension StatusResponse: JSONReadable {
    init(json reader: inout JSONReader) throws(JSONReadError) {
        var data: [Group]?
        try reader.readObject { reader, key throws(JSONReadError) in
            guard key == "data" else { return try reader.skipValue() }
            data = try reader.readOptional { reader throws(JSONReadError) in try reader.readArray(of: Group.self) }
        }
        guard let data else { throw .missing("data") }
        self.init(data: data)
    }
}

extension StatusResponse.Group: JSONReadable {
    init(json reader: inout JSONReader) throws(JSONReadError) {
        var lastTransactions: [AppStoreSubscriptionStatus]?
        try reader.readObject { reader, key throws(JSONReadError) in
            guard key == "lastTransactions" else { return try reader.skipValue() }
            lastTransactions = try reader.readOptional { reader throws(JSONReadError) in
                try reader.readArray(of: AppStoreSubscriptionStatus.self)
            }
        }
        guard let lastTransactions else { throw .missing("lastTransactions") }
        self.init(lastTransactions: lastTransactions)
    }
}

extension TransactionInfoResponse: JSONReadable {
    init(json reader: inout JSONReader) throws(JSONReadError) {
        var signedTransactionInfo: String?
        try reader.readObject { reader, key throws(JSONReadError) in
            guard key == "signedTransactionInfo" else { return try reader.skipValue() }
            signedTransactionInfo = try reader.optionalString()
        }
        guard let signedTransactionInfo else { throw .missing("signedTransactionInfo") }
        self.init(signedTransactionInfo: signedTransactionInfo)
    }
}

extension ErrorResponse: JSONReadable {
    init(json reader: inout JSONReader) throws(JSONReadError) {
        var errorCode: Int?
        var errorMessage: String?
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "errorCode" {
                errorCode = try reader.optionalInt()
            } else if key == "errorMessage" {
                errorMessage = try reader.optionalString()
            } else {
                try reader.skipValue()
            }
        }
        guard let errorCode else { throw .missing("errorCode") }
        self.init(errorCode: errorCode, errorMessage: errorMessage)
    }
}

extension AppStoreRenewalExtension: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        var originalTransactionId: String?
        var webOrderLineItemId: String?
        var success: Bool?
        var effectiveDate: Int64?
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "originalTransactionId" {
                originalTransactionId = try reader.optionalString()
            } else if key == "webOrderLineItemId" {
                webOrderLineItemId = try reader.optionalString()
            } else if key == "success" {
                success = try reader.optionalBool()
            } else if key == "effectiveDate" {
                effectiveDate = try reader.optionalInt64()
            } else {
                try reader.skipValue()
            }
        }
        guard let success else { throw .missing("success") }
        self.init(
            originalTransactionId: originalTransactionId, webOrderLineItemId: webOrderLineItemId, success: success,
            effectiveDate: effectiveDate)
    }
}

extension AppStoreTestNotificationStatus: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        var signedPayload: String?
        var sendAttempts: [Attempt]?
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "signedPayload" {
                signedPayload = try reader.optionalString()
            } else if key == "sendAttempts" {
                sendAttempts = try reader.readOptional { reader throws(JSONReadError) in
                    try reader.readArray(of: Attempt.self)
                }
            } else {
                try reader.skipValue()
            }
        }
        self.init(signedPayload: signedPayload, sendAttempts: sendAttempts)
    }
}

extension AppStoreTestNotificationStatus.Attempt: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        var attemptDate: Int64?
        var sendAttemptResult: String?
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "attemptDate" {
                attemptDate = try reader.optionalInt64()
            } else if key == "sendAttemptResult" {
                sendAttemptResult = try reader.optionalString()
            } else {
                try reader.skipValue()
            }
        }
        self.init(attemptDate: attemptDate, sendAttemptResult: sendAttemptResult)
    }
}

extension OrderLookupResponse: JSONReadable {
    init(json reader: inout JSONReader) throws(JSONReadError) {
        var status: Int?
        var signedTransactions: [String]?
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "status" {
                status = try reader.optionalInt()
            } else if key == "signedTransactions" {
                signedTransactions = try reader.optionalStrings()
            } else {
                try reader.skipValue()
            }
        }
        guard let status else { throw .missing("status") }
        self.init(status: status, signedTransactions: signedTransactions)
    }
}

extension TestNotificationResponse: JSONReadable {
    init(json reader: inout JSONReader) throws(JSONReadError) {
        var testNotificationToken: String?
        try reader.readObject { reader, key throws(JSONReadError) in
            guard key == "testNotificationToken" else { return try reader.skipValue() }
            testNotificationToken = try reader.optionalString()
        }
        guard let testNotificationToken else { throw .missing("testNotificationToken") }
        self.init(testNotificationToken: testNotificationToken)
    }
}

extension ExtendRequest {
    var json: [UInt8] {
        Array(
            JSONValue.object([
                ("extendByDays", .number(String(extendByDays))),
                ("extendReasonCode", .number(String(extendReasonCode))),
                ("requestIdentifier", .string(requestIdentifier)),
            ]).text.utf8)
    }
}

extension AppStoreConsumption {
    /// Apple's field names; an unset optional is left out.
    var json: [UInt8] {
        var members: [(String, JSONValue)] = [
            ("customerConsented", .bool(customerConsented)),
            ("sampleContentProvided", .bool(sampleContentProvided)),
            ("deliveryStatus", .string(deliveryStatus)),
        ]
        if let consumptionPercentage { members.append(("consumptionPercentage", .number(String(consumptionPercentage)))) }
        if let refundPreference { members.append(("refundPreference", .string(refundPreference))) }
        return Array(JSONValue.object(members).text.utf8)
    }
}
