import Crypto
import Encodings
import Foundation
import TestSupport
import Testing

/// RS256 keys and signatures, checked against keys and signatures the `openssl` command line made
/// (Tests/Fixtures/rsa, README there) and against `openssl dgst -verify` at test time.
@Suite struct RSATests {
    let message = Array("eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ0ZXN0In0".utf8)

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try RepositoryFiles.data("Tests/Fixtures/rsa/" + name))
    }

    static func fixtureText(_ name: String) throws -> String { String(decoding: try fixture(name), as: UTF8.self) }

    @Test func signatureRoundTrip() throws {
        let key = try RSA.PrivateKey()
        let signature = try key.signatureRS256(for: message)
        #expect(signature.count == 256)
        #expect(key.publicKey.modulus.count == 256)
        #expect(key.publicKey.exponent == [0x01, 0x00, 0x01])
        #expect(key.publicKey.isValidRS256Signature(signature, for: message))
        // PKCS #1 v1.5 has no randomness: the same key and message give the same bytes.
        #expect(try key.signatureRS256(for: message) == signature)
        #expect(!(try RSA.PrivateKey()).publicKey.isValidRS256Signature(signature, for: message))
    }

    @Test func tamperedMessageOrSignatureFails() throws {
        let key = try RSA.PrivateKey()
        let signature = try key.signatureRS256(for: message)
        for bit in [0, 7, 100, message.count * 8 - 1] {
            var tampered = message
            tampered[bit / 8] ^= 1 << (bit % 8)
            #expect(!key.publicKey.isValidRS256Signature(signature, for: tampered))
        }
        for bit in [0, 8, 1000, 2047] {
            var tampered = signature
            tampered[bit / 8] ^= 1 << (bit % 8)
            #expect(!key.publicKey.isValidRS256Signature(tampered, for: message))
        }
        #expect(!key.publicKey.isValidRS256Signature(signature, for: message + [0]))
        #expect(!key.publicKey.isValidRS256Signature(signature, for: []))
    }

    @Test func signaturesNotOfTheModulusLengthFail() throws {
        let key = try RSA.PrivateKey()
        let signature = try key.signatureRS256(for: message)
        #expect(!key.publicKey.isValidRS256Signature(Array(signature.dropLast()), for: message))
        #expect(!key.publicKey.isValidRS256Signature(signature + [0], for: message))
        // The same number with a leading zero byte: RFC 8017 wants exactly k bytes.
        #expect(!key.publicKey.isValidRS256Signature([0] + signature, for: message))
        #expect(!key.publicKey.isValidRS256Signature([], for: message))
        #expect(!key.publicKey.isValidRS256Signature([UInt8](repeating: 0, count: 256), for: message))
        #expect(!key.publicKey.isValidRS256Signature([UInt8](repeating: 0xFF, count: 256), for: message))
    }

    @Test func matchesWhatTheOpenSSLCommandSigned() throws {
        let key = try RSA.PrivateKey(pemRepresentation: Self.fixtureText("private-pkcs8.pem"))
        let message = try Self.fixture("message.txt")
        let signature = try Self.fixture("message.sig")
        #expect(key.publicKey.isValidRS256Signature(signature, for: message))
        // Byte for byte what `openssl dgst -sha256 -sign` made, so ours carries the same SHA-256 DigestInfo.
        #expect(try key.signatureRS256(for: message) == signature)
        #expect(!key.publicKey.isValidRS256Signature(signature, for: Array(message.dropLast())))
        #expect(!(try RSA.PrivateKey()).publicKey.isValidRS256Signature(signature, for: message))
    }

    @Test func theOpenSSLCommandVerifiesOurs() async throws {
        let key = try RSA.PrivateKey()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rsa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(key.publicKey.pemRepresentation.utf8).write(to: directory.appendingPathComponent("public.pem"))
        try Data(message).write(to: directory.appendingPathComponent("message"))
        try Data(key.signatureRS256(for: message)).write(to: directory.appendingPathComponent("signature"))
        try Data(message + [0]).write(to: directory.appendingPathComponent("other"))
        func opensslVerifies(_ file: String) async throws -> Bool {
            try await ProcessLaunch.run(
                "/usr/bin/openssl", ["dgst", "-sha256", "-verify", "public.pem", "-signature", "signature", file],
                directory: directory.path) == 0
        }
        #expect(try await opensslVerifies("message"))
        #expect(try await !opensslVerifies("other"))
    }

    @Test func pkcs1AndPKCS8PEMsReadTheSameKey() throws {
        let pkcs8 = try RSA.PrivateKey(pemRepresentation: Self.fixtureText("private-pkcs8.pem"))
        let pkcs1 = try RSA.PrivateKey(pemRepresentation: Self.fixtureText("private-pkcs1.pem"))
        let spki = try RSA.PublicKey(pemRepresentation: Self.fixtureText("public-spki.pem"))
        let pkcs1Public = try RSA.PublicKey(pemRepresentation: Self.fixtureText("public-pkcs1.pem"))
        #expect(pkcs8.publicKey == spki)
        #expect(pkcs1.publicKey == spki)
        #expect(pkcs1Public == spki)
        #expect(spki.modulus.count == 256)
        #expect(try pkcs1Public.isValidRS256Signature(Self.fixture("message.sig"), for: Self.fixture("message.txt")))
        // Written back as PKCS #8 whatever it was read from, and the public key as OpenSSL's own SPKI PEM.
        #expect(pkcs1.pemRepresentation == pkcs8.pemRepresentation)
        #expect(pkcs1.pemRepresentation.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(try spki.pemRepresentation == Self.fixtureText("public-spki.pem"))
        #expect(try RSA.PrivateKey(pemRepresentation: pkcs1.pemRepresentation).publicKey == spki)
        let fresh = try RSA.PrivateKey()
        #expect(try RSA.PrivateKey(pemRepresentation: fresh.pemRepresentation).publicKey == fresh.publicKey)
        #expect(try RSA.PublicKey(pemRepresentation: fresh.publicKey.pemRepresentation) == fresh.publicKey)
    }

    @Test func jwkNumbersGiveTheSameKey() throws {
        struct JWK: Decodable {
            var n: String
            var e: String
        }
        let jwk = try JSONDecoder().decode(JWK.self, from: Data(Self.fixture("public-jwk.json")))
        let modulus = try #require(Base64.decode(jwk.n, alphabet: .url, padding: .forbidden))
        let exponent = try #require(Base64.decode(jwk.e, alphabet: .url, padding: .forbidden))
        let key = try RSA.PublicKey(modulus: modulus, exponent: exponent)
        #expect(try key == RSA.PublicKey(pemRepresentation: Self.fixtureText("public-spki.pem")))
        #expect(try key.isValidRS256Signature(Self.fixture("message.sig"), for: Self.fixture("message.txt")))
        // The getters give back exactly what a JWK publishes.
        #expect(Base64.encode(key.modulus, alphabet: .url, padded: false) == jwk.n)
        #expect(Base64.encode(key.exponent, alphabet: .url, padded: false) == jwk.e)
        // Leading zero bytes are tolerated and dropped.
        let padded = try RSA.PublicKey(modulus: [0, 0] + modulus, exponent: [0] + exponent)
        #expect(padded == key)
        #expect(padded.hashValue == key.hashValue)
        #expect(padded.modulus == modulus && padded.exponent == exponent)
        #expect(Set([key, padded, try RSA.PrivateKey().publicKey]).count == 2)
    }

    @Test func keysUnder2048BitsAreRefused() throws {
        #expect(errorCode { _ = try RSA.PrivateKey(pemRepresentation: Self.fixtureText("private-1024.pem")) } == .unsupported)
        #expect(errorCode { _ = try RSA.PrivateKey(bits: 1024) } == .unsupported)
        #expect(errorCode { _ = try RSA.PrivateKey(bits: 16_385) } == .unsupported)
        let modulus = try RSA.PublicKey(pemRepresentation: Self.fixtureText("public-spki.pem")).modulus
        // 2047 bits: the top bit cleared, still odd.
        let short = thrownError { _ = try RSA.PublicKey(modulus: [0x7F] + modulus.dropFirst(), exponent: [1, 0, 1]) }
        #expect(short?.code == .unsupported)
        #expect(short?.message.contains("2047 bits") == true, "\(short?.message ?? "")")
        #expect(errorCode { _ = try RSA.PublicKey(modulus: modulus.suffix(128), exponent: [1, 0, 1]) } == .unsupported)
        #expect(try RSA.PublicKey(modulus: [0x80] + modulus.dropFirst(), exponent: [1, 0, 1]).modulus.count == 256)
    }

    @Test func absurdNumbersAreRefused() throws {
        let modulus = try RSA.PublicKey(pemRepresentation: Self.fixtureText("public-spki.pem")).modulus
        for exponent: [UInt8] in [[], [0], [1], [0, 1], [2], [1, 0, 0], [0xFF, 0xFE]] {
            #expect(errorCode { _ = try RSA.PublicKey(modulus: modulus, exponent: exponent) } == .malformed, "e = \(exponent)")
        }
        #expect(errorCode { _ = try RSA.PublicKey(modulus: modulus, exponent: [1] + [UInt8](repeating: 0, count: 7) + [1]) }
            == .unsupported)
        #expect(try RSA.PublicKey(modulus: modulus, exponent: [3]).exponent == [3])
        #expect(try RSA.PublicKey(modulus: modulus, exponent: [UInt8](repeating: 0xFF, count: 8)).exponent.count == 8)
        var even = modulus
        even[even.count - 1] &= 0xFE
        #expect(errorCode { _ = try RSA.PublicKey(modulus: even, exponent: [1, 0, 1]) } == .malformed)
        #expect(errorCode { _ = try RSA.PublicKey(modulus: [], exponent: [1, 0, 1]) } == .malformed)
        #expect(errorCode { _ = try RSA.PublicKey(modulus: [0, 0], exponent: [1, 0, 1]) } == .malformed)
    }

    @Test func encryptedAndOtherKeysAreRefused() throws {
        // An encrypted key fails without asking for its passphrase (a prompt would hang this test).
        #expect(errorCode { _ = try RSA.PrivateKey(pemRepresentation: Self.fixtureText("private-encrypted.pem")) } == .malformed)
        let p256 = try P256.PrivateKey()
        #expect(errorCode { _ = try RSA.PrivateKey(pemRepresentation: p256.pemRepresentation) } == .unsupported)
        // A P-256 SubjectPublicKeyInfo: id-ecPublicKey, prime256v1, then the point.
        let prefix: [UInt8] = [
            0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48,
            0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
        ]
        let ecPublic = "-----BEGIN PUBLIC KEY-----\n"
            + Base64.encode(prefix + p256.publicKey.x963Representation, padded: true) + "\n-----END PUBLIC KEY-----\n"
        #expect(errorCode { _ = try RSA.PublicKey(pemRepresentation: ecPublic) } == .unsupported)
    }

    @Test(arguments: [
        "",
        "not a key",
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----\n",
        "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
        "-----BEGIN RSA PUBLIC KEY-----\n!!!!\n-----END RSA PUBLIC KEY-----\n",
    ])
    func garbagePEMIsMalformed(pem: String) {
        #expect(errorCode { _ = try RSA.PrivateKey(pemRepresentation: pem) } == .malformed)
        #expect(errorCode { _ = try RSA.PublicKey(pemRepresentation: pem) } == .malformed)
    }

    @Test func pemOfTheWrongKindIsMalformed() throws {
        // Each reader takes its own kind only: a private key is not read as a public one, nor a certificate as either.
        #expect(errorCode { _ = try RSA.PublicKey(pemRepresentation: Self.fixtureText("private-pkcs8.pem")) } == .malformed)
        #expect(errorCode { _ = try RSA.PrivateKey(pemRepresentation: Self.fixtureText("public-spki.pem")) } == .malformed)
        let certificate = try TestChain().root.pemEncoded
        #expect(errorCode { _ = try RSA.PrivateKey(pemRepresentation: certificate) } == .malformed)
        #expect(errorCode { _ = try RSA.PublicKey(pemRepresentation: certificate) } == .malformed)
    }
}
