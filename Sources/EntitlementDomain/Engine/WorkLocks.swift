#if canImport(Glibc)
import Glibc
#endif

extension CustomerEngine {
    /// Whether this instance does background work `name` of `tenantID` (`""` for work across tenants): always
    /// with one instance (SQLite); among instances sharing PostgreSQL, the one holding its lock (taken here when
    /// free, kept until the instance ends).
    public func holdsWork(tenantID: String = "", name: String) throws(DomainError) -> Bool {
        try DomainError.reading { () throws(StorageError) in try core.repository.holdsWorkLock(tenantID: tenantID, name: name) }
    }

    /// This process among the instances sharing a database: the host name and process ID, in logs.
    public static func defaultInstanceID() -> String {
        var name = [UInt8](repeating: 0, count: 256)
        // A name that fills the buffer may come without its terminating NUL: read up to the first NUL, if any.
        let host = gethostname(&name, name.count) == 0
            ? String(decoding: name.prefix { $0 != 0 }, as: UTF8.self) : "localhost"
        return "\(host):\(getpid())"
    }
}
