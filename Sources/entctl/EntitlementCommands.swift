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
        try arguments.check(positionals: ["APP_USER_ID"])
        let appUserID = try arguments.positional(0, "APP_USER_ID")
        let response = try await connect(.publicKey).syncStatus(appUserID: appUserID)
        printer.print(response, human: HumanOutput.customerStatus(response.customer))
        return 0
    }

    /// `purchase APP_USER_ID SIGNED_TRANSACTION`: an App Store purchase (`-` reads the token from standard input).
    func purchase() async throws -> Int32 {
        try arguments.check(positionals: ["APP_USER_ID", "SIGNED_TRANSACTION"])
        let appUserID = try arguments.positional(0, "APP_USER_ID")
        let token = try Self.token(try arguments.positional(1, "SIGNED_TRANSACTION"))
        let response = try await connect(.publicKey).purchaseAppStore(appUserID: appUserID, signedTransaction: token)
        printer.print(
            response,
            human: HumanOutput.customerStatus(response.customer)
                + (response.result.map { ["purchase: " + HumanOutput.purchaseResult($0)] } ?? []))
        return 0
    }

    /// `restore APP_USER_ID SIGNED_TRANSACTION...`
    func restore() async throws -> Int32 {
        try arguments.check(positionals: ["APP_USER_ID", "SIGNED_TRANSACTION"], optional: 99)
        let appUserID = try arguments.positional(0, "APP_USER_ID")
        let tokens = try arguments.positionals.dropFirst().map(Self.token)
        let response = try await connect(.publicKey).restoreAppStore(appUserID: appUserID, signedTransactions: tokens)
        printer.print(
            response,
            human: HumanOutput.customerStatus(response.customer)
                + response.results.map { "purchase: " + HumanOutput.purchaseResult($0) })
        return 0
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
