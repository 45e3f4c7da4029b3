import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One gRPC-Web call in flight: turns what its URLSession task delivers (the response head, body pieces, the end)
/// into messages and a final status. Fed on the session's delegate queue, one callback at a time.
final class GRPCWebCall: @unchecked Sendable {
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private var decoder = GRPCWebFrameDecoder()
    /// The status from the headers (Trailers-Only) or the trailers frame; nil until one arrived.
    private var status: Result<Void, EntitlementsError>?
    private var finished = false

    init(continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation) {
        self.continuation = continuation
    }

    /// Whether the body should be read: a 200 with a gRPC-Web content type, or a Trailers-Only error.
    func received(_ response: URLResponse) -> Bool {
        guard let http = response as? HTTPURLResponse else {
            finish(EntitlementsError(code: .internal, message: "The server's answer was not HTTP."))
            return false
        }
        let headers = Dictionary(
            http.allHeaderFields.compactMap { key, value in
                (key as? String).map { ($0.lowercased(), "\(value)") }
            }, uniquingKeysWith: { first, _ in first })
        if let error = GRPCWebStatus.error(from: headers) {
            status = .failure(error)
        } else if headers["grpc-status"] != nil {
            status = .success(())
        }
        guard http.statusCode == 200 else {
            finish(status.flatMap { if case .failure(let error) = $0 { error } else { nil } }
                ?? GRPCWebStatus.error(httpStatus: http.statusCode))
            return false
        }
        guard status == nil else { return true }  // Trailers-Only: the body is empty.
        guard Self.isBinaryGRPCWeb(headers["content-type"]) else {
            finish(EntitlementsError(
                code: .unknown, message: "The server answered with content type '\(headers["content-type"]?.prefix(64) ?? "")', not gRPC-Web."))
            return false
        }
        return true
    }

    /// `application/grpc-web` or `application/grpc-web+proto`, with or without parameters; not the text mode.
    static func isBinaryGRPCWeb(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return type == "application/grpc-web" || type == "application/grpc-web+proto"
    }

    func received(_ data: Data) {
        guard !finished else { return }
        do throws(GRPCWebFrameDecoder.Malformed) {
            for frame in try decoder.append(data) {
                switch frame {
                case .message(let bytes):
                    guard status == nil else { throw GRPCWebFrameDecoder.Malformed(reason: "a message came after the trailers") }
                    continuation.yield(bytes)
                case .trailers(let trailers):
                    status = GRPCWebStatus.error(from: trailers).map { .failure($0) } ?? .success(())
                    if trailers["grpc-status"] == nil {
                        status = .failure(EntitlementsError(code: .internal, message: "The trailers held no grpc-status."))
                    }
                }
            }
        } catch {
            finish(EntitlementsError(code: .internal, message: "The response body is not gRPC-Web: \(error.reason)"))
        }
    }

    /// The task ended: with the status received, or with what the network said.
    func completed(_ error: (any Error)?) {
        if case .success? = status, !decoder.hasPartialFrame {
            finish(nil)  // The call ended OK; what the connection did afterwards does not change that.
            return
        }
        if let error {
            let urlError = error as? URLError
            let code: EntitlementsError.Code =
                switch urlError?.code {
                case .cancelled?: .cancelled
                case .timedOut?: .deadlineExceeded
                default: .unavailable
                }
            finish(status.flatMap { if case .failure(let error) = $0 { error } else { nil } }
                ?? EntitlementsError(code: code, message: "The connection failed: \(urlError?.localizedDescription ?? "\(error)")"))
            return
        }
        switch status {
        case .success?: finish(nil)
        case .failure(let error)?: finish(error)
        case nil:
            finish(EntitlementsError(
                code: decoder.hasPartialFrame ? .unavailable : .internal,
                message: "The response ended without a gRPC status."))
        }
    }

    func finish(_ error: EntitlementsError?) {
        guard !finished else { return }
        finished = true
        continuation.finish(throwing: error)
    }
}

/// Routes the session's callbacks to the call of each task.
final class GRPCWebSessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var calls: [Int: GRPCWebCall] = [:]

    func register(_ call: GRPCWebCall, for task: URLSessionTask) {
        lock.withLock { calls[task.taskIdentifier] = call }
    }

    private func call(for task: URLSessionTask) -> GRPCWebCall? {
        lock.withLock { calls[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let proceed = call(for: dataTask)?.received(response) ?? false
        completionHandler(proceed ? .allow : .cancel)
    }

    /// Redirects are refused: the key must not follow a `Location` to another host.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        call(for: dataTask)?.received(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let call = lock.withLock { calls.removeValue(forKey: task.taskIdentifier) }
        call?.completed(error)
    }
}
