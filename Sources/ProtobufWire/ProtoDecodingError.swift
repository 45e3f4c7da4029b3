/// The one error type of the decoder.
///
/// Callers (the RPC layer) only need to know that a message did not parse; tests need to tell the
/// causes apart. So the error carries a stable ``Code`` and a human-readable message, and
/// equality compares the code only: a test can assert against a freshly built error such as
/// `ProtoDecodingError.truncated` without matching the message text.
public struct ProtoDecodingError: Error, Hashable, CustomStringConvertible {
    /// Why decoding failed. A struct over a private enum so that codes can be added without
    /// breaking exhaustive `switch`es in other modules.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Sendable {
            case truncated, lengthPastEnd, wrongWireType, tooDeep, invalidUTF8, invalidFieldNumber
            case malformedVarint, invalidWireType, unterminatedGroup, unexpectedEndGroup
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The input ended inside a tag or value.
        public static let truncated = Code(.truncated)
        /// A length prefix is larger than the bytes that remain.
        public static let lengthPastEnd = Code(.lengthPastEnd)
        /// A known field arrived with a wire type its declared type cannot have.
        public static let wrongWireType = Code(.wrongWireType)
        /// Messages or groups are nested deeper than ``ProtoReader/maxDepth``.
        public static let tooDeep = Code(.tooDeep)
        /// A `string` field is not valid UTF-8 (proto3 requires it to be).
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// A tag carries field number 0 or one above ``FieldTag/maxFieldNumber``.
        public static let invalidFieldNumber = Code(.invalidFieldNumber)
        /// A varint is longer than 10 bytes or overflows 64 bits.
        public static let malformedVarint = Code(.malformedVarint)
        /// A tag carries wire type 6 or 7.
        public static let invalidWireType = Code(.invalidWireType)
        /// A group was opened and the input ended before its end-group tag.
        public static let unterminatedGroup = Code(.unterminatedGroup)
        /// An end-group tag appeared without its matching start-group tag.
        public static let unexpectedEndGroup = Code(.unexpectedEndGroup)

        public var description: String { wrapped.rawValue }
    }

    public let code: Code
    public let message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "ProtoDecodingError.\(code): \(message)" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension ProtoDecodingError {
    public static var truncated: Self { Self(code: .truncated, message: "input ended inside a field") }

    public static var lengthPastEnd: Self {
        Self(code: .lengthPastEnd, message: "length prefix runs past the end of the input")
    }

    public static func wrongWireType(field: Int, expected: WireType, got: WireType) -> Self {
        Self(code: .wrongWireType, message: "field \(field): expected wire type \(expected), got \(got)")
    }

    public static var tooDeep: Self {
        Self(code: .tooDeep, message: "nesting exceeds \(ProtoReader.maxDepth) levels")
    }

    public static func invalidUTF8(field: Int) -> Self {
        Self(code: .invalidUTF8, message: "field \(field): string is not valid UTF-8")
    }

    public static var invalidFieldNumber: Self {
        Self(code: .invalidFieldNumber, message: "field number must be in 1...\(FieldTag.maxFieldNumber)")
    }

    public static var malformedVarint: Self {
        Self(code: .malformedVarint, message: "varint longer than 10 bytes or above 64 bits")
    }

    public static func invalidWireType(_ raw: UInt8) -> Self {
        Self(code: .invalidWireType, message: "wire type \(raw) does not exist")
    }

    public static func unterminatedGroup(field: Int) -> Self {
        Self(code: .unterminatedGroup, message: "group \(field) has no end-group tag")
    }

    public static func unexpectedEndGroup(field: Int) -> Self {
        Self(code: .unexpectedEndGroup, message: "end-group tag for field \(field) without a matching start")
    }
}
