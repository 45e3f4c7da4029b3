/// A tenants file with one tenant, `demo`, whose store settings are under test: line 4 opens `"<section>": {`, and
/// the section's fields follow one per line (the first on line 5), so errors can be checked by line.
enum SettingsDocument {
    static func text(section: String, fields: [String], publicHash: String, products: String) -> String {
        "{\n\"tenants\": [\n{\n\"\(section)\": {\n" + fields.joined(separator: ",\n") + "\n},\n"
            + "\"id\": \"demo\",\n\"public_keys\": [\"\(publicHash)\"],\n\"products\": \(products)\n}\n]\n}\n"
    }

    /// `base` as `"key": value` lines, `overrides` replacing a field by key or adding it (in key order) after them; a
    /// nil value leaves the field out.
    static func fields(_ base: [(String, String?)], overriddenBy overrides: [String: String?]) -> [String] {
        var fields = base
        for (key, value) in overrides.sorted(by: { $0.key < $1.key }) {
            if let index = fields.firstIndex(where: { $0.0 == key }) { fields[index].1 = value } else { fields.append((key, value)) }
        }
        return fields.compactMap { key, value in value.map { "\"\(key)\": \($0)" } }
    }
}
