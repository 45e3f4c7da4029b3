#if canImport(Glibc)
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
