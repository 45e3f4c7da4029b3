/// A value the tenants file spells as one of a fixed set of names (an environment, a product type, a policy).
package protocol ConfiguredName: RawRepresentable<String>, CaseIterable {
    /// What the names are, in errors ("App Store environment").
    static var nameKind: String { get }
    /// A note on a text that names none of them (nil: none): its exact spelling, or another store's word for one.
    static func note(on text: String) -> String?
}

extension ConfiguredName {
    package static func note(on text: String) -> String? { nil }

    /// The value `text` names, spelt exactly.
    package static func named(_ text: String) throws(TenantRuleError) -> Self {
        if let value = Self(rawValue: text) { return value }
        var message = "unknown \(nameKind) \"\(text)\"; expected one of "
            + allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        if let note = note(on: text) { message += " (\(note))" }
        throw TenantRuleError(.invalidValue, message)
    }

    /// The note on a name spelt in other letter case.
    package static func spelling(of text: String) -> String? {
        allCases.first { $0.rawValue.lowercased() == text.lowercased() }
            .map { "spelt exactly; did you mean \"\($0.rawValue)\"?" }
    }
}
