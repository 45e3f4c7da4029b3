/// The fields of a log line, listed on demand: the logger reads them twice (to size the line, then to write it), so
/// a line logged on every call needs no array of pairs, nor a copy of each string for it.
public protocol LogFieldList {
    /// Calls `body` with each field's key and value, in order, the same each time.
    func forEachField(_ body: (_ key: String, _ value: String) -> Void)
}

extension KeyValuePairs: LogFieldList where Key == String, Value == String {
    public func forEachField(_ body: (_ key: String, _ value: String) -> Void) {
        for (key, value) in self { body(key, value) }
    }
}
