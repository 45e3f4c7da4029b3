import EntitlementDomain
import Foundation
import TestSupport
import Testing

/// What each purchase state grants, instant by instant, and README's table of it, derived from ``PurchaseAccess``.
@Suite struct PurchaseAccessTests {
    private static func ms(_ value: Int64) -> UnixTime { UnixTime(milliseconds: value) }

    // Named instants: README's words for them are what the descriptions below are made of.
    static let periodStart = ms(1_000)
    static let resumeDate = ms(1_400)
    static let revocation = ms(1_700)
    static let periodEnd = ms(2_000)
    static let graceEnd = ms(3_000)
    static let names: [UnixTime: String] = [
        periodStart: "the period's start", resumeDate: "the resume date", revocation: "the revocation",
        periodEnd: "the period's end", graceEnd: "the grace period's end",
    ]

    static func purchase(_ renewal: RenewalState = .paid) -> StorePurchase {
        StorePurchase(
            tenantID: "t", store: .appStore, originalTransactionID: "1000", transactionID: "1001", customerID: 1,
            productID: "pro.monthly", productType: "Auto-Renewable Subscription", entitlementIDs: ["pro"],
            environment: .sandbox, purchasedAt: periodStart, originalPurchaseAt: periodStart, expiresAt: periodEnd,
            revokedAt: nil, revocationReason: "", ownership: .purchased, willRenew: true, renewal: renewal,
            appAccountToken: "", offerType: "", signedAt: periodStart, updatedAt: periodStart)
    }

    /// README's row name for each purchase state, and a purchase in it (the switch makes a new state fail to compile
    /// here until README has a row for it).
    static func example(of renewal: RenewalState) -> (row: String, purchase: StorePurchase) {
        switch renewal {
        case .paid: ("paid", purchase())
        case .billingRetry: ("billing retry", purchase(.billingRetry))
        case .grace: ("grace", purchase(.grace(until: graceEnd)))
        case .paused: ("paused", purchase(.paused(resumesAt: resumeDate)))
        case .held: ("held", purchase(.held(billingRetry: true)))
        }
    }

    static let examples: [(row: String, purchase: StorePurchase)] = {
        var revoked = purchase()
        revoked.revokedAt = revocation
        var upgraded = purchase()
        upgraded.isUpgraded = true
        var superseded = purchase()
        superseded.supersededBy = "newer-token"
        let states: [RenewalState] = [
            .paid, .billingRetry, .grace(until: graceEnd), .paused(resumesAt: resumeDate), .held(billingRetry: true),
        ]
        return states.map(example(of:)) + [("revoked", revoked), ("upgraded", upgraded), ("superseded", superseded)]
    }()

    /// What `purchase` grants, in README's words, read off ``PurchaseAccess`` at every instant that matters.
    static func grants(_ purchase: StorePurchase) -> String {
        let access = PurchaseAccess(purchase)
        let instants = names.keys.sorted() + [ms(0), ms(10_000)]
        let granting = instants.filter(access.grants(at:)).sorted()
        guard let first = granting.first else { return "nothing" }
        // The first instant it grants, and the first named instant after it where it no longer does.
        let end = names.keys.sorted().first { $0 > first && !access.grants(at: $0) }
        return "from \(names[first] ?? "\(first)") until \(end.flatMap { names[$0] } ?? "never")"
    }

    /// README's "Purchase state" table under "How status works": the first and last cell of each row.
    static func readmeRows() throws -> [String: String] {
        let readme = try String(contentsOf: RepositoryFiles.url("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## How status works").dropFirst().first)
        var rows: [String: String] = [:]
        var inTable = false
        for line in section.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("| Purchase state |") {
                inTable = true
                continue
            }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = cells.first, !name.hasPrefix("---"), let grants = cells.last else { continue }
            rows[name] = grants
        }
        return rows
    }

    @Test func readmeSaysWhatEachStateGrants() throws {
        let rows = try Self.readmeRows()
        #expect(Set(rows.keys) == Set(Self.examples.map(\.row)))
        for (row, purchase) in Self.examples {
            #expect(rows[row] == Self.grants(purchase), "README's row \(row)")
        }
    }

    @Test func eachStateInstantByInstant() {
        // (state, then whether it grants at: before the period, its start, the resume date, the revocation, its last
        // millisecond, its end, the grace period's last millisecond, the grace period's end)
        let probes = [Self.ms(999), Self.periodStart, Self.resumeDate, Self.revocation, Self.ms(1_999), Self.periodEnd, Self.ms(2_999), Self.graceEnd]
        let expected: [String: [Bool]] = [
            "paid": [false, true, true, true, true, false, false, false],
            "billing retry": [false, true, true, true, true, false, false, false],
            "grace": [false, true, true, true, true, true, true, false],
            "paused": [false, false, true, true, true, false, false, false],
            "held": [false, false, false, false, false, false, false, false],
            "revoked": [false, true, true, false, false, false, false, false],
            "upgraded": [false, false, false, false, false, false, false, false],
            "superseded": [false, false, false, false, false, false, false, false],
        ]
        for (row, purchase) in Self.examples {
            let access = PurchaseAccess(purchase)
            #expect(probes.map(access.grants(at:)) == expected[row], "\(row)")
        }
    }

    @Test func eachDenialSaysWhy() {
        let byRow = Dictionary(uniqueKeysWithValues: Self.examples.map { ($0.row, PurchaseAccess($0.purchase)) })
        #expect(byRow["paid"]?.denial(at: Self.ms(999)) == .notStarted)
        #expect(byRow["paid"]?.denial(at: Self.periodEnd) == .expired)
        #expect(byRow["paused"]?.denial(at: Self.periodStart) == .notStarted)
        #expect(byRow["held"]?.denial(at: Self.periodStart) == .held)
        #expect(byRow["revoked"]?.denial(at: Self.revocation) == .revoked)
        #expect(byRow["revoked"]?.denial(at: Self.periodEnd) == .revoked, "a revocation outranks the expiry")
        #expect(byRow["upgraded"]?.denial(at: Self.periodStart) == .upgraded)
        #expect(byRow["superseded"]?.denial(at: Self.periodStart) == .superseded)
        #expect(byRow["paid"]?.denial(at: Self.periodStart) == nil)
    }

    @Test func aGracePeriodNeverShortensThePeriod() {
        let early = PurchaseAccess(Self.purchase(.grace(until: Self.ms(1_500))))
        #expect(early.endsAt == Self.periodEnd && early.grants(at: Self.ms(1_999)))
        // A purchase without an end (a non-consumable) stays for life whatever its renewal state says.
        var lifetime = Self.purchase(.grace(until: Self.graceEnd))
        lifetime.expiresAt = nil
        #expect(PurchaseAccess(lifetime).endsAt == nil && PurchaseAccess(lifetime).grants(at: Self.ms(1_000_000)))
    }

    @Test func accessFromAnEarlierInstantStartsThere() {
        var continued = Self.purchase()
        continued.accessFrom = Self.ms(400)
        #expect(PurchaseAccess(continued).startsAt == Self.ms(400) && PurchaseAccess(continued).grants(at: Self.ms(400)))
        // A pause still holds it back until the resume date.
        continued.renewal = .paused(resumesAt: Self.resumeDate)
        #expect(PurchaseAccess(continued).startsAt == Self.resumeDate)
    }
}
