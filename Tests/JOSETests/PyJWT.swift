import Foundation
import TestSupport

/// Runs PyJWT (Python, from PyPI) over RS256 tokens and key sets made by the tests, and has it make its own.
///
/// A missing interpreter or library is a failure (``PythonHelper``), never a skip: agreeing with PyJWT is the proof.
struct PyJWT {
    struct Verdict: Decodable, Equatable {
        var valid: Bool
        var claims: [String: Claim]?
        var error: String?
    }

    /// The claim values the tests use.
    enum Claim: Decodable, Equatable {
        case string(String)
        case number(Int)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int.self) {
                self = .number(number)
            } else {
                self = .string(try container.decode(String.self))
            }
        }
    }

    /// What `sign` made: its key set, the SPKI PEM of its key, and a token signed with it.
    struct Signed {
        var jwks: Data
        var publicKeyPEM: String
        var token: String
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Resources/pyjwt_rs256.py").path
    static let setupHint = """
        The PyJWT differential tests need Python 3 with PyJWT and cryptography (pinned in Tests/Interop/requirements.txt). \
        Create the venv at the package root (python3 -m venv .venv && .venv/bin/pip install -r \
        Tests/Interop/requirements.txt) or point ENTITLEMENTD_PYTHON at an interpreter that has them.
        """

    let python: PythonHelper

    init() throws {
        python = try PythonHelper(packageRoot: RepositoryFiles.root, workDirectoryPrefix: "jose-pyjwt", setupHint: Self.setupHint)
    }

    func removeFiles() {
        python.removeFiles()
    }

    /// PyJWT's verdict on each of `tokens` with the keys of `jwks`.
    func verify(jwks: [UInt8], tokens: [String]) async throws -> [Verdict] {
        try Data(jwks).write(to: python.workDirectory.appendingPathComponent("jwks.json"))
        try JSONEncoder().encode(tokens).write(to: python.workDirectory.appendingPathComponent("tokens.json"))
        return try await JSONDecoder().decode([Verdict].self, from: python.run([Self.script, "verify", python.workDirectory.path]))
    }

    /// A fresh key PyJWT signs a token with (kid `pyjwt-key`, claims `iss`, `sub`, `n`).
    func sign() async throws -> Signed {
        _ = try await python.run([Self.script, "sign", python.workDirectory.path])
        let directory = python.workDirectory
        return Signed(
            jwks: try Data(contentsOf: directory.appendingPathComponent("jwks.json")),
            publicKeyPEM: try String(contentsOf: directory.appendingPathComponent("public.pem"), encoding: .utf8),
            token: try String(contentsOf: directory.appendingPathComponent("token"), encoding: .utf8))
    }
}
