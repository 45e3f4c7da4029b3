import ProtobufWire
import TestSupport
import Testing

/// Decodes thousands of pseudo-random inputs: decoding may succeed or throw a
/// ``ProtoDecodingError``, nothing else, and what decodes re-encodes stably.
@Suite struct FuzzTests {
    static var seedMessage: TestScalars {
        var message = TestScalars()
        message.int32 = -5
        message.sint64 = -77
        message.fixed64 = 12
        message.double = 2.5
        message.string = "seed ✓"
        message.color = .red
        message.node = TestNode(name: "a", children: [TestNode(name: "b", children: [TestNode(name: "c")])])
        message.uint64s = [1, 300, 70_000]
        message.fixed32s = [7]
        message.nodes = [TestNode(name: "d")]
        message.unknownFields = hex("9b 03 08 01 9c 03 da 3e 01 61")
        return message
    }

    @Test func randomAndMutatedInputsNeverCrash() {
        var random = SeededRandomNumberGenerator(seed: 0x9E37_79B9_7F4A_7C15)
        let seed = Self.seedMessage.serializedBytes()
        var outcomes = (decoded: 0, rejected: 0)
        for round in 0..<4_000 {
            var input: [UInt8]
            if round % 2 == 0 {
                input = (0..<random.below(48)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            } else {
                input = seed
                for _ in 0...random.below(4) {
                    input[random.below(input.count)] = UInt8(truncatingIfNeeded: random.next())
                }
                input.removeLast(random.below(4) == 0 ? random.below(input.count) : 0)
            }
            do {
                let message = try TestScalars(serializedBytes: input)
                let canonical = message.serializedBytes()
                #expect(try TestScalars(serializedBytes: canonical).serializedBytes() == canonical, "round \(round)")
                outcomes.decoded += 1
            } catch is ProtoDecodingError {
                outcomes.rejected += 1
            } catch {
                Issue.record("round \(round): unexpected error \(error)")
            }
        }
        #expect(outcomes.decoded > 100)
        #expect(outcomes.rejected > 100)
    }
}

extension SeededRandomNumberGenerator {
    /// A number in 0..<bound.
    fileprivate mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
