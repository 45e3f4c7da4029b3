import RPCCore
import Testing

/// Builds a length-prefixed message by hand, independently of `MessageFraming`.
private func prefixed(_ payload: [UInt8], flag: UInt8 = 0, claimedLength: UInt32? = nil) -> [UInt8] {
    let length = claimedLength ?? UInt32(payload.count)
    return [flag, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        + payload
}

/// Returns every complete message currently available.
private func drain(_ deframer: inout MessageDeframer) throws(RPCError) -> [[UInt8]] {
    var messages: [[UInt8]] = []
    while let message = try deframer.next() { messages.append(message) }
    return messages
}

/// Records its input and returns a fixed transformation of it.
private final class StubDecompressor: MessageDecompressor, @unchecked Sendable {
    var calls: [(bytes: [UInt8], limit: Int)] = []
    var failure: RPCError?

    func decompress(_ bytes: ArraySlice<UInt8>, limit: Int) throws(RPCError) -> [UInt8] {
        calls.append((Array(bytes), limit))
        if let failure { throw failure }
        return Array(bytes.reversed()) + [0xEE]
    }
}

@Suite struct MessageFramingTests {
    @Test func writePrefixIsFlagThenBigEndianLength() {
        var buffer = [UInt8](repeating: 0xAA, count: 8)
        buffer.withUnsafeMutableBytes { MessageFraming.writePrefix(length: 0x0102_0304, into: $0) }
        #expect(buffer == [0x00, 0x01, 0x02, 0x03, 0x04, 0xAA, 0xAA, 0xAA], "only the first 5 bytes are written")

        buffer.withUnsafeMutableBytes { MessageFraming.writePrefix(length: 0, into: $0) }
        #expect(buffer[0..<5] == [0, 0, 0, 0, 0])

        buffer.withUnsafeMutableBytes { MessageFraming.writePrefix(length: 300, into: $0) }
        #expect(buffer[0..<5] == [0, 0, 0, 0x01, 0x2C])

        buffer.withUnsafeMutableBytes { MessageFraming.writePrefix(length: Int(UInt32.max), into: $0) }
        #expect(buffer[0..<5] == [0, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(MessageFraming.prefixLength == 5)
    }

    @Test func frameIsExact() {
        #expect(MessageFraming.frame([UInt8]()) == [0, 0, 0, 0, 0])
        #expect(MessageFraming.frame([0xAA, 0xBB]) == [0, 0, 0, 0, 2, 0xAA, 0xBB])
        let payload = (0..<70_000).map { UInt8(truncatingIfNeeded: $0) }
        #expect(MessageFraming.frame(payload) == [0, 0, 0x01, 0x11, 0x70] + payload)
        #expect(MessageFraming.frame(payload[10..<13]) == [0, 0, 0, 0, 3, 10, 11, 12], "any Collection")
    }

    static let messages: [[UInt8]] = [[1, 2, 3], [], (0..<300).map { UInt8(truncatingIfNeeded: $0) }, [0xFF], []]
    static var stream: [UInt8] { messages.flatMap { MessageFraming.frame($0) } }

    @Test func frameThenDeframeRoundTrips() throws {
        var deframer = MessageDeframer(maxMessageSize: 1_000)
        deframer.append(Self.stream)
        #expect(try drain(&deframer) == Self.messages)
        #expect(deframer.bufferedBytes == 0)
        #expect(try deframer.next() == nil)
    }

    @Test func byteByByteEqualsAllAtOnce() throws {
        var deframer = MessageDeframer(maxMessageSize: 1_000)
        var received: [[UInt8]] = []
        for byte in Self.stream {
            deframer.append([byte])
            received += try drain(&deframer)
        }
        #expect(received == Self.messages)
        #expect(deframer.bufferedBytes == 0)
    }

    @Test func everySplitPointAcrossTwoChunks() throws {
        let stream = Self.stream
        for split in 0...stream.count {
            var deframer = MessageDeframer(maxMessageSize: 1_000)
            deframer.append(Array(stream[..<split]))
            var received = try drain(&deframer)
            deframer.append(Array(stream[split...]))
            received += try drain(&deframer)
            #expect(received == Self.messages, "split at \(split)")
            #expect(deframer.bufferedBytes == 0, "split at \(split)")
        }
    }

    @Test func appendAcceptsRawBufferPointers() throws {
        var deframer = MessageDeframer(maxMessageSize: 16)
        MessageFraming.frame([9, 8, 7]).withUnsafeBytes { deframer.append($0) }
        #expect(try deframer.next() == [9, 8, 7])
    }

    @Test func manySmallMessagesInOddChunksSurviveBufferCompaction() throws {
        // Enough bytes to pass the 4096-byte compaction threshold many times.
        let messages = (0..<5_000).map { index in (0..<(index % 11)).map { UInt8(truncatingIfNeeded: index &+ $0) } }
        let stream = messages.flatMap { MessageFraming.frame($0) }
        var deframer = MessageDeframer(maxMessageSize: 64)
        var received: [[UInt8]] = []
        var offset = 0
        var chunk = 1
        while offset < stream.count {
            let end = min(stream.count, offset + chunk)
            deframer.append(Array(stream[offset..<end]))
            received += try drain(&deframer)
            offset = end
            chunk = chunk % 97 + 13
        }
        #expect(received == messages)
        #expect(deframer.bufferedBytes == 0)
    }

    @Test func bufferedBytesCountsWhatHasNotBeenReturned() throws {
        var deframer = MessageDeframer(maxMessageSize: 100)
        #expect(deframer.bufferedBytes == 0)
        let first = MessageFraming.frame([1, 2, 3, 4])
        let second = MessageFraming.frame([5, 6])
        deframer.append(Array(first[0..<3]))
        #expect(try deframer.next() == nil)
        #expect(deframer.bufferedBytes == 3)
        deframer.append(Array(first[3..<7]))
        #expect(try deframer.next() == nil, "prefix complete, body incomplete")
        #expect(deframer.bufferedBytes == 7)
        deframer.append(Array(first[7...]) + second[0..<2])
        #expect(deframer.bufferedBytes == 11)
        #expect(try deframer.next() == [1, 2, 3, 4])
        #expect(deframer.bufferedBytes == 2)
        #expect(try deframer.next() == nil)
        deframer.append(Array(second[2...]))
        #expect(try deframer.next() == [5, 6])
        #expect(deframer.bufferedBytes == 0)
    }

    @Test func emptyMessageIsAMessage() throws {
        var deframer = MessageDeframer(maxMessageSize: 0)
        deframer.append([0, 0, 0, 0, 0])
        #expect(try deframer.next() == [])
        #expect(try deframer.next() == nil)
    }

    @Test func messageOfExactlyTheMaximumPasses() throws {
        let payload = [UInt8](repeating: 7, count: 4 << 20)
        var deframer = MessageDeframer(maxMessageSize: 4 << 20)
        deframer.append(MessageFraming.frame(payload))
        #expect(try deframer.next() == payload)
    }

    @Test(arguments: [(16, UInt32(17)), (0, 1), (4 << 20, UInt32(4 << 20) + 1), (4 << 20, UInt32.max)])
    func oversizedLengthFailsAsSoonAsThePrefixIsIn(maxMessageSize: Int, claimed: UInt32) throws {
        var deframer = MessageDeframer(maxMessageSize: maxMessageSize)
        let prefix = prefixed([], claimedLength: claimed)
        deframer.append(Array(prefix[0..<4]))
        #expect(try deframer.next() == nil, "four bytes do not reveal the length yet")
        deframer.append(Array(prefix[4...]))
        // Only the 5-byte prefix is buffered; the error must not wait for (or reserve room for) the body.
        let error = #expect(throws: RPCError.self) { try deframer.next() }
        #expect(error?.code == .resourceExhausted)
        #expect(error?.message.contains(String(claimed)) == true)
        #expect(error?.message.contains(String(maxMessageSize)) == true)
        #expect(deframer.bufferedBytes == 5)
    }

    @Test func oversizedCompressedMessageIsAlsoResourceExhausted() {
        var deframer = MessageDeframer(maxMessageSize: 10, decompressor: StubDecompressor())
        deframer.append(prefixed([], flag: 1, claimedLength: 11))
        let error = #expect(throws: RPCError.self) { try deframer.next() }
        #expect(error?.code == .resourceExhausted)
    }

    @Test func compressedFlagWithoutDecompressorIsInternal() {
        var deframer = MessageDeframer(maxMessageSize: 100)
        deframer.append(prefixed([1, 2, 3], flag: 1))
        let error = #expect(throws: RPCError.self) { try deframer.next() }
        #expect(error?.code == .internal)
        #expect(error?.message.contains("grpc-encoding") == true)
    }

    @Test(arguments: [UInt8(2), 3, 0x80, 0xFF])
    func invalidCompressedFlagIsInternal(flag: UInt8) {
        var deframer = MessageDeframer(maxMessageSize: 100, decompressor: StubDecompressor())
        deframer.append(prefixed([1, 2, 3], flag: flag))
        let error = #expect(throws: RPCError.self) { try deframer.next() }
        #expect(error?.code == .internal)
        #expect(error?.message.contains("\(flag)") == true)
    }

    @Test func invalidFlagIsReportedFromThePrefixAlone() {
        var deframer = MessageDeframer(maxMessageSize: 100)
        deframer.append(prefixed([], flag: 2, claimedLength: 50))
        let error = #expect(throws: RPCError.self) { try deframer.next() }
        #expect(error?.code == .internal)
    }

    @Test func decompressorGetsThePayloadAndTheLimit() throws {
        let stub = StubDecompressor()
        var deframer = MessageDeframer(maxMessageSize: 321, decompressor: stub)
        deframer.append(prefixed([1, 2, 3], flag: 1) + prefixed([4, 5], flag: 0) + prefixed([6], flag: 1))
        #expect(try deframer.next() == [3, 2, 1, 0xEE])
        #expect(try deframer.next() == [4, 5], "uncompressed messages bypass the decompressor")
        #expect(try deframer.next() == [6, 0xEE])
        #expect(stub.calls.map(\.bytes) == [[1, 2, 3], [6]])
        #expect(stub.calls.map(\.limit) == [321, 321])
        #expect(deframer.bufferedBytes == 0)
    }

    @Test func decompressorErrorsPropagate() {
        let stub = StubDecompressor()
        stub.failure = RPCError(code: .resourceExhausted, message: "inflated too far")
        var deframer = MessageDeframer(maxMessageSize: 8, decompressor: stub)
        deframer.append(prefixed([1, 2, 3], flag: 1))
        let error = #expect(throws: RPCError.self) { try deframer.next() }
        #expect(error?.code == .resourceExhausted)
        #expect(error?.message == "inflated too far")
    }

    // MARK: receive(_:_:), which makes whole messages straight from the chunk

    /// Every message `receive` hands over, chunk after chunk.
    private static func received(_ chunks: [[UInt8]], maxMessageSize: Int = 1_000) throws -> [[UInt8]] {
        var deframer = MessageDeframer(maxMessageSize: maxMessageSize, decompressor: StubDecompressor())
        var messages: [[UInt8]] = []
        for chunk in chunks {
            try chunk.withUnsafeBytes { bytes in
                try deframer.receive(bytes) { message in
                    messages.append(message)
                    return true
                }
            }
        }
        #expect(deframer.bufferedBytes == 0)
        return messages
    }

    @Test func receiveTakesWholeMessagesFromOneChunk() throws {
        #expect(try Self.received([Self.stream]) == Self.messages)
    }

    @Test func receiveAtEverySplitPointAcrossTwoChunks() throws {
        let stream = Self.stream
        for split in 0...stream.count {
            #expect(try Self.received([Array(stream[..<split]), Array(stream[split...])]) == Self.messages, "split at \(split)")
        }
    }

    @Test func receiveByteByByte() throws {
        #expect(try Self.received(Self.stream.map { [$0] }) == Self.messages)
    }

    @Test func receiveDecompressesFlaggedMessages() throws {
        #expect(try Self.received([prefixed([1, 2, 3], flag: 1) + prefixed([4])]) == [[3, 2, 1, 0xEE], [4]])
    }

    @Test func receiveStopsWhenTheBodySaysSo() throws {
        var deframer = MessageDeframer(maxMessageSize: 100)
        var messages: [[UInt8]] = []
        try Self.stream.withUnsafeBytes { bytes in
            try deframer.receive(bytes) { message in
                messages.append(message)
                return messages.count < 2
            }
        }
        #expect(messages == Array(Self.messages.prefix(2)))
    }

    @Test func receiveChecksThePrefixOfAMessageThatArrivesWhole() {
        var deframer = MessageDeframer(maxMessageSize: 2)
        let tooLarge = prefixed([1, 2, 3])
        let error = #expect(throws: RPCError.self) {
            try tooLarge.withUnsafeBytes { bytes in try deframer.receive(bytes) { _ in true } }
        }
        #expect(error?.code == .resourceExhausted)
        let badFlag = prefixed([1], flag: 7)
        let flagError = #expect(throws: RPCError.self) {
            try badFlag.withUnsafeBytes { bytes in try deframer.receive(bytes) { _ in true } }
        }
        #expect(flagError?.code == .internal)
    }
}
