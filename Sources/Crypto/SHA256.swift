import COpenSSLShims

/// SHA-256 through OpenSSL.
public enum SHA256 {
    public static let byteCount = 32

    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { digest, count in
            cshim_sha256(bytes.baseAddress, bytes.count, digest.baseAddress)
            count = byteCount
        }
    }

    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        Array(bytes).withUnsafeBytes { hash($0) }
    }

    public static func hash(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }
}
