import Foundation

/// What stands in for the app's backend in the sample: a command that prints a user token for the app user ID in
/// `$APP_USER_ID` (such as `entctl dev user-token "$APP_USER_ID"`), run for each token the SDK asks for.
enum SampleBackend {
    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    static func token(running command: String, for appUserID: String) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = ProcessInfo.processInfo.environment.merging(["APP_USER_ID": appUserID]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, !token.isEmpty else {
            throw Failed(description: "the user-token command failed (exit \(process.terminationStatus))")
        }
        return token
    }
}
