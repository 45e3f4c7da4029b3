import EntitlementDomain
import EntitlementsProto
import Metrics
import ProtobufWire
import RPCCore

/// `DescribeTrust`: how the caller's tenant proves its app users (`user_tokens`, and what this instance made of the
/// tokens) and signs their status (`signed_status`): the console's and `entctl trust`'s view of a roll-out.
extension AdminService {
    func describeTrust(_ request: DescribeTrustRequest, _ context: ServerContext) async throws -> TrustDescription {
        try await log.call(context, requires: .secretKey, scope: .read, in: tenants) { tenant, _ in
            var description = TrustDescription()
            description.userTokens = userTokenDescription(tenant)
            description.signedStatus = tenant.signedStatus.map(StatusSigningDescription.init)
            return description
        }
    }

    private func userTokenDescription(_ tenant: Tenant) -> UserTokenDescription {
        let settings = tenant.userTokens
        var description = UserTokenDescription()
        description.mode =
            switch settings.mode {
            case .off: .off
            case .observe: .observe
            case .required: .required
            }
        description.issuer = settings.issuer
        description.maxLifetimeSeconds = UInt32(clamping: settings.maxLifetimeSeconds)
        description.hs256Secrets = UInt32(clamping: settings.hs256Secrets.count)
        description.keysFrom =
            switch settings.keySource {
            case .url(let url)?: url
            case .file?: "file"
            case nil: ""
            }
        description.allowsAnonymous = settings.allowsAnonymous
        description.counts = metrics.userTokens.series(whereFirstLabelIs: tenant.id)
            .map { UserTokenCount(outcome: $0.labels[1], reason: $0.labels[2], count: $0.value) }
            .sorted { ($1.count, $0.outcome, $0.reason) < ($0.count, $1.outcome, $1.reason) }
        description.countedSince = ProtoTimestamp(countingSince)
        return description
    }
}

extension StatusSigningDescription {
    init(_ settings: StatusSigningSettings) {
        self.init()
        signingKeyID = settings.signingKey?.kid ?? ""
        keyIDs = settings.keys.map(\.kid)
        offlineValidityHours = UInt32(clamping: settings.offlineValiditySeconds / 3_600)
    }
}
