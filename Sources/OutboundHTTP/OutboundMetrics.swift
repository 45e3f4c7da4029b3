public import Metrics

/// Whom an outbound request is for: the `target` label of the outbound metrics.
public enum OutboundTarget: String, Sendable, CaseIterable {
    case appStoreServerAPI = "app_store_server_api"
    case googlePlayAPI = "google_play_api"
    case googleOAuth = "google_oauth"
    case googleSigningKeys = "google_signing_keys"
    case userTokenKeys = "user_token_keys"
    case stripeAPI = "stripe_api"
    case webhook
}

/// Every outbound attempt by target and outcome (so retries and 429s show), and answers whose body the caller could
/// not read (a 200 with an HTML page is an outage too).
public final class OutboundMetrics: Sendable {
    /// An attempt's outcome: the status class of its answer, or why there was none.
    public enum Outcome: String, Sendable, CaseIterable {
        case success = "2xx"
        case redirect = "3xx"
        case clientError = "4xx"
        case rateLimited = "429"
        case serverError = "5xx"
        case unreachable
        case timedOut = "timed_out"
        case tlsFailed = "tls_failed"
        case badResponse = "bad_response"
        case failed

        init(status: Int) {
            self =
                switch status {
                case 429: .rateLimited
                case 200..<300: .success
                case 300..<400: .redirect
                case 400..<500: .clientError
                default: .serverError
                }
        }

        init(_ error: OutboundHTTPError.Code) {
            self =
                switch error {
                case .unreachable: .unreachable
                case .timedOut: .timedOut
                case .tlsFailed: .tlsFailed
                case .badResponse: .badResponse
                case .invalidRequest, .configuration, .cancelled: .failed
                }
        }
    }

    public let attempts: CounterFamily
    public let retries: CounterFamily
    public let unreadableAnswers: CounterFamily

    public init() {
        attempts = CounterFamily(
            "entitlementd_outbound_attempts_total", help: "Outbound HTTP attempts, by target and outcome.",
            labels: ["target", "outcome"],
            series: OutboundTarget.allCases.flatMap { target in Outcome.allCases.map { [target.rawValue, $0.rawValue] } })
        retries = CounterFamily(
            "entitlementd_outbound_retries_total", help: "Outbound HTTP attempts after a call's first, by target.",
            labels: ["target"], series: OutboundTarget.allCases.map { [$0.rawValue] })
        unreadableAnswers = CounterFamily(
            "entitlementd_outbound_unreadable_answers_total",
            help: "Successful outbound answers whose body was not what the API documents, by target.",
            labels: ["target"], series: OutboundTarget.allCases.map { [$0.rawValue] })
    }

    public var sources: [any MetricsSource] { [attempts, retries, unreadableAnswers] }

    func attempted(_ target: OutboundTarget, attempt: Int, _ outcome: Outcome) {
        let targetIndex = OutboundTarget.allCases.firstIndex(of: target)!
        attempts.increment(targetIndex * Outcome.allCases.count + Outcome.allCases.firstIndex(of: outcome)!)
        if attempt > 1 { retries.increment(targetIndex) }
    }

    func unreadable(_ target: OutboundTarget) {
        unreadableAnswers.increment(OutboundTarget.allCases.firstIndex(of: target)!)
    }
}
