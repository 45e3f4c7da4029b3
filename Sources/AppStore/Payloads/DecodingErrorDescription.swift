/// A decoding failure as `` `field`: problem ``, without Swift's type names.
func describe(_ error: DecodingError) -> String {
    func path(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }
            .joined(separator: ".")
        return path.isEmpty ? "" : "`\(path)`: "
    }
    switch error {
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context):
        return path(context) + context.debugDescription
    case .dataCorrupted(let context):
        return path(context)
            + (context.underlyingError.map { "\(context.debugDescription) (\($0))" } ?? context.debugDescription)
    @unknown default:
        return "\(error)"
    }
}
