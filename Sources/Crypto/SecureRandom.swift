import COpenSSL
import Encodings

/// Unpredictable bytes from OpenSSL's CSPRNG, for keys and identifiers.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        let ok = output.withUnsafeMutableBytes { RAND_bytes($0.baseAddress, Int32($0.count)) }
        precondition(ok == 1, "RAND_bytes failed")
        return output
    }

    /// `count` random bytes as lowercase hex.
    public static func hex(_ count: Int) -> String {
        Hex.encode(bytes(count))
    }
}
