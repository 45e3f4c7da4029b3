import BoundedText
public import Crypto
import Encodings

/// A JSON Web Key Set (RFC 7517 §5) reduced to what RS256 verification uses: its RSA signing keys by `kid`, as Google
/// publishes them (`{"keys":[{"kty":"RSA","kid":"...","n":"...","e":"...","alg":"RS256","use":"sig"}, ...]}`).
///
/// The document must be a JSON object whose `keys` is an array of at most ``maximumKeyCount`` objects, each with a
/// string `kty`. Keys that are not for us are skipped, not errors: another `kty`, a `use` other than `sig`, an `alg`
/// other than `RS256` (RFC 7517 lets a set carry keys for other purposes). Every RSA key that is left needs a
/// non-empty `kid` no other key has, and `n` and `e` in base64url without padding that make a key
/// ``RSA/PublicKey`` accepts; otherwise the whole set is refused, naming the key, rather than the key dropped
/// without a word and its tokens later failing as signed by an unknown key.
public struct JSONWebKeySet: Sendable, Hashable {
    /// Google's set holds two or three keys; more than this is not a key set we were meant to read.
    public static let maximumKeyCount = 100
    /// Bounds the JSON parse before the key count can be checked (100 keys of 16384 bits take about 300 KB).
    public static let maximumDocumentBytes = 512 * 1024

    /// The RS256 signing keys by `kid`.
    public let keys: [String: RSA.PublicKey]

    public init(keys: [String: RSA.PublicKey]) {
        self.keys = keys
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
        for (index, entry) in entries.enumerated() {
            guard let rsa = entry.rsa, (rsa.use ?? "sig") == "sig", (rsa.alg ?? "RS256") == "RS256" else { continue }
            let name = "keys[\(index)]"
            guard let kid = rsa.kid, !kid.isEmpty else {
                throw .malformedKeySet("\(name) has no kid; keys are chosen by the token header's kid")
            }
            let named = "\(name) (kid \(kid.quotedForMessage))"
            guard keys[kid] == nil else { throw .malformedKeySet("\(named): another RS256 key has the same kid") }
            guard let encodedN = rsa.n, let encodedE = rsa.e else {
                throw .malformedKeySet("\(named) lacks `n` or `e`; an RSA key has both")
            }
            guard let n = Base64.decode(encodedN, alphabet: .url, padding: .forbidden),
                let e = Base64.decode(encodedE, alphabet: .url, padding: .forbidden)
            else {
                throw .malformedKeySet("\(named): `n` and `e` must be base64url (A-Z a-z 0-9 - _, no padding)")
            }
            do {
                keys[kid] = try RSA.PublicKey(modulus: n, exponent: e)
            } catch {
                throw .malformedKeySet("\(named) is not a usable RS256 key: \(error.message)")
            }
        }
        self.keys = keys
    }

    /// The set as a JWKS document, each key with `kty` `RSA`, `use` `sig` and `alg` `RS256`, in `kid` order: what a
    /// fake key server publishes, and what ``init(json:)`` reads back to the same keys.
    public var jsonRepresentation: [UInt8] {
        // Members in name order, as Google publishes them.
        let keys = keys.sorted { $0.key < $1.key }.map { kid, key in
            JSONValue.object([
                ("alg", .string("RS256")),
                ("e", .string(Base64.encode(key.exponent, alphabet: .url, padded: false))),
                ("kid", .string(kid)),
                ("kty", .string("RSA")),
                ("n", .string(Base64.encode(key.modulus, alphabet: .url, padded: false))),
                ("use", .string("sig")),
            ])
        }
        return Array(JSONValue.object([("keys", .array(keys))]).text.utf8)
    }

    /// One JWK: its `kty`, and its RSA members only when it is an RSA key, so that keys of other types need not have
    /// members of the types an RSA key's have.
    private struct Entry: JSONReadable {
        struct RSAMembers {
            var kid: String?
            var use: String?
            var alg: String?
            var n: String?
            var e: String?
        }

        var rsa: RSAMembers?

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

        init(json reader: inout JSONReader) throws(JSONReadError) {
            var kty: String?
            var members = RSAMembers()
            // The first member that is not a string (or null), kept until `kty` says whether it matters.
            var misfit: JSONReadError?
            try reader.readObject { reader, key throws(JSONReadError) in
                if key == "kty" {
                    kty = try reader.readString()
                    return
                }
                let member: WritableKeyPath<RSAMembers, String?>
                if key == "kid" {
                    member = \.kid
                } else if key == "use" {
                    member = \.use
                } else if key == "alg" {
                    member = \.alg
                } else if key == "n" {
                    member = \.n
                } else if key == "e" {
                    member = \.e
                } else {
                    return try reader.skipValue()
                }
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
            guard kty == "RSA" else {
                rsa = nil
                return
            }
            if let misfit { throw misfit }
            rsa = members
        }
    }
}
