import Crypto
import RPCCore

/// The last API key a connection presented and what it authenticated as, kept in the connection's memory.
///
/// Clients send the same key on every call of a connection; comparing it with the remembered one (in constant
/// time) spares a SHA-256 and a scan of every configured hash per call. It is valid only for the tenants generation
/// it was made under, so a reload (SIGHUP) takes effect at once.
final class AuthenticatedKey: Sendable {
    let key: [UInt8]
    let generation: UInt64
    let caller: Caller

    init(key: [UInt8], generation: UInt64, caller: Caller) {
        self.key = key
        self.generation = generation
        self.caller = caller
    }

    /// What `connection` remembers for exactly `key` under tenants `generation`, if anything.
    static func remembered(in connection: ConnectionMemory, key: UnsafeBufferPointer<UInt8>, generation: UInt64)
        -> AuthenticatedKey?
    {
        guard let known = connection.load(AuthenticatedKey.self), known.generation == generation,
            ConstantTime.equals(key, known.key)
        else { return nil }
        return known
    }
}
