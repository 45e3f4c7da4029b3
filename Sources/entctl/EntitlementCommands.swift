import FileAccess

#if canImport(Glibc)
import EntitlementsProto
import EntitlementClient
import Glibc
#endif

/// The EntitlementService commands, called with a public key: identify, status, watch.
extension Entctl {
    /// `identify APP_USER_ID [--anonymous-id ID]`
    func identify() async throws -> Int32 {
        try arguments.check(positionals: ["APP_USER_ID"], options: ["--anonymous-id"])
        let appUserID = try arguments.positional(0, "APP_USER_ID")
        let response = try await connect(.publicKey).identify(
            appUserID: appUserID, anonymousID: arguments.value("--anonymous-id"))
        printer.print(response, human: HumanOutput.identify(response))
        return 0
    }

    /// `status APP_USER_ID`
    func status() async throws -> Int32 {
        try await ask("APP_USER_ID", with: .publicKey, { try await $0.syncStatus(appUserID: $1) }) {
            HumanOutput.customerStatus($0.customer)
        }
    }

    /// `purchase APP_USER_ID (SIGNED_TRANSACTION | --play PRODUCT_ID:TOKEN)`: an App Store signed transaction, or a
    /// Google Play product and purchase token (`-` reads the token from standard input).
    func purchase() async throws -> Int32 {
        try arguments.check(positionals: ["APP_USER_ID"], optional: 1, options: ["--play", "--transaction-id"])
        let appUserID = try arguments.positional(0, "APP_USER_ID")
        let play = try arguments.values("--play").map(Self.playPurchase)
        let response: PurchaseResponse
        if let transactionID = arguments.value("--transaction-id") {
            guard arguments.positionals.count == 1, play.isEmpty else {
                throw UsageError(description: "purchase takes one of SIGNED_TRANSACTION, --transaction-id or --play")
            }
            response = try await connect(.publicKey).purchaseAppStore(appUserID: appUserID, transactionID: transactionID)
        } else {
            response = try await purchase(appUserID, signedOrPlay: play)
        }
        printer.print(
            response,
            human: HumanOutput.customerStatus(response.customer)
                + (response.result.map { ["purchase: " + HumanOutput.purchaseResult($0)] } ?? []))
        return 0
    }

    /// A purchase given as a signed transaction or one `--play`.
    private func purchase(_ appUserID: String, signedOrPlay play: [(productID: String, purchaseToken: String)]) async throws
        -> PurchaseResponse
    {
        let response: PurchaseResponse
        switch (arguments.positionals.count, play.count) {
        case (2, 0):
            let token = try Self.token(try arguments.positional(1, "SIGNED_TRANSACTION"))
            response = try await connect(.publicKey).purchaseAppStore(appUserID: appUserID, signedTransaction: token)
        case (1, 1):
            let token = try Self.token(play[0].purchaseToken)
            response = try await connect(.publicKey).purchasePlayStore(
                appUserID: appUserID, productID: play[0].productID, purchaseToken: token)
        case (1, 0):
            throw UsageError(description: "purchase needs SIGNED_TRANSACTION or --play PRODUCT_ID:TOKEN")
        case (2, _):
            throw UsageError(description: "purchase takes SIGNED_TRANSACTION or --play PRODUCT_ID:TOKEN, not both")
        default:
            throw UsageError(description: "purchase takes one --play (restore takes several)")
        }
        return response
    }

    /// `redeem APP_USER_ID CODE`: attaches the web purchase a redemption code stands for.
    func redeem() async throws -> Int32 {
        try arguments.check(positionals: ["APP_USER_ID", "CODE"])
        let appUserID = try arguments.positional(0, "APP_USER_ID")
        let code = try Self.token(try arguments.positional(1, "CODE"))
        let response = try await connect(.publicKey).redeem(appUserID: appUserID, code: code)
        printer.print(
            response,
            human: HumanOutput.customerStatus(response.customer)
                + (response.result.map { ["purchase: " + HumanOutput.purchaseResult($0)] } ?? []))
        return 0
    }

    /// `restore APP_USER_ID [SIGNED_TRANSACTION...] [--play PRODUCT_ID:TOKEN]... [--history TRANSACTION_ID]...`: up to
    /// 100 purchases of either store, and App Store histories read by the server.
    func restore() async throws -> Int32 {
        try arguments.check(
            positionals: ["APP_USER_ID"], optional: Self.maxRestoredPurchases, options: ["--play", "--history"])
        let appUserID = try arguments.positional(0, "APP_USER_ID")
        let play = try arguments.values("--play").map(Self.playPurchase)
        let histories = arguments.values("--history")
        let count = arguments.positionals.count - 1 + play.count
        guard count > 0 || !histories.isEmpty else {
            throw UsageError(
                description: "restore needs SIGNED_TRANSACTION..., --play PRODUCT_ID:TOKEN or --history TRANSACTION_ID")
        }
        guard count <= Self.maxRestoredPurchases else {
            throw UsageError(
                description: "restore takes at most \(Self.maxRestoredPurchases) purchases, got \(count)")
        }
        for index in arguments.positionals.indices.dropFirst() {
            _ = try arguments.positional(index, "SIGNED_TRANSACTION")
        }
        let tokens = try arguments.positionals.dropFirst().map(Self.token)
        let playPurchases = try play.map { ($0.productID, try Self.token($0.purchaseToken)) }
        let response = try await connect(.publicKey).restore(
            appUserID: appUserID, signedTransactions: tokens, playPurchases: playPurchases,
            appStoreHistoryIDs: histories)
        printer.print(
            response,
            human: HumanOutput.customerStatus(response.customer)
                + response.results.map { "purchase: " + HumanOutput.purchaseResult($0) }
                + response.appStoreHistories.flatMap(HumanOutput.appStoreHistory))
        return 0
    }

    /// What the server takes in one Restore.
    static let maxRestoredPurchases = 100

    /// `--play PRODUCT_ID:TOKEN`, split at the first colon: Play product IDs have none (lowercase letters, digits,
    /// `_` and `.`), tokens may. The token is returned as given (`-` is read later, after every usage check).
    static func playPurchase(_ text: String) throws(UsageError) -> (productID: String, purchaseToken: String) {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex, text.index(after: colon) != text.endIndex
        else {
            throw UsageError(
                description: "invalid --play '\(text)': expected PRODUCT_ID:TOKEN, the Play product ID and the purchase "
                    + "token (- reads the token from standard input)")
        }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// A token argument, or standard input for `-`.
    private static func token(_ argument: String) throws -> String {
        guard argument == "-" else { return argument }
        var bytes = try FileSystem.readAll(STDIN_FILENO, name: "standard input").get()
        while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") {
            bytes.removeLast()
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `watch APP_USER_ID [--after-version N]`: one line per event until the server ends the stream (exit 0), the
    /// stream fails (exit 1) or Ctrl-C (exit 0).
    func watch() async throws -> Int32 {
        try arguments.check(positionals: ["APP_USER_ID"], options: ["--after-version"])
        let appUserID = try arguments.positional(0, "APP_USER_ID")
        let afterVersion = try arguments.integer("--after-version", UInt64.self, minimum: 0) ?? 0
        let client = try connect(.publicKey)
        // Every line is written out whole as it is printed, so stopping here loses nothing; the closed connection
        // cancels the stream on the server.
        signal(SIGINT) { _ in _exit(0) }
        for try await event in client.streamStatus(appUserID: appUserID, afterVersion: afterVersion) {
            printer.print(event, human: HumanOutput.statusEvent(event))
        }
        return 0
    }
}
