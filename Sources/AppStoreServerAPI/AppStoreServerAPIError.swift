/// A failed call to the App Store Server API, with Apple's own error when its answer carried one
/// (`{"errorCode": 4040010, "errorMessage": "..."}`), reported by the name Apple's documentation gives it.
public struct AppStoreServerAPIError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The tenant's key, IDs or URLs cannot be used.
        case configuration
        /// Apple refused our token (401): a wrong key, key ID, issuer ID or bundle ID.
        case unauthorized
        /// Apple answered with an error: `appleErrorCode` says which when it said.
        case refused
        /// No answer (unreachable, timed out, TLS refused).
        case unreachable
        /// A 2xx whose body is not what Apple documents.
        case malformedResponse
    }

    public let code: Code
    /// The HTTP status, when an answer came.
    public let status: Int?
    /// Apple's `errorCode`, when the answer carried one.
    public let appleErrorCode: Int?
    public let message: String

    public init(_ code: Code, status: Int? = nil, appleErrorCode: Int? = nil, _ message: String) {
        self.code = code
        self.status = status
        self.appleErrorCode = appleErrorCode
        self.message = message
    }

    /// Apple's name for `appleErrorCode` (`TransactionIdNotFoundError`), nil for a code this build does not know.
    public var appleErrorName: String? { appleErrorCode.flatMap { AppleErrorCodes.names[$0] } }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.appleErrorCode == rhs.appleErrorCode }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(appleErrorCode)
    }
}

/// Apple's error codes and their documented names (developer.apple.com/documentation/appstoreserverapi/error_codes).
public enum AppleErrorCodes {
    public static let transactionIDNotFound = 4040010
    public static let rateLimitExceeded = 4290000
    public static let serverNotificationURLNotFound = 4040007

    static let names: [Int: String] = [
        4000000: "GeneralBadRequestError", 4000002: "InvalidAppIdentifierError", 4000005: "InvalidRequestRevisionError",
        4000006: "InvalidTransactionIdError", 4000008: "InvalidOriginalTransactionIdError",
        4000009: "InvalidExtendByDaysError", 4000010: "InvalidExtendReasonCodeError",
        4000011: "InvalidRequestIdentifierError", 4000012: "StartDateTooFarInPastError",
        4000013: "StartDateAfterEndDateError", 4000014: "InvalidPaginationTokenError", 4000015: "InvalidStartDateError",
        4000016: "InvalidEndDateError", 4000017: "PaginationTokenExpiredError", 4000018: "InvalidNotificationTypeError",
        4000019: "MultipleFiltersSuppliedError", 4000020: "InvalidTestNotificationTokenError",
        4000021: "InvalidSortError", 4000022: "InvalidProductTypeError", 4000023: "InvalidProductIdError",
        4000024: "InvalidSubscriptionGroupIdentifierError", 4000026: "InvalidInAppOwnershipTypeError",
        4000027: "InvalidEmptyStorefrontCountryCodeListError", 4000028: "InvalidStorefrontCountryCodeError",
        4000030: "InvalidRevokedError", 4000031: "InvalidStatusError", 4000043: "InvalidTransactionNotConsumableError",
        4030004: "SubscriptionExtensionIneligibleError", 4030005: "SubscriptionMaxExtensionError",
        4030007: "FamilySharedSubscriptionExtensionIneligibleError", 4040001: "AccountNotFoundError",
        4040002: "AccountNotFoundRetryableError", 4040003: "AppNotFoundError", 4040004: "AppNotFoundRetryableError",
        4040005: "OriginalTransactionIdNotFoundError", 4040006: "OriginalTransactionIdNotFoundRetryableError",
        4040007: "ServerNotificationURLNotFoundError", 4040008: "TestNotificationNotFoundError",
        4040009: "StatusRequestNotFoundError", 4040010: "TransactionIdNotFoundError", 4290000: "RateLimitExceededError",
        5000000: "GeneralInternalError", 5000001: "GeneralInternalRetryableError",
    ]
}
