import HTTP1
import PosixIO

/// entctl's requests to the server's plain HTTP routes at `--addr` (cleartext HTTP/1.1, the transport's HTTP client):
/// the development posts and the published status keys.
enum ServerHTTP {
    /// Made once and never shut down: entctl exits right after its request, and a client torn down then would free its
    /// TLS context on its own thread while `exit` cleans up OpenSSL (a crash).
    private static let client = Result { () throws(TransportError) -> HTTPClient in
        var configuration = HTTPClientConfiguration()
        configuration.userAgent = "entctl"
        return try HTTPClient(configuration: configuration)
    }

    /// The server's answer; a connection that cannot be made throws ``ClientConnectionFailure``, as a gRPC call's
    /// would, for the same hint.
    static func send(
        _ method: String, path: String, headers: [(String, String)] = [], body: [UInt8] = [], to address: ListenAddress,
        timeout: Duration
    ) async throws -> HTTPClientResponse {
        let client: HTTPClient
        switch Self.client {
        case .success(let made): client = made
        case .failure(let error): throw DevCommands.Failure(description: "cannot start the HTTP client: \(error.message)")
        }
        let request = HTTPClientRequest(
            method: method, scheme: .http, host: address.host, port: address.port, target: path,
            headers: HTTPHeaders(headers), body: body)
        do {
            return try await client.send(request, timeout: timeout)
        } catch {
            if let failure = error.connectionFailure { throw failure }
            throw DevCommands.Failure(description: error.message)
        }
    }
}
