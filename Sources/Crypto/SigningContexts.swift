import COpenSSL
import Synchronization

/// A key's signing contexts, kept for reuse: making one (`EVP_PKEY_CTX_new`, then `EVP_PKEY_sign_init`) fetches the
/// provider's algorithm and sets it up again, a sizeable share of one P-256 signature's cost. A context serves one
/// thread at a time: it is taken from here for a signature and given back after.
final class SigningContexts: Sendable {
    /// Idle contexts kept at most; more signatures at once make contexts that are freed after.
    static let kept = 8

    private let key: PKeyHandle
    private let idle = Mutex<[Context]>([])

    /// An idle context: whoever takes it from ``idle`` uses it alone.
    private struct Context: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    init(key: PKeyHandle) {
        self.key = key
    }

    deinit {
        for context in idle.withLock({ $0 }) { EVP_PKEY_CTX_free(context.pointer) }
    }

    /// `body` with a context initialized for signing; a context that failed is freed rather than kept.
    func withContext<T>(_ body: (OpaquePointer) throws(CryptoError) -> T) throws(CryptoError) -> T {
        let context: OpaquePointer
        if let kept = idle.withLock({ $0.popLast() }) {
            context = kept.pointer
        } else {
            context = try make()
        }
        let result: T
        do {
            result = try body(context)
        } catch {
            EVP_PKEY_CTX_free(context)
            throw error
        }
        let freed = idle.withLock { idle -> Bool in
            guard idle.count < Self.kept else { return true }
            idle.append(Context(pointer: context))
            return false
        }
        if freed { EVP_PKEY_CTX_free(context) }
        return result
    }

    private func make() throws(CryptoError) -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new(key.pointer, nil) else {
            throw .internalError("EVP_PKEY_CTX_new: \(OpenSSLErrorQueue.drain())")
        }
        guard EVP_PKEY_sign_init(context) == 1 else {
            EVP_PKEY_CTX_free(context)
            throw .internalError("EVP_PKEY_sign_init: \(OpenSSLErrorQueue.drain())")
        }
        return context
    }
}
