import AppStoreServerAPI
import BoundedText
import EntitlementDomain
import EntitlementsProto
import ProtobufWire
import RPCCore

/// AdminService's App Store Server API methods.
extension AdminService {
    func registerAppStoreMethods(on router: inout RPCRouter) {
        router.registerUnary(Self.method("ReconcileAppStore")) { (request: ReconcileAppStoreRequest, context) in
            try await reconcileAppStore(request, context)
        }
    }

    private func reconcileAppStore(_ request: ReconcileAppStoreRequest, _ context: ServerContext) async throws
        -> ReconcileAppStoreResponse
    {
        try await log.call(context, requires: .secretKey, in: tenants) { tenant, _ in
            guard let reconciler = appStoreReconciler else {
                throw DomainError.failedPrecondition("This server makes no outbound calls: its outbound HTTP client is not set up.")
            }
            let start = try request.startTime?.requestTime(field: "start_time")
            let end = try request.endTime?.requestTime(field: "end_time")
            if let start, let end, start >= end { throw DomainError.invalidArgument("start_time must be before end_time.") }
            guard request.transactionIDs.count <= 10 else {
                throw DomainError.invalidArgument("transaction_ids takes at most 10 IDs, got \(request.transactionIDs.count).")
            }
            for (index, id) in request.transactionIDs.enumerated() {
                try Self.checkAppStoreTransactionID(id, field: "transaction_ids[\(index)]")
            }
            let reports = try await reconciler.reconcile(
                tenantID: tenant.id, start: start?.milliseconds, end: end?.milliseconds,
                transactionIDs: request.transactionIDs, onlyFailures: request.onlyFailures)
            return ReconcileAppStoreResponse(environments: reports.map(AppStoreReconciliation.init))
        }
    }

    /// An App Store transaction ID: digits only, as Apple makes them.
    static func checkAppStoreTransactionID(_ id: String, field: String) throws(DomainError) {
        guard (1...32).contains(id.utf8.count), id.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .invalidArgument("\(field) must be an App Store transaction ID: 1 to 32 digits.")
        }
    }
}

extension AppStoreReconciliation {
    init(_ report: AppStoreReconciliationReport) {
        self.init()
        environment = report.environment == .production ? .production : .sandbox
        startTime = ProtoTimestamp(unixMilliseconds: report.startDate)
        endTime = ProtoTimestamp(unixMilliseconds: report.endDate)
        pages = Int32(clamping: report.pages)
        found = Int32(clamping: report.found)
        applied = Int32(clamping: report.applied)
        unchanged = Int32(clamping: report.unchanged)
        unowned = Int32(clamping: report.unowned)
        alreadyProcessed = Int32(clamping: report.alreadyProcessed)
        rejected = Int32(clamping: report.rejected)
        rejections = report.rejections
    }
}
