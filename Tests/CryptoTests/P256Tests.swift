import Crypto
import Encodings
import Testing

@Suite struct P256Tests {
    let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJidW5kbGVJZCI6ImNvbS5leGFtcGxlIn0".utf8)

    @Test func rawSignatureRoundTrip() throws {
        let key = try P256.PrivateKey()
        let signature = try key.signature(for: message)
        #expect(signature.count == 64)
        #expect(key.publicKey.isValidSignature(rawRS: signature, for: message))
        #expect(!(try P256.PrivateKey()).publicKey.isValidSignature(rawRS: signature, for: message))
    }

    @Test func anyFlippedBitFails() throws {
        let key = try P256.PrivateKey()
        let signature = try key.signature(for: message)
        for bit in [0, 7, 100, message.count * 8 - 1] {
            var tampered = message
            tampered[bit / 8] ^= 1 << (bit % 8)
            #expect(!key.publicKey.isValidSignature(rawRS: signature, for: tampered))
        }
        for bit in [0, 255, 256, 511] {
            var tampered = signature
            tampered[bit / 8] ^= 1 << (bit % 8)
            #expect(!key.publicKey.isValidSignature(rawRS: tampered, for: message))
        }
    }

    @Test func wrongLengthsAndDegenerateSignaturesFail() throws {
        let key = try P256.PrivateKey()
        let signature = try key.signature(for: message)
        #expect(!key.publicKey.isValidSignature(rawRS: Array(signature.dropLast()), for: message))
        #expect(!key.publicKey.isValidSignature(rawRS: signature + [0], for: message))
        #expect(!key.publicKey.isValidSignature(rawRS: [0] + signature.dropLast(), for: message))
        #expect(!key.publicKey.isValidSignature(rawRS: [], for: message))
        #expect(!key.publicKey.isValidSignature(rawRS: [UInt8](repeating: 0, count: 64), for: message))
        #expect(!key.publicKey.isValidSignature(rawRS: [UInt8](repeating: 0xFF, count: 64), for: message))
    }

    @Test func derSignatures() throws {
        let key = try P256.PrivateKey()
        let raw = try key.signature(for: message)
        let der = derSignature(raw)
        #expect(key.publicKey.isValidSignature(derEncoded: der, for: message))
        #expect(!key.publicKey.isValidSignature(derEncoded: der, for: message + [0]))
        #expect(!key.publicKey.isValidSignature(derEncoded: raw, for: message))  // raw is not DER
        #expect(!key.publicKey.isValidSignature(derEncoded: der + [0], for: message))  // trailing garbage
        #expect(!key.publicKey.isValidSignature(derEncoded: [], for: message))
    }

    @Test func verifiesWhatTheOpenSSLCommandSigned() throws {
        // A SEC1 key and a DER signature over `message` made with `openssl ecparam` and `openssl dgst -sha256 -sign`,
        // so neither the key encoding nor the signature comes from this module.
        let key = try P256.PrivateKey(pemRepresentation: """
            -----BEGIN EC PRIVATE KEY-----
            MHcCAQEEIDRdH5MSWros9Z7YY61e/GjuSCsg2I9dGMuLMbaodFd/oAoGCCqGSM49
            AwEHoUQDQgAENZBjMiw4T1xf3E/Yir0QXTU4bj/ivLOUL4E2rgXiZ5my52yn+t1y
            ZwYfAm3FF9sqfXUdOkeUuqw+r80PEdBpYw==
            -----END EC PRIVATE KEY-----
            """)
        let point = Hex.decode(
            "04359063322c384f5c5fdc4fd88abd105d35386e3fe2bcb3942f8136ae05e26799"
                + "b2e76ca7fadd7267061f026dc517db2a7d751d3a4794baac3eafcd0f11d06963")!
        #expect(key.publicKey.x963Representation == point)
        let der = Hex.decode(
            "3045022100a7145995cf473b8a0d2af6117bfd34338d08fdbb8f16c021c036802bd77b0caf"
                + "02201a13a8ef8c015a0f87d912037d4fefeb95798d032c578da36434a41f344903cf")!
        let publicKey = try P256.PublicKey(x963Representation: point)
        #expect(publicKey.isValidSignature(derEncoded: der, for: message))
        // The same signature as JWS r||s: r had a 0x00 sign byte in DER, s did not.
        let raw = Array(der[5..<37]) + Array(der[39..<71])
        #expect(publicKey.isValidSignature(rawRS: raw, for: message))
        #expect(!publicKey.isValidSignature(rawRS: raw, for: Array(message.dropLast())))
    }

    @Test func otherCurvesAreUnsupported() {
        let p384 = """
            -----BEGIN PRIVATE KEY-----
            MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDC9wdaAE0VDP/NNNa2U
            V9xe/SRATpHVIr00p5NPbe8AA4Bt2xKETA+w+sB9YLoSpH6hZANiAARR36ZIQxMM
            t6yHqWAaJpk09upPTSgLOs1FtXunFDSvIt0nd3DJKT/bW+pX4tjyWc3lnt2meVqm
            wdRruCq+CO+tBIgxVWjx/6lk91B0osO0bhtnmPMK0Km8WhrJv4m47so=
            -----END PRIVATE KEY-----
            """
        #expect(errorCode { _ = try P256.PrivateKey(pemRepresentation: p384) } == .unsupported)
    }

    @Test func privateKeyPEMRoundTrip() throws {
        let key = try P256.PrivateKey()
        let pem = key.pemRepresentation
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let reread = try P256.PrivateKey(pemRepresentation: pem)
        #expect(reread.publicKey == key.publicKey)
        #expect(key.publicKey.isValidSignature(rawRS: try reread.signature(for: message), for: message))
        #expect(errorCode { _ = try P256.PrivateKey(pemRepresentation: "") } == .malformed)
        #expect(errorCode { _ = try P256.PrivateKey(pemRepresentation: TestChain().root.pemEncoded) } == .malformed)
    }

    @Test func publicKeyX963RoundTripAndInvalidPoints() throws {
        let key = try P256.PrivateKey().publicKey
        let bytes = key.x963Representation
        #expect(bytes.count == 65 && bytes[0] == 0x04)
        let reread = try P256.PublicKey(x963Representation: bytes)
        #expect(reread == key)
        #expect(reread.hashValue == key.hashValue)
        var offCurve = bytes
        offCurve[64] ^= 0x01
        #expect(errorCode { _ = try P256.PublicKey(x963Representation: offCurve) } == .malformed)
        #expect(errorCode { _ = try P256.PublicKey(x963Representation: Array(bytes.dropLast())) } == .malformed)
        #expect(errorCode { _ = try P256.PublicKey(x963Representation: [0x02] + bytes[1...32]) } == .malformed)
        var wrongPrefix = bytes
        wrongPrefix[0] = 0x06
        #expect(errorCode { _ = try P256.PublicKey(x963Representation: wrongPrefix) } == .malformed)
        #expect(errorCode { _ = try P256.PublicKey(x963Representation: [UInt8](repeating: 0, count: 65)) } == .malformed)
    }

    /// DER `ECDSA-Sig-Value` for a raw r||s, written independently of the module's encoder.
    private func derSignature(_ raw: [UInt8]) -> [UInt8] {
        func integer(_ half: ArraySlice<UInt8>) -> [UInt8] {
            var content = Array(half.drop { $0 == 0 })
            if content.isEmpty || content[0] >= 0x80 { content.insert(0, at: 0) }
            return [0x02, UInt8(content.count)] + content
        }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        return [0x30, UInt8(body.count)] + body
    }
}
