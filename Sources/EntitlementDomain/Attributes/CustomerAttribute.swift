/// One attribute of a customer: a key and its string value, set by the app for its user or by the tenant's backend.
/// Attributes describe the person (an e-mail address, a name, the backend's own IDs); they never affect status.
public struct CustomerAttribute: Hashable, Sendable {
    public var key: String
    public var value: String
    /// When the value was last set.
    public var updatedAt: UnixTime

    public init(key: String, value: String, updatedAt: UnixTime) {
        self.key = key
        self.value = value
        self.updatedAt = updatedAt
    }

    /// The value as `FindCustomers` compares it: lowercased, so that an e-mail address is found whatever its case.
    public var foldedValue: String { Self.fold(value) }

    public static func fold(_ text: String) -> String { text.lowercased() }
}

/// Who writes attributes, which decides the keys they may write (``AttributeSettings``).
public enum AttributeWriter: Sendable, Hashable {
    /// An app with the tenant's public key, for the user it names.
    case app
    /// The tenant's backend or an operator, with a secret key that may write.
    case backend
}

/// What one call changes: keys to set (each to a value) and keys to remove. Checked by ``AttributeRules``.
public struct AttributeChange: Sendable, Hashable {
    public var set: [(key: String, value: String)]
    public var unset: [String]

    public init(set: [(key: String, value: String)] = [], unset: [String] = []) {
        self.set = set
        self.unset = unset
    }

    public static func == (lhs: AttributeChange, rhs: AttributeChange) -> Bool {
        lhs.set.map(\.key) == rhs.set.map(\.key) && lhs.set.map(\.value) == rhs.set.map(\.value) && lhs.unset == rhs.unset
    }

    public func hash(into hasher: inout Hasher) {
        for (key, value) in set {
            hasher.combine(key)
            hasher.combine(value)
        }
        hasher.combine(unset)
    }
}

/// What a call to set attributes did.
public struct AttributeOutcome: Sendable, Hashable {
    /// The customer's canonical app user ID.
    public var appUserID: String
    /// Every attribute after the call, by key.
    public var attributes: [CustomerAttribute]
    /// The keys whose value the call changed (set anew or removed), sorted; empty when nothing changed (then no event
    /// was recorded).
    public var changedKeys: [String]
}
