import Encodings
#if canImport(Glibc)
import Glibc
#endif

/// Writes whole lines straight to the file descriptor, so each line is out as soon as it is printed (`watch` behind a
/// pipe) and nothing is lost when Ctrl-C ends the process.
enum Output {
    static func line(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO)
    }

    static func lines(_ texts: [String]) {
        guard !texts.isEmpty else { return }
        write(texts.joined(separator: "\n") + "\n", to: STDOUT_FILENO)
    }

    /// The message on standard error, then exit with `status`.
    static func fail(_ text: String, status: Int32) -> Never {
        write(text + "\n", to: STDERR_FILENO)
        exit(status)
    }

    /// A note on standard error that does not stop the command.
    static func note(_ text: String) {
        write("entctl: \(text)\n", to: STDERR_FILENO)
    }

    /// A usage error: the message, the one usage line of its command and where to read more, exit status 2. The
    /// whole help would bury the message.
    static func usageError(_ error: EntctlOptions.UsageError) -> Never {
        let usage = error.help?.usageLine ?? CommandHelp.programUsageLine
        let more = error.help.map { "see 'entctl \($0.name) --help'" } ?? "see 'entctl --help'"
        fail("entctl: \(error.description)\n\(usage)\n\(more)", status: 2)
    }

    private static func write(_ text: String, to descriptor: Int32) {
        write(Array(text.utf8), to: descriptor)
    }

    /// All of `bytes`, as they are, to `descriptor` (standard output unless given).
    static func write(_ bytes: [UInt8], to descriptor: Int32 = STDOUT_FILENO) {
        var bytes = bytes[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                // The reader went away (a closed pipe): nothing more can be said, to anyone.
                exit(1)
            }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// Prints each response either as one JSON object on one line (`--json`) or as human-readable lines.
struct Printer {
    let json: Bool

    func print(_ message: some JSONEncodable, human: @autoclosure () -> [String]) {
        if json { Output.line(message.json.text) } else { Output.lines(human()) }
    }

    func print(_ message: some JSONEncodable, human: @autoclosure () -> String) {
        if json { Output.line(message.json.text) } else { Output.line(human()) }
    }
}

/// An answer built as JSON in place (a local command's paths, a generated key) prints as it is.
extension JSONValue: JSONEncodable {
    var json: JSONValue { self }
}
