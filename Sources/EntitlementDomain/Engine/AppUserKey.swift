#if canImport(Glibc)
import Glibc
#endif
import Encodings

/// A tenant and an app user ID: how the cache, and the reads that fill it, find a customer. App user IDs are
/// compared byte for byte, as the database does: Swift's `String` equality would make "café" and "cafe\u{301}" one
/// customer. The hash is computed once per key: it picks the shard and the bucket.
struct AppUserKey: Hashable {
    var tenantID: String
    var appUserID: String
    let hash: Int

    init(tenantID: String, appUserID: String) {
        self.tenantID = tenantID
        self.appUserID = appUserID
        var hasher = Hasher()
        tenantID.withUTF8Bytes { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(0xFF as UInt8)
        appUserID.withUTF8Bytes { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hash = hasher.finalize()
    }

    static func == (lhs: AppUserKey, rhs: AppUserKey) -> Bool {
        lhs.hash == rhs.hash && sameBytes(lhs.tenantID, rhs.tenantID) && sameBytes(lhs.appUserID, rhs.appUserID)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }

    private static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.withUTF8Bytes { left in
            rhs.withUTF8Bytes { right in
                guard left.count == right.count else { return false }
                return left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
    }
}
