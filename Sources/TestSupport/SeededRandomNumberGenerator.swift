/// A deterministic generator for tests that draw "random" inputs: the same seed gives the same inputs, so a failure
/// reproduces. Never for keys, tokens or anything else that must be unpredictable.
///
/// The algorithm is SplitMix64 (Steele, Lea and Flood, "Fast Splittable Pseudorandom Number Generators", 2014, with
/// the constants of Vigna's `splitmix64.c`): the state advances by 0x9E3779B97F4A7C15 (2^64 over the golden ratio)
/// and each output is the new state through a 64-bit finalizer, which every seed, 0 included, passes well.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
