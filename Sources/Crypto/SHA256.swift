import COpenSSL

/// SHA-256 through OpenSSL.
public enum SHA256 {
    public static let byteCount = 32

    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        let input = Array(bytes)
        let ok = input.withUnsafeBytes { source in
            digest.withUnsafeMutableBytes { output in
                EVP_Digest(source.baseAddress, source.count, output.baseAddress, nil, EVP_sha256(), nil)
            }
        }
        precondition(ok == 1, "EVP_Digest(SHA-256) failed")
        return digest
    }

    public static func hash(_ text: String) -> [UInt8] {
        hash(Array(text.utf8))
    }
}
