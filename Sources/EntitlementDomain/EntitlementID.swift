/// The rules for entitlement IDs (`pro`, `premium`), shared by the tenant configuration and `GrantEntitlement`:
/// 1–128 bytes of UTF-8 with no whitespace and no control characters anywhere.
public enum EntitlementID {
    public static let maxByteCount = 128

    /// `id` unchanged when acceptable; otherwise `INVALID_ARGUMENT` naming `field` and what is wrong.
    @discardableResult
    public static func validate(_ id: String, field: String = "entitlement_id") throws(DomainError) -> String {
        if let problem = problem(with: id) { throw .invalidRequest("\(field) \(problem)") }
        return id
    }

    /// What is wrong with `id`, phrased to follow a field name ("is empty"); nil when it is acceptable.
    public static func problem(with id: String) -> String? {
        let byteCount = id.utf8.count
        if byteCount == 0 { return "is empty; an entitlement ID must be 1 to \(maxByteCount) bytes of UTF-8" }
        if byteCount > maxByteCount { return "is \(byteCount) bytes of UTF-8; the limit is \(maxByteCount)" }
        for scalar in id.unicodeScalars {
            if AppUserID.isControl(scalar) {
                return "contains the control character \(AppUserID.codePoint(scalar)); control characters are not allowed"
            }
            if AppUserID.isWhitespace(scalar) {
                return "\"\(id)\" contains whitespace (\(AppUserID.codePoint(scalar))); "
                    + "entitlement IDs are single words such as \"pro\""
            }
        }
        return nil
    }
}
