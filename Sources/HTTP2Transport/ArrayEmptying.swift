extension Array {
    /// Removes every element and keeps the storage, one element at a time: `removeAll(keepingCapacity: true)` goes
    /// through a generic `replaceSubrange` costing over a hundred instructions even for one element, and the request
    /// path empties small arrays on every call.
    mutating func removeAllKeepingStorage() {
        while popLast() != nil {}
    }
}
