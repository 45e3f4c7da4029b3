import COpenSSL

/// Owns one `X509*` and frees it when the last value sharing it goes away.
///
/// `@unchecked Sendable` because nothing mutates the certificate after construction, and OpenSSL (1.1+) guards its
/// only lazy state, the extension cache, with the object's own lock, so concurrent reads and `X509_up_ref` from
/// `X509_STORE_CTX` are safe.
final class X509Handle: @unchecked Sendable {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { X509_free(pointer) }
}

/// Owns one `EVP_PKEY*` (a P-256 or RSA key, public or private) and frees it with the last value sharing it.
///
/// `@unchecked Sendable` because the key is never modified after construction; every sign or verify makes its own
/// `EVP_PKEY_CTX`, and OpenSSL allows a key to be used read-only from many threads at once.
final class PKeyHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }
}
