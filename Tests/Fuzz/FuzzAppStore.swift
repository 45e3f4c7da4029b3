import AppStore
import Crypto
import JOSE

/// libFuzzer target: App Store signed data never crashes the verifier, and whatever it accepts is for the app and
/// environment it was made for.
///
/// The first byte picks what the rest is: a whole token; a JSON payload, signed here with a genuine chain so the
/// decoding and identity checks behind the signature are reached; or a JWS header, signed likewise.
private struct Fixture {
    static let bundleID = "com.example.fuzz"
    let ca: LocalSigningCA
    let verifier: SignedDataVerifier

    init() {
        let now: Int64 = 1_800_000_000
        guard let ca = try? LocalSigningCA.create(validFrom: now - 86_400 * 365, validUntil: now + 86_400 * 365),
            let verifier = try? SignedDataVerifier(
                trustedRoots: [ca.root], bundleID: Self.bundleID, appAppleID: nil, environment: .sandbox, now: { now })
        else { fatalError("cannot set up the fuzz fixture") }
        self.ca = ca
        self.verifier = verifier
    }
}

private let fixture = Fixture()

private func verifyAll(_ token: String) {
    let verifier = fixture.verifier
    if let transaction = try? verifier.verifyTransaction(token) {
        guard transaction.bundleId == Fixture.bundleID, transaction.environment?.known == .sandbox else {
            fatalError("accepted a transaction for \(String(describing: transaction.bundleId))")
        }
    }
    if let renewal = try? verifier.verifyRenewalInfo(token) {
        guard renewal.environment?.known == .sandbox else { fatalError("accepted renewal info of another environment") }
    }
    _ = try? verifier.verifyNotification(token)
    if let app = try? verifier.verifyAppTransaction(token) {
        guard app.bundleId == Fixture.bundleID else { fatalError("accepted an app transaction for another app") }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAppStore(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let rest = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch data[0] % 3 {
    case 0:
        verifyAll(String(decoding: rest, as: UTF8.self))
    case 1:
        if let token = try? fixture.ca.sign(payload: rest) { verifyAll(token) }
    default:
        let payload = Array(#"{"bundleId":"com.example.fuzz","environment":"Sandbox","signedDate":1800000000000}"#.utf8)
        if let token = try? JWSSigning.sign(headerJSON: rest, payload: payload, key: fixture.ca.leafKey) {
            verifyAll(token)
        }
    }
    return 0
}
