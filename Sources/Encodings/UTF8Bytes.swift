extension String {
    /// This string's UTF-8 lent to `body`, without the copy `withUTF8` needs on a `let` (it is mutating): a retain
    /// and a release, on paths that read strings for every request. A small string keeps its bytes inline, with no
    /// contiguous storage to lend, and is lent from a copy.
    @inlinable @inline(__always)
    public func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return try copy.withUTF8(body)
    }
}
