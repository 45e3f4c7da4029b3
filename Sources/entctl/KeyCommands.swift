import Encodings
import EntitlementDomain
import StandardWebhooks

/// The offline key helpers: gen-key and hash-key. They never connect.
extension Entctl {
    /// `gen-key public|secret`: a new key from the CSPRNG and the hash string the tenants file lists for it.
    func generateKey() throws -> Int32 {
        try arguments.check(positionals: ["public|secret"])
        let kind: APIKey.Kind
        switch arguments.positionals[0] {
        case "public", "pk": kind = .publicKey
        case "secret", "sk": kind = .secretKey
        case let other: throw UsageError(description: "gen-key: expected public or secret, got '\(other)'")
        }
        let key = APIKey.generate(kind)
        guard let hash = APIKey.hashString(key) else { preconditionFailure("a generated key has a known prefix") }
        printer.print(
            JSONValue.object([("key", .string(key)), ("hash", .string(hash)), ("field", .string(kind.configField))]),
            human: [
                "key:  \(key)",
                "hash: \(hash)",
                "Add the hash to the tenant's \"\(kind.configField)\" in the tenants file and reload the server",
                "(SIGHUP); hand out the key. Only the hash is stored, so the key is not shown again.",
            ])
        return 0
    }

    /// `hash-key KEY` (`-` reads the key from standard input, keeping it out of shell history).
    func hashKey() throws -> Int32 {
        try arguments.check(positionals: ["KEY"])
        var key = arguments.positionals[0]
        if key == "-" { key = readLine(strippingNewline: true) ?? "" }
        guard key.utf8.count <= APIKey.maxByteCount, let hash = APIKey.hashString(key) else {
            throw UsageError(description: "hash-key: a key starts with pk_ (public) or sk_ (secret)")
        }
        printer.print(JSONValue.object([("hash", .string(hash))]), human: hash)
        return 0
    }
}

/// The offline webhook helper: gen-webhook-secret.
extension Entctl {
    /// `gen-webhook-secret`: a new Standard Webhooks secret (`whsec_` + base64 of 32 CSPRNG bytes). Only the
    /// secret goes to standard output, so `SECRET=$(entctl gen-webhook-secret)` needs no parsing.
    func generateWebhookSecret() throws -> Int32 {
        try arguments.check(positionals: [])
        let secret = WebhookSecret.generate()
        printer.print(
            JSONValue.object([("secret", .string(secret.text)), ("bytes", .number("\(secret.key.count)"))]),
            human: secret.text)
        return 0
    }
}
