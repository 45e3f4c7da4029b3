import Encodings
import Foundation
import Synchronization

/// TLS peers on loopback that fail a client's connection on purpose, each in one known way, served by
/// `Tests/Fixtures/tls/misbehaving_tls_peers.py` (Python's `ssl`: a real TLS stack independent of ours).
///
/// Each listener's connections take its modes in turn. Call ``stop()`` at the end: it returns what the peers did.
public final class MisbehavingTLSPeers: Sendable {
    /// How a connection misbehaves (`relay` behaves: it passes the connection through to a healthy server).
    public enum Mode: String, Sendable, CaseIterable {
        /// Sends half of its first flight (ServerHello to Finished), then closes.
        case midHandshake = "mid-handshake"
        /// The same, then resets the connection.
        case midHandshakeWithReset = "mid-handshake-rst"
        /// Answers the ClientHello with a fatal handshake_failure alert.
        case alert
        /// Presents a certificate the client does not trust: the client sends the alert.
        case untrustedCertificate = "untrusted-certificate"
        /// Completes the handshake, reads the request, closes without close_notify.
        case withoutCloseNotify = "no-close-notify"
        /// Completes the handshake, answers a kept-alive HTTP/1.1 200, then closes without close_notify.
        case answerThenWithoutCloseNotify = "answer-then-no-close-notify"
        /// Completes the handshake, reads the request, resets the connection.
        case reset = "rst"
        /// Completes the handshake, reads the request, sends a record that cannot decrypt (fatal for the client).
        case badRecord = "bad-record"
        /// Passes the connection, TLS and all, to the healthy server given at start.
        case relay
    }

    /// What the peers did, from the script: how many connections reached each misbehaviour, and anything unexpected.
    public struct Report: Sendable {
        public var performed: [String: Int]
        public var problems: [String]

        init(json reader: inout JSONReader) throws(JSONReadError) {
            var performed: [String: Int]?
            var problems: [String]?
            try reader.readObject { reader, key throws(JSONReadError) in
                if key == "performed" {
                    performed = try MisbehavingTLSPeers.counts(&reader)
                } else if key == "problems" {
                    problems = try reader.readStringArray()
                } else {
                    try reader.skipValue()
                }
            }
            guard let performed else { throw .missing("performed") }
            guard let problems else { throw .missing("problems") }
            self.performed = performed
            self.problems = problems
        }
    }

    /// `{"name": count, ...}`, as the script writes its ports and what it performed.
    private static func counts(_ reader: inout JSONReader) throws(JSONReadError) -> [String: Int] {
        var counts: [String: Int] = [:]
        try reader.readObject { reader, key throws(JSONReadError) in counts[key.text] = try reader.readInt() }
        return counts
    }

    /// Each listener's port, by the name it was started with.
    public let ports: [String: Int]
    private let python: PythonHelper
    private let script: Task<Data, any Error>

    /// Starts the peers with a certificate for 127.0.0.1 and localhost from `certificates`; `relayTo` is the
    /// healthy server's port for ``Mode/relay``.
    public init(listeners: [String: [Mode]], certificates: TestCertificates, relayTo: Int? = nil) async throws {
        let untrusted = try TestCertificates()
        let python = try PythonHelper(
            packageRoot: RepositoryFiles.root, workDirectoryPrefix: "misbehaving-tls-peers",
            setupHint: "The peers need only Python 3's standard library.")
        var arguments = [
            RepositoryFiles.path("Tests/Fixtures/tls/misbehaving_tls_peers.py"),
            "--directory", python.workDirectory.path,
            "--certificate", certificates.certificatePath, "--key", certificates.privateKeyPath,
            "--untrusted-certificate", untrusted.certificatePath, "--untrusted-key", untrusted.privateKeyPath,
        ]
        if let relayTo { arguments += ["--relay-to", String(relayTo)] }
        arguments += listeners.map { name, modes in "\(name)=" + modes.map(\.rawValue).joined(separator: ",") }
        let exited = ExitFlag()
        let script = Task {
            defer { exited.value.store(true, ordering: .releasing) }
            return try await python.run(arguments)
        }
        let portsFile = python.workDirectory.appendingPathComponent("ports.json")
        // The script writes the file once it listens; Python's start may take a while on a busy machine.
        while !FileManager.default.fileExists(atPath: portsFile.path) {
            if exited.value.load(ordering: .acquiring) {
                _ = try await script.value
                throw PythonHelper.Failure(description: "misbehaving_tls_peers.py ended without listening")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        self.python = python
        self.script = script
        ports = try JSONReader.read(Array(try Data(contentsOf: portsFile))) { reader throws(JSONReadError) in
            try Self.counts(&reader)
        }
    }

    /// Ends the peers once every misbehaving connection has finished, and returns what they did.
    public func stop() async throws -> Report {
        defer { python.removeFiles() }
        let stop = python.workDirectory.appendingPathComponent("stop").path
        guard FileManager.default.createFile(atPath: stop, contents: nil) else {
            throw PythonHelper.Failure(description: "cannot create \(stop) to stop misbehaving_tls_peers.py")
        }
        let output = Array(try await script.value)
        return try JSONReader.read(output) { reader throws(JSONReadError) in try Report(json: &reader) }
    }
}

private final class ExitFlag: Sendable {
    let value = Atomic(false)
}
