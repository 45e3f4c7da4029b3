/// Comparisons whose duration does not depend on where the inputs differ, for secrets and their hashes.
public enum ConstantTime {
    /// True when `lhs` and `rhs` are equal. Lengths are not secret: different lengths return false at once.
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        lhs.withUnsafeBufferPointer { equals($0, rhs) }
    }

    public static func equals(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<lhs.count { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
