import COpenSSL

/// HMAC-SHA256 (RFC 2104) through OpenSSL: webhook signatures (Stripe's, Standard Webhooks').
public enum HMACSHA256 {
    public static let byteCount = 32

    public static func authenticationCode(for message: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        let message = Array(message)
        let key = Array(key)
        var length: UInt32 = 0
        let code = [UInt8](unsafeUninitializedCapacity: Int(EVP_MAX_MD_SIZE)) { buffer, count in
            let written = key.withUnsafeBytes { keyBytes in
                message.withUnsafeBytes { messageBytes in
                    HMAC(
                        EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                        messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count,
                        buffer.baseAddress, &length)
                }
            }
            // HMAC fails only when OpenSSL cannot allocate; there is no answer to give then.
            precondition(written != nil, "HMAC-SHA256 failed: \(OpenSSLErrorQueue.drain())")
            count = Int(length)
        }
        return code
    }
}
