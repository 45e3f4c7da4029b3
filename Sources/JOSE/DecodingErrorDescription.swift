extension DecodingError {
    /// The failure as `` `field`: problem ``, without Swift's type names: for messages about JSON that someone else
    /// wrote (JWS headers, key sets, the App Store's payloads).
    public var pathAndProblem: String {
        func path(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }
                .joined(separator: ".")
            return path.isEmpty ? "" : "`\(path)`: "
        }
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context):
            return path(context) + context.debugDescription
        case .dataCorrupted(let context):
            return path(context)
                + (context.underlyingError.map { "\(context.debugDescription) (\($0))" } ?? context.debugDescription)
        @unknown default:
            return "\(self)"
        }
    }
}
