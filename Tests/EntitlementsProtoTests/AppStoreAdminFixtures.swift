import EntitlementsProto
import ProtobufWire

/// AdminService's App Store messages, built exactly as `Resources/roundtrip.py` builds them.
extension Fixtures {
    static let appStoreAdmin: [Fixture] = [
        Fixture("ReconcileAppStoreRequest") { u in
            unk(
                ReconcileAppStoreRequest(
                    startTime: ts(1_700_000_000, 0, u), endTime: ts(1_710_000_000, 0, u),
                    transactionIDs: ["2000000000000001", ""], onlyFailures: true),
                u)
        },
        Fixture("ReconcileAppStoreResponse") { u in
            unk(ReconcileAppStoreResponse(environments: [reconciliation(u, 0), reconciliation(u, 1)]), u)
        },
        Fixture("AppStoreReconciliation") { reconciliation($0, 0) },
        .empty(ReconcileAppStoreRequest.self), .empty(ReconcileAppStoreResponse.self),
        .empty(AppStoreReconciliation.self),
    ]

    static func reconciliation(_ u: Bool, _ i: Int32) -> AppStoreReconciliation {
        var report = AppStoreReconciliation()
        report.environment = i == 0 ? .production : StoreEnvironment(rawValue: 99)
        report.startTime = ts(1_700_000_000, 0, u)
        report.endTime = ts(1_710_000_000, 0, u)
        report.pages = 2 + i
        report.found = 41
        report.applied = 3
        report.unchanged = 1
        report.unowned = 2
        report.alreadyProcessed = 30
        report.rejected = 5
        report.rejections = ["bad signature", ""]
        return unk(report, u)
    }
}
