import EntitlementClient
import Encodings
import EntitlementsProto

/// `offers eligibility` and `offers sign`: what an app asks of the server about App Store offers, with the public key.
extension Entctl {
    func offers() async throws -> Int32 {
        guard let subcommand = arguments.subcommand() else {
            throw UsageError(description: "offers needs a command: eligibility or sign")
        }
        switch subcommand.command {
        case "offers eligibility": return try await offerEligibility(subcommand)
        case "offers sign": return try await signOffer(subcommand)
        default: throw CommandHelp.unknownCommand(subcommand.command)
        }
    }

    /// `offers eligibility APP_USER_ID PRODUCT_ID...`
    private func offerEligibility(_ subcommand: CommandArguments) async throws -> Int32 {
        try subcommand.check(positionals: ["APP_USER_ID", "PRODUCT_ID"], optional: Int.max - 2, options: [])
        let appUserID = try subcommand.positional(0, "APP_USER_ID")
        let response = try await connect(.publicKey).offerEligibility(
            appUserID: appUserID, productIDs: Array(subcommand.positionals.dropFirst()))
        printer.print(response, human: HumanOutput.offerEligibility(response))
        return 0
    }

    /// `offers sign APP_USER_ID PRODUCT_ID [--offer ID] [--transaction-id ID] [--app-transaction-id ID]`
    private func signOffer(_ subcommand: CommandArguments) async throws -> Int32 {
        try subcommand.check(
            positionals: ["APP_USER_ID", "PRODUCT_ID"], options: ["--offer", "--transaction-id", "--app-transaction-id"])
        let request = SignOfferRequest(
            appUserID: try subcommand.positional(0, "APP_USER_ID"), productID: try subcommand.positional(1, "PRODUCT_ID"),
            offerID: try subcommand.optional("--offer") ?? "", transactionID: try subcommand.optional("--transaction-id") ?? "",
            appTransactionID: try subcommand.optional("--app-transaction-id") ?? "")
        let response = try await connect(.publicKey).signOffer(request)
        printer.print(response, human: HumanOutput.signedOffer(response))
        return 0
    }
}

extension HumanOutput {
    /// Per product: `com.example.pro  introductory offer: not eligible (subscribed before: PLAY_STORE pro_android)`,
    /// then one line per promotional offer on it.
    static func offerEligibility(_ response: GetOfferEligibilityResponse) -> [String] {
        response.introductoryOffers.flatMap { intro in
            var reason = String(intro.reason.name.lowercased().map { $0 == "_" ? " " : $0 })
            if intro.reason == .subscribedBefore {
                reason += ": \(intro.subscribedStore.name) \(intro.subscribedProductID)"
            }
            let offers = response.promotionalOffers.filter { $0.productID == intro.productID }.map { offer in
                "  \(offer.offerID)  " + (offer.eligible ? "eligible" : "refused by \(offer.refusedRule): \(offer.message)")
            }
            return ["\(intro.productID)  introductory offer: \(intro.eligible ? "eligible" : "not eligible") (\(reason))"]
                + offers
        }
    }

    /// The signed parts, one per line.
    static func signedOffer(_ response: SignOfferResponse) -> [String] {
        var lines: [String]
        if response.offerID.isEmpty {
            lines = [
                "introductory offer eligibility for \(response.productID) (\(response.appUserID)): "
                    + (response.introductoryOfferAllowed ? "allowed" : "not allowed")
            ]
        } else {
            lines = [
                "offer \(response.offerID) for \(response.productID) (\(response.appUserID))",
                "key ID:            \(response.keyID)",
                "timestamp:         \(response.timestamp)",
                "signature:         \(response.signature)",
                "app account token: \(response.appAccountToken)",
            ]
        }
        lines.append("nonce:             \(response.nonce)")
        if !response.transactionID.isEmpty { lines.append("transaction ID:    \(response.transactionID)") }
        lines.append("compact JWS:       \(response.compactJWS)")
        return lines
    }

    /// `2030-01-31T12:00:00Z  winback_50  com.example.pro  nonce 0c3a...  redeemed by 2000000002`.
    static func offerSignature(_ signature: OfferSignature) -> String {
        let offer = signature.offerID.isEmpty ? "(introductory eligibility)" : signature.offerID
        let redeemed = signature.redeemedTransactionID.isEmpty ? "" : "  redeemed by \(signature.redeemedTransactionID)"
        return "\(time(signature.signedAt))  \(offer)  \(signature.productID)  nonce \(signature.nonce)\(redeemed)"
    }
}
