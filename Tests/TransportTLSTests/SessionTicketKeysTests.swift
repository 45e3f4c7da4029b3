import Encodings
import Foundation
import PosixIO
import Testing
import TransportTLS

/// The ticket key schedule the server's handshakes read, at times the tests choose: period n = floor(unix time /
/// rotation) makes new tickets; n-1 and n+1 are accepted (and renewed); any other period's tickets are ignored.
@Suite struct SessionTicketKeysTests {
    static let rotation = 43_200
    static let secret = Array("a shared secret of at least thirty-two bytes".utf8)
    /// The start of period 40,833 (2025-11-24 12:00 UTC).
    static let periodStart = Int64(40_833 * rotation)

    let keys = try! SessionTicketKeys(secret: secret, rotationSeconds: rotation)

    func key(at time: Int64, of keys: SessionTicketKeys? = nil) throws -> SessionTicketKeys.Key {
        try #require((keys ?? self.keys).currentKey(at: time))
    }

    @Test func oneKeyMakesTicketsForAWholePeriod() throws {
        let start = Self.periodStart
        #expect(try key(at: start) == key(at: start + 1))
        #expect(try key(at: start) == key(at: start + Int64(Self.rotation) - 1))
        #expect(try key(at: start) != key(at: start + Int64(Self.rotation)))
        #expect(try key(at: start) != key(at: start - 1))
    }

    @Test func theCurrentPeriodsTicketsAreOpenedAsTheyAre() throws {
        let now = Self.periodStart + 1000
        let current = try key(at: now)
        #expect(keys.acceptance(ofKeyNamed: current.name, at: now) == .current(current))
    }

    @Test func thePreviousAndNextPeriodsTicketsAreOpenedAndRenewed() throws {
        let now = Self.periodStart + 1000
        let rotation = Int64(Self.rotation)
        let previous = try key(at: now - rotation)
        let next = try key(at: now + rotation)
        #expect(keys.acceptance(ofKeyNamed: previous.name, at: now) == .renewed(previous))
        #expect(keys.acceptance(ofKeyNamed: next.name, at: now) == .renewed(next))
        // A ticket made in the last second of a period is still accepted a whole period later.
        let lastSecond = try key(at: Self.periodStart - 1)
        #expect(keys.acceptance(ofKeyNamed: lastSecond.name, at: Self.periodStart - 1 + rotation) == .renewed(lastSecond))
    }

    @Test func olderAndLaterPeriodsTicketsAreIgnored() throws {
        let now = Self.periodStart + 1000
        let rotation = Int64(Self.rotation)
        for offset: Int64 in [-2, -3, 2, 3, -1000] {
            let other = try key(at: now + offset * rotation)
            #expect(keys.acceptance(ofKeyNamed: other.name, at: now) == .ignored, "period offset \(offset)")
        }
        // Made at the start of a period, ignored once two periods have begun since.
        let first = try key(at: Self.periodStart)
        #expect(keys.acceptance(ofKeyNamed: first.name, at: Self.periodStart + 2 * rotation) == .ignored)
        #expect(keys.acceptance(ofKeyNamed: [UInt8](repeating: 0, count: 16), at: now) == .ignored)
        #expect(keys.acceptance(ofKeyNamed: Array(first.name.prefix(15)), at: now) == .ignored)
    }

    @Test func everyPartOfTheKeyDiffersFromPeriodToPeriod() throws {
        let one = try key(at: Self.periodStart)
        let two = try key(at: Self.periodStart + Int64(Self.rotation))
        #expect(one.name != two.name)
        #expect(one.encryption != two.encryption)
        #expect(one.authentication != two.authentication)
        #expect(one.name.count == 16 && one.encryption.count == 32 && one.authentication.count == 32)
    }

    @Test func instancesWithTheSameSecretHaveTheSameKeysAndOthersDoNot() throws {
        let sameSecret = try SessionTicketKeys(secret: Self.secret, rotationSeconds: Self.rotation)
        var otherBytes = Self.secret
        otherBytes[0] ^= 1
        let otherSecret = try SessionTicketKeys(secret: otherBytes, rotationSeconds: Self.rotation)
        let now = Self.periodStart + 5
        let mine = try key(at: now)
        #expect(try key(at: now, of: sameSecret) == mine)
        #expect(sameSecret.acceptance(ofKeyNamed: mine.name, at: now) == .current(mine))
        let theirs = try key(at: now, of: otherSecret)
        #expect(theirs.name != mine.name && theirs.encryption != mine.encryption && theirs.authentication != mine.authentication)
        #expect(otherSecret.acceptance(ofKeyNamed: mine.name, at: now) == .ignored)
    }

    @Test func randomSecretsDiffer() throws {
        let one = try SessionTicketKeys.random(rotationSeconds: Self.rotation)
        let two = try SessionTicketKeys.random(rotationSeconds: Self.rotation)
        #expect(try key(at: Self.periodStart, of: one) != key(at: Self.periodStart, of: two))
    }

    /// The derivation is part of the format instances share: during a rolling upgrade, old and new versions must
    /// open each other's tickets. The expected bytes come from another HKDF (Python's `cryptography`):
    /// HKDF-SHA256(secret, no salt, "entitlementd tls session ticket keys v1" || period as 8 bytes big-endian, 80).
    @Test func theDerivationIsHKDFOfTheSecretAndThePeriod() throws {
        let key = try key(at: Self.periodStart)
        #expect(Hex.encode(key.name) == "d3a3acf31e975291eb55f961d2fd4cd8")
        #expect(Hex.encode(key.encryption) == "e08db4547ebafdfbdc0ebde1e64337c07d70404bd8eb32768d2e3c9c6af6a0f6")
        #expect(Hex.encode(key.authentication) == "cf9c8d498a8a60ee80ff9ada526cfa5a23b1179ff2d1fa36292c03f365341b85")
    }

    @Test func timesAtTheEndsOfTheRangeHaveKeys() throws {
        // Periods round down before 1970 too, and the periods either side of the extremes do not overflow.
        let rotation = Int64(Self.rotation)
        #expect(try key(at: -1) == key(at: -rotation))
        #expect(try key(at: -1) != key(at: 0))
        for time in [Int64.min, Int64.max] {
            let extreme = try key(at: time)
            #expect(keys.acceptance(ofKeyNamed: extreme.name, at: time) == .current(extreme))
        }
        let fastest = try SessionTicketKeys(secret: Self.secret, rotationSeconds: 1)
        let last = try key(at: .max, of: fastest)
        #expect(fastest.acceptance(ofKeyNamed: last.name, at: .min) != .current(last))
    }

    @Test func aRotationOfNoTimeIsRefused() {
        #expect(throws: TransportError.self) { try SessionTicketKeys(secret: Self.secret, rotationSeconds: 0) }
    }

    // MARK: The secret file

    @Test func theSecretIsTheFilesBytesWithoutTheWhitespaceAroundThem() throws {
        let directory = try Scratch()
        defer { directory.remove() }
        let text = String(decoding: Self.secret, as: UTF8.self)
        let fromFile = try SessionTicketKeys(
            secretFile: directory.write("secret", " \t\(text)\n\n"), rotationSeconds: Self.rotation)
        #expect(try key(at: Self.periodStart, of: fromFile) == key(at: Self.periodStart))
    }

    @Test func aSecretOf32BytesIsEnoughAndOf31IsRefusedWithoutShowingIt() throws {
        let directory = try Scratch()
        defer { directory.remove() }
        _ = try SessionTicketKeys(
            secretFile: directory.write("long-enough", String(repeating: "k", count: 32) + "\n"), rotationSeconds: Self.rotation)
        let short = String(repeating: "s", count: 31)
        let path = try directory.write("short", short + "\n")
        let error = try #require(throws: TransportError.self) {
            try SessionTicketKeys(secretFile: path, rotationSeconds: Self.rotation)
        }
        #expect(error.message.contains("'\(path)' holds 31 bytes; it needs 32 to 4096"), "\(error.message)")
        #expect(error.message.contains("openssl rand -base64 48"))
        #expect(!error.message.contains(short))
    }

    @Test func aSecretTooLongOrAFileThatCannotBeReadIsRefused() throws {
        let directory = try Scratch()
        defer { directory.remove() }
        let long = try directory.write("long", String(repeating: "k", count: 4097))
        let tooLong = try #require(throws: TransportError.self) {
            try SessionTicketKeys(secretFile: long, rotationSeconds: Self.rotation)
        }
        #expect(tooLong.message.contains("holds 4097 bytes"))
        let missing = directory.path + "/missing"
        let unreadable = try #require(throws: TransportError.self) {
            try SessionTicketKeys(secretFile: missing, rotationSeconds: Self.rotation)
        }
        #expect(unreadable.message.contains("cannot read the session ticket secret '\(missing)'"), "\(unreadable.message)")
    }
}

/// A temporary directory for secret files.
private struct Scratch {
    let path = NSTemporaryDirectory() + "entitlementd-ticket-keys-" + UUID().uuidString

    init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }

    func write(_ name: String, _ contents: String) throws -> String {
        let file = path + "/" + name
        try contents.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
