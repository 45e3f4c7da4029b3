import COpenSSL

/// Path validation of a leaf through intermediates to a configured set of roots.
///
/// Only the given roots are trusted (never the system store): App Store data must chain to Apple's root or to the
/// development CA a tenant opted into, nothing else.
public enum CertificateChain {
    /// Verifies that `leaf` chains through `intermediates` to one of `trustedRoots` at `time` (Unix seconds):
    /// signatures, validity periods of every certificate at that time, CA constraints and path length, with OpenSSL's
    /// X509_verify_cert using a fresh X509_STORE of exactly `trustedRoots` (no system store), X509_V_FLAG_USE_CHECK_TIME
    /// with `time`, X509_V_FLAG_PARTIAL_CHAIN OFF, and NO purpose check (Apple certs have custom EKUs).
    /// Throws .expired / .notYetValid (with the certificate's CN and its validity window in the message) or .chainInvalid
    /// (with OpenSSL's verify error string, e.g. "unable to get local issuer certificate").
    ///
    /// As in OpenSSL (and so in Apple's Python library, which uses it), a certificate is valid from `notValidBefore`
    /// inclusive to `notValidAfter` exclusive.
    public static func verify(
        leaf: Certificate, intermediates: [Certificate], trustedRoots: [Certificate], at time: Int64
    ) throws(CryptoError) {
        guard let store = X509_STORE_new() else { throw .internalError("X509_STORE_new: \(OpenSSLErrorQueue.drain())") }
        defer { X509_STORE_free(store) }
        for root in trustedRoots where X509_STORE_add_cert(store, root.handle.pointer) != 1 {
            throw .internalError("X509_STORE_add_cert: \(OpenSSLErrorQueue.drain())")
        }
        // A plain stack that borrows the intermediates; the context up-refs whatever it puts in the chain.
        guard let untrusted = OPENSSL_sk_new_null() else {
            throw .internalError("OPENSSL_sk_new_null: \(OpenSSLErrorQueue.drain())")
        }
        defer { OPENSSL_sk_free(untrusted) }
        for intermediate in intermediates where OPENSSL_sk_push(untrusted, UnsafeRawPointer(intermediate.handle.pointer)) <= 0 {
            throw .internalError("OPENSSL_sk_push: \(OpenSSLErrorQueue.drain())")
        }
        guard let context = X509_STORE_CTX_new() else {
            throw .internalError("X509_STORE_CTX_new: \(OpenSSLErrorQueue.drain())")
        }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.handle.pointer, untrusted) == 1 else {
            throw .internalError("X509_STORE_CTX_init: \(OpenSSLErrorQueue.drain())")
        }
        let parameters = X509_STORE_CTX_get0_param(context)
        X509_VERIFY_PARAM_set_time(parameters, time_t(time))  // also sets X509_V_FLAG_USE_CHECK_TIME
        X509_VERIFY_PARAM_clear_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN))
        // No X509_STORE_CTX_set_purpose: the default purpose is none, so Apple's custom EKUs are not judged.

        let result = X509_verify_cert(context)
        if result == 1 {
            OpenSSLErrorQueue.clear()
            return
        }
        let error = X509_STORE_CTX_get_error(context)
        let depth = X509_STORE_CTX_get_error_depth(context)
        let details = OpenSSLErrorQueue.drain(fallback: "")
        if result < 0 || error == X509_V_OK {
            throw .internalError("X509_verify_cert failed without a verify error: \(details)")
        }
        let current = X509_STORE_CTX_get_current_cert(context)
        let name = current.map(Certificate.commonName(of:)) ?? ""
        let position = depth == 0 ? "leaf" : "certificate at depth \(depth)"
        let reason = String(cString: X509_verify_cert_error_string(Int(error)))
        switch error {
        case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
            let window = current.map { validityWindow(of: $0) } ?? "unknown validity"
            let message = "\(position) \"\(name)\" \(reason): \(window), checked at \(CertificateTime.iso8601(time))"
            throw error == X509_V_ERR_CERT_HAS_EXPIRED ? .expired(message) : .notYetValid(message)
        default:
            throw .chainInvalid("\(reason) (\(position) \"\(name)\")")
        }
    }

    private static func validityWindow(of x509: OpaquePointer) -> String {
        let from = CertificateTime.seconds(of: X509_get0_notBefore(x509)).map(CertificateTime.iso8601) ?? "?"
        let until = CertificateTime.seconds(of: X509_get0_notAfter(x509)).map(CertificateTime.iso8601) ?? "?"
        return "valid from \(from) until \(until)"
    }
}
