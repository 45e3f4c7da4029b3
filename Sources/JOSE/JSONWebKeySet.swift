import BoundedText
public import Crypto
import Encodings
import Foundation

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
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: Data(json))
        } catch let error as DecodingError {
            throw .malformedKeySet(
                "not a JSON object with a `keys` array of JWK objects with string members: "
                    + error.pathAndProblem.truncated(toUTF8Bytes: maxQuotedInputBytes))
        } catch {
            throw .malformedKeySet("not a JSON Web Key Set: \("\(error)".truncated(toUTF8Bytes: maxQuotedInputBytes))")
        }
        guard document.keys.count <= Self.maximumKeyCount else {
            throw .malformedKeySet("the key set has \(document.keys.count) keys; at most \(Self.maximumKeyCount) are read")
        }
        var keys: [String: RSA.PublicKey] = [:]
        for (index, entry) in document.keys.enumerated() {
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
        struct Key: Encodable {
            var kty = "RSA"
            var use = "sig"
            var alg = "RS256"
            var kid: String
            var n: String
            var e: String
        }
        struct Document: Encodable {
            var keys: [Key]
        }
        let document = Document(
            keys: keys.sorted { $0.key < $1.key }.map { kid, key in
                Key(
                    kid: kid, n: Base64.encode(key.modulus, alphabet: .url, padded: false),
                    e: Base64.encode(key.exponent, alphabet: .url, padded: false))
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let json = try? encoder.encode(document) else { preconditionFailure("JSONEncoder failed on strings") }
        return Array(json)
    }

    private struct Document: Decodable {
        var keys: [Entry]
    }

    /// One JWK: its `kty`, and its RSA members only when it is an RSA key, so that keys of other types need not have
    /// members of the types an RSA key's have.
    private struct Entry: Decodable {
        struct RSAMembers {
            var kid: String?
            var use: String?
            var alg: String?
            var n: String?
            var e: String?
        }

        enum CodingKeys: String, CodingKey {
            case kty, kid, use, alg, n, e
        }

        var rsa: RSAMembers?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard try container.decode(String.self, forKey: .kty) == "RSA" else {
                rsa = nil
                return
            }
            rsa = RSAMembers(
                kid: try container.decodeIfPresent(String.self, forKey: .kid),
                use: try container.decodeIfPresent(String.self, forKey: .use),
                alg: try container.decodeIfPresent(String.self, forKey: .alg),
                n: try container.decodeIfPresent(String.self, forKey: .n),
                e: try container.decodeIfPresent(String.self, forKey: .e))
        }
    }
}
