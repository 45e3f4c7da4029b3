import BoundedText
public import Crypto
import Encodings

/// A JSON Web Key Set (RFC 7517 §5) reduced to what signature verification uses: its RSA keys for RS256 and its
/// P-256 keys for ES256 (RFC 7518 §6.2), by `kid`, as Google publishes its keys
/// (`{"keys":[{"kty":"RSA","kid":"...","n":"...","e":"...","alg":"RS256","use":"sig"}, ...]}`) and a tenant's backend
/// publishes the keys it signs user tokens with (`{"kty":"EC","crv":"P-256","kid":"...","x":"...","y":"..."}`).
///
/// The document must be a JSON object whose `keys` is an array of at most ``maximumKeyCount`` objects, each with a
/// string `kty`. Keys that are not for us are skipped, not errors: another `kty` or EC curve, a `use` other than
/// `sig`, an `alg` other than `RS256` for an RSA key or `ES256` for a P-256 key (RFC 7517 lets a set carry keys for
/// other purposes). Every key that is left needs a non-empty `kid` no other kept key has, and its members in base64url
/// without padding (`n` and `e` making a key ``RSA/PublicKey`` accepts; `x` and `y` of 32 bytes each, a point on the
/// curve); otherwise the whole set is refused, naming the key, rather than the key dropped without a word and its
/// tokens later failing as signed by an unknown key.
public struct JSONWebKeySet: Sendable, Hashable {
    /// Google's set holds two or three keys; more than this is not a key set we were meant to read.
    public static let maximumKeyCount = 100
    /// Bounds the JSON parse before the key count can be checked (100 keys of 16384 bits take about 300 KB).
    public static let maximumDocumentBytes = 512 * 1024

    /// The RS256 signing keys by `kid`.
    public let keys: [String: RSA.PublicKey]
    /// The ES256 signing keys by `kid`.
    public let es256Keys: [String: P256.PublicKey]

    /// Whether a key of either kind has this `kid`.
    public func has(_ kid: String) -> Bool { keys[kid] != nil || es256Keys[kid] != nil }

    public init(keys: [String: RSA.PublicKey], es256Keys: [String: P256.PublicKey] = [:]) {
        self.keys = keys
        self.es256Keys = es256Keys
    }

    /// Parses a JWKS document (UTF-8 JSON); `.malformedKeySet` when it is not one of the shape described above.
    public init(json: some Collection<UInt8>) throws(JOSEError) {
        guard json.count <= Self.maximumDocumentBytes else {
            throw .malformedKeySet("the key set is \(json.count) bytes; at most \(Self.maximumDocumentBytes) are read")
        }
        let entries: [Entry]
        do {
            entries = try JSONReader.read(Array(json)) { reader throws(JSONReadError) in try Entry.readSet(&reader) }
        } catch {
            throw .malformedKeySet(
                "not a JSON object with a `keys` array of JWK objects with string members: "
                    + error.description.truncated(toUTF8Bytes: maxQuotedInputBytes))
        }
        guard entries.count <= Self.maximumKeyCount else {
            throw .malformedKeySet("the key set has \(entries.count) keys; at most \(Self.maximumKeyCount) are read")
        }
        var keys: [String: RSA.PublicKey] = [:]
        var es256Keys: [String: P256.PublicKey] = [:]
        for (index, entry) in entries.enumerated() {
            guard let members = entry.members, (members.use ?? "sig") == "sig",
                (members.alg ?? entry.algorithm) == entry.algorithm
            else { continue }
            let name = "keys[\(index)]"
            guard let kid = members.kid, !kid.isEmpty else {
                throw .malformedKeySet("\(name) has no kid; keys are chosen by the token header's kid")
            }
            let named = "\(name) (kid \(kid.quotedForMessage))"
            guard keys[kid] == nil, es256Keys[kid] == nil else {
                throw .malformedKeySet("\(named): another signing key has the same kid")
            }
            if entry.algorithm == "RS256" {
                keys[kid] = try Self.rsaKey(members, named)
            } else {
                es256Keys[kid] = try Self.p256Key(members, named)
            }
        }
        self.keys = keys
        self.es256Keys = es256Keys
    }

    private static func rsaKey(_ members: Entry.Members, _ named: String) throws(JOSEError) -> RSA.PublicKey {
        guard let encodedN = members.n, let encodedE = members.e else {
            throw .malformedKeySet("\(named) lacks `n` or `e`; an RSA key has both")
        }
        guard let n = Base64.decode(encodedN, alphabet: .url, padding: .forbidden),
            let e = Base64.decode(encodedE, alphabet: .url, padding: .forbidden)
        else {
            throw .malformedKeySet("\(named): `n` and `e` must be base64url (A-Z a-z 0-9 - _, no padding)")
        }
        do {
            return try RSA.PublicKey(modulus: n, exponent: e)
        } catch {
            throw .malformedKeySet("\(named) is not a usable RS256 key: \(error.message)")
        }
    }

    private static func p256Key(_ members: Entry.Members, _ named: String) throws(JOSEError) -> P256.PublicKey {
        guard let encodedX = members.x, let encodedY = members.y else {
            throw .malformedKeySet("\(named) lacks `x` or `y`; a P-256 key has both")
        }
        // RFC 7518 §6.2.1.2: each coordinate is the full 32 bytes, leading zeros kept.
        guard let x = Base64.decode(encodedX, alphabet: .url, padding: .forbidden),
            let y = Base64.decode(encodedY, alphabet: .url, padding: .forbidden), x.count == 32, y.count == 32
        else {
            throw .malformedKeySet("\(named): `x` and `y` must be 32 bytes each in base64url (no padding)")
        }
        do {
            return try P256.PublicKey(x963Representation: [0x04] + x + y)
        } catch {
            throw .malformedKeySet("\(named) is not a usable ES256 key: \(error.message)")
        }
    }

    /// The set as a JWKS document: the RSA keys with `kty` `RSA`, `use` `sig` and `alg` `RS256`, then the P-256 keys
    /// with `kty` `EC`, `crv` `P-256` and `alg` `ES256`, each in `kid` order: what a fake key server or a tenant
    /// publishes, and what ``init(json:)`` reads back to the same keys.
    public var jsonRepresentation: [UInt8] {
        // Members in name order, as Google publishes them.
        let rsa = keys.sorted { $0.key < $1.key }.map { kid, key in
            JSONValue.object([
                ("alg", .string("RS256")),
                ("e", .string(Base64.encode(key.exponent, alphabet: .url, padded: false))),
                ("kid", .string(kid)),
                ("kty", .string("RSA")),
                ("n", .string(Base64.encode(key.modulus, alphabet: .url, padded: false))),
                ("use", .string("sig")),
            ])
        }
        let p256 = es256Keys.sorted { $0.key < $1.key }.map { kid, key in
            let point = key.x963Representation
            return JSONValue.object([
                ("alg", .string("ES256")),
                ("crv", .string("P-256")),
                ("kid", .string(kid)),
                ("kty", .string("EC")),
                ("use", .string("sig")),
                ("x", .string(Base64.encode(point[1..<33], alphabet: .url, padded: false))),
                ("y", .string(Base64.encode(point[33...], alphabet: .url, padded: false))),
            ])
        }
        return Array(JSONValue.object([("keys", .array(rsa + p256))]).text.utf8)
    }

    /// One JWK: its members only when it is a key type we verify with (RSA, or EC on P-256), so that keys of other
    /// types need not have members of the types ours have.
    private struct Entry: JSONReadable {
        struct Members {
            var kid: String?
            var use: String?
            var alg: String?
            var n: String?
            var e: String?
            var crv: String?
            var x: String?
            var y: String?
        }

        var members: Members?
        /// `RS256` for an RSA key, `ES256` for a P-256 key: the only algorithm each is used with here.
        var algorithm = ""

        /// The `keys` of a set document; other members are skipped.
        static func readSet(_ reader: inout JSONReader) throws(JSONReadError) -> [Entry] {
            var entries: [Entry]?
            try reader.readObject { reader, key throws(JSONReadError) in
                guard key == "keys" else { return try reader.skipValue() }
                entries = try reader.readArray(of: Entry.self)
            }
            guard let entries else { throw .missing("keys") }
            return entries
        }

        /// Where a member this reader keeps goes; nil for members it skips.
        private static func member(_ key: JSONReader.Key) -> WritableKeyPath<Members, String?>? {
            if key == "kid" { return \.kid }
            if key == "use" { return \.use }
            if key == "alg" { return \.alg }
            if key == "n" { return \.n }
            if key == "e" { return \.e }
            if key == "crv" { return \.crv }
            if key == "x" { return \.x }
            if key == "y" { return \.y }
            return nil
        }

        init(json reader: inout JSONReader) throws(JSONReadError) {
            var kty: String?
            var members = Members()
            // The first member that is not a string (or null), kept until `kty` says whether it matters.
            var misfit: JSONReadError?
            try reader.readObject { reader, key throws(JSONReadError) in
                if key == "kty" {
                    kty = try reader.readString()
                    return
                }
                guard let member = Self.member(key) else { return try reader.skipValue() }
                do throws(JSONReadError) {
                    members[keyPath: member] = try reader.optionalString()
                } catch {
                    // A type mismatch leaves the reader before the value; anything else is a syntax error, and
                    // skipping finds it again.
                    if misfit == nil { misfit = error.inside(key.text) }
                    try reader.skipValue()
                }
            }
            guard let kty else { throw .missing("kty") }
            switch kty {
            case "RSA": algorithm = "RS256"
            case "EC" where members.crv == "P-256": algorithm = "ES256"
            default: return
            }
            if let misfit { throw misfit }
            self.members = members
        }
    }
}
