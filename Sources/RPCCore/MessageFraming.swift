/// The gRPC length-prefixed message: a 1-byte compressed flag, a 4-byte big-endian length, then the bytes.
public enum MessageFraming {
    public static let prefixLength = 5
    /// gRPC-Web's flag for the frame that carries the trailers (the flag byte's most significant bit).
    public static let trailersFlag: UInt8 = 0x80

    /// Writes the prefix of a message of `length` bytes into `buffer` (at least 5 bytes): uncompressed unless
    /// `flags` says otherwise.
    public static func writePrefix(length: Int, flags: UInt8 = 0, into buffer: UnsafeMutableRawBufferPointer) {
        buffer[0] = flags
        buffer[1] = UInt8(truncatingIfNeeded: length >> 24)
        buffer[2] = UInt8(truncatingIfNeeded: length >> 16)
        buffer[3] = UInt8(truncatingIfNeeded: length >> 8)
        buffer[4] = UInt8(truncatingIfNeeded: length)
    }

    /// A framed message: uncompressed unless `flags` says otherwise (gRPC-Web's trailers frame: ``trailersFlag``).
    public static func frame(_ message: some Collection<UInt8>, flags: UInt8 = 0) -> [UInt8] {
        var framed = [UInt8](repeating: 0, count: prefixLength)
        framed.withUnsafeMutableBytes { writePrefix(length: message.count, flags: flags, into: $0) }
        framed.append(contentsOf: message)
        return framed
    }
}

/// Decompresses messages whose compressed flag is set, for the `grpc-encoding` the client named.
public protocol MessageDecompressor: Sendable {
    /// Fails (as `INTERNAL`) on corrupt input, and as `RESOURCE_EXHAUSTED` once the output would pass `limit`.
    func decompress(_ bytes: ArraySlice<UInt8>, limit: Int) throws(RPCError) -> [UInt8]
}

/// Reassembles length-prefixed messages from DATA payloads cut at arbitrary boundaries.
///
/// The length prefix is untrusted: it is checked against the maximum before any buffer is sized from it.
public struct MessageDeframer {
    private var buffer: [UInt8] = []
    private var readIndex = 0
    private let maxMessageSize: Int
    private let decompressor: (any MessageDecompressor)?

    public init(maxMessageSize: Int, decompressor: (any MessageDecompressor)? = nil) {
        self.maxMessageSize = maxMessageSize
        self.decompressor = decompressor
    }

    /// Bytes received but not yet returned as a message.
    public var bufferedBytes: Int { buffer.count - readIndex }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if readIndex > 0, readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex > 4096, readIndex * 2 > buffer.count {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Appends `bytes` and hands each whole message to `body` until it returns false. A message that arrives whole
    /// while nothing is buffered (a small request in one DATA frame, the common case) is made straight from
    /// `bytes`, without passing through the buffer.
    public mutating func receive(
        _ bytes: UnsafeRawBufferPointer, _ body: ([UInt8]) throws(RPCError) -> Bool
    ) throws(RPCError) {
        var rest = bytes
        if bufferedBytes == 0 {
            while rest.count >= MessageFraming.prefixLength {
                let length = Self.length(rest[1], rest[2], rest[3], rest[4])
                try check(flag: rest[0], length: length)
                let end = MessageFraming.prefixLength + length
                guard rest.count >= end else { break }
                let payload = UnsafeRawBufferPointer(rebasing: rest[MessageFraming.prefixLength..<end])
                let message = rest[0] == 0 ? Array(payload) : try decompress(ArraySlice(payload))
                rest = UnsafeRawBufferPointer(rebasing: rest[end...])
                guard try body(message) else { return }
            }
        }
        guard !rest.isEmpty else { return }
        append(rest)
        try drain(body)
    }

    /// ``receive(_:_:)`` for bytes already in an array (a gRPC-Web text body, decoded): appended, then drained.
    public mutating func receive(_ bytes: [UInt8], _ body: ([UInt8]) throws(RPCError) -> Bool) throws(RPCError) {
        append(bytes)
        try drain(body)
    }

    /// Hands each whole buffered message to `body` until it returns false.
    private mutating func drain(_ body: ([UInt8]) throws(RPCError) -> Bool) throws(RPCError) {
        while let message = try next() {
            guard try body(message) else { return }
        }
    }

    /// The next whole message, or nil until more bytes arrive.
    public mutating func next() throws(RPCError) -> [UInt8]? {
        guard bufferedBytes >= MessageFraming.prefixLength else { return nil }
        let flag = buffer[readIndex]
        let length = Self.length(buffer[readIndex + 1], buffer[readIndex + 2], buffer[readIndex + 3], buffer[readIndex + 4])
        try check(flag: flag, length: length)
        guard bufferedBytes >= MessageFraming.prefixLength + length else { return nil }
        let start = readIndex + MessageFraming.prefixLength
        readIndex = start + length
        let payload = buffer[start..<readIndex]
        return flag == 0 ? Array(payload) : try decompress(payload)
    }

    private static func length(_ b1: UInt8, _ b2: UInt8, _ b3: UInt8, _ b4: UInt8) -> Int {
        Int(b1) << 24 | Int(b2) << 16 | Int(b3) << 8 | Int(b4)
    }

    /// A message prefix's flag and length, checked before anything is sized from them.
    private func check(flag: UInt8, length: Int) throws(RPCError) {
        guard length <= maxMessageSize else {
            throw RPCError(
                code: .resourceExhausted,
                message: "Received message of \(length) bytes exceeds the limit of \(maxMessageSize) bytes."
            )
        }
        guard flag <= 1 else {
            throw RPCError(code: .internal, message: "Invalid compressed flag \(flag) in message prefix.")
        }
    }

    private func decompress(_ payload: ArraySlice<UInt8>) throws(RPCError) -> [UInt8] {
        guard let decompressor else {
            throw RPCError(
                code: .internal,
                message: "Compressed flag set on a message but the request has no grpc-encoding."
            )
        }
        return try decompressor.decompress(payload, limit: maxMessageSize)
    }
}
