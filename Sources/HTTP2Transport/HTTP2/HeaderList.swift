import CNGHTTP2
import RequestTracing

/// Header fields to submit, laid out once in one buffer so nghttp2 can copy them.
struct HeaderList {
    private var bytes: [UInt8] = []
    private var fields: [(nameStart: Int, nameLength: Int, valueStart: Int, valueLength: Int, indexed: Bool)] = []
    /// Set by ``lendingStorage()``; cleared by any change, which may have moved the fields to new storage.
    private var lendsStorage = false

    /// - Parameter fieldCapacity: the fields expected, reserved so that adding them does not grow the storage.
    init(fieldCapacity: Int = 4) {
        bytes.reserveCapacity(max(128, fieldCapacity * 32))
        fields.reserveCapacity(fieldCapacity)
    }

    /// This list with its fields lent to nghttp2 rather than copied (`NGHTTP2_NV_FLAG_NO_COPY_NAME` and `_VALUE`),
    /// sparing a copy, a lowercasing pass over the names and an allocation per submission. Only for a list kept for
    /// as long as any session it is submitted to (the server's own, or a static one) and whose names are lowercase:
    /// nghttp2 lowercases only what it copies.
    func lendingStorage() -> HeaderList {
        var lent = self
        lent.lendsStorage = true
        return lent
    }

    mutating func add(_ name: String, _ value: String) {
        var value = value
        value.withUTF8 { add(name, utf8: $0) }
    }

    mutating func add(_ name: String, bytes value: [UInt8]) {
        value.withUnsafeBufferPointer { add(name, utf8: $0) }
    }

    /// Copies from contiguous bytes (a `String.UTF8View` append goes byte by byte).
    private mutating func add(_ name: String, utf8 value: UnsafeBufferPointer<UInt8>) {
        lendsStorage = false
        let nameStart = bytes.count
        var name = name
        name.withUTF8 { bytes.append(contentsOf: $0) }
        let valueStart = bytes.count
        bytes.append(contentsOf: value)
        fields.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart, Self.isIndexed(name)))
    }

    /// Whether HPACK may add the field to its dynamic table: not for a name whose value is new in every message
    /// (`x-request-id`), which would only evict the fields that do repeat, and would make nghttp2 compare each new
    /// value with every one indexed before under that name (7% of a SyncStatus call's instructions).
    private static func isIndexed(_ name: String) -> Bool { name != RequestID.headerName }

    var count: Int { fields.count }

    /// Lends nghttp2 a name/value array pointing into this list's storage; nghttp2 copies the fields before returning
    /// unless the list lends its storage (``lendingStorage()``).
    func withNV<Result>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> Result) -> Result {
        withNV(extraFields: 0) { nva, count in body(UnsafePointer(nva.baseAddress!), count) }
    }

    /// ``withNV(_:)`` followed by one field HPACK does not index (a value new in every message, such as the request
    /// ID), without copying this list: a list shared by every response stays shared.
    func withNV<Result>(
        appendingUnindexed name: String, _ value: String, _ body: (UnsafePointer<nghttp2_nv>, Int) -> Result
    ) -> Result {
        var name = name
        var value = value
        return name.withUTF8 { name in
            value.withUTF8 { value in
                withNV(extraFields: 1) { nva, first in
                    nva[first] = nghttp2_nv(
                        name: UnsafeMutablePointer(mutating: name.baseAddress ?? UnsafePointer(bitPattern: 1)!),
                        value: UnsafeMutablePointer(mutating: value.baseAddress ?? UnsafePointer(bitPattern: 1)!),
                        namelen: name.count, valuelen: value.count, flags: UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue))
                    return body(UnsafePointer(nva.baseAddress!), first + 1)
                }
            }
        }
    }

    /// This list's fields laid out in a temporary array with room for `extraFields` more after them, which `body`
    /// fills in from the index it is given.
    private func withNV<Result>(
        extraFields: Int, _ body: (UnsafeMutableBufferPointer<nghttp2_nv>, Int) -> Result
    ) -> Result {
        bytes.withUnsafeBufferPointer { storage in
            let base = UnsafeMutablePointer(mutating: storage.baseAddress ?? UnsafePointer(bitPattern: 1)!)
            let lent = lendsStorage ? NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue : 0
            return withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: max(fields.count + extraFields, 1)) { nva in
                for (index, field) in fields.enumerated() {
                    let indexing = field.indexed ? NGHTTP2_NV_FLAG_NONE.rawValue : NGHTTP2_NV_FLAG_NO_INDEX.rawValue
                    nva[index] = nghttp2_nv(
                        name: base + field.nameStart, value: base + field.valueStart,
                        namelen: field.nameLength, valuelen: field.valueLength, flags: UInt8(indexing | lent))
                }
                return body(nva, fields.count)
            }
        }
    }
}
