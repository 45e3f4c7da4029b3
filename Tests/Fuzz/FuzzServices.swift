import FuzzFixture
import Foundation
import RPCCore
import Synchronization

/// libFuzzer target: every method of EntitlementService and AdminService, through the real handlers on the router
/// `entitlementd` serves (``FuzzServer``: a real SQLite database, a tenant with every store configured against local
/// fakes that answer at once), with valid requests whose numbers sit at the edges of their types, or raw bytes. Each
/// input must get a status: a trap fails the run, and so does a handler still working 5 s after its deadline or
/// cancellation, or a call not ended within 30 s. Streaming calls are cancelled after their first answer.
///
/// The input picks, in order: the method, how the stores answer, the key, the deadline, then the request.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServices(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let server = FuzzServer.shared
    var input = FuzzInput(data, size)
    let method = input.pick(FuzzMethod.all)
    server.fakes.answer(with: FakeStores.Script(&input))
    let key = apiKey(&input, server.keys, publicKeyFirst: method.takesPublicKey)
    // Now and then a deadline that runs out while the handler works.
    let timeout: Duration = input.oneIn(8) ? .milliseconds(Int64(input.choose(20))) : .seconds(2)
    let request = method.request(&input, server)
    runBounded("\(method.path) (\(request.count) request bytes)", within: .seconds(30)) {
        let outcome = await server.call(
            method.path, request, metadata: FuzzServer.metadata(key: key), timeout: timeout, streaming: method.isStreaming)
        answers.withLock { answers in
            answers["\(method.path) \(outcome.status.code)", default: (0, outcome.status.message)].count += 1
        }
    }
    return 0
}

/// The key the call presents: mostly one the method takes, else a read-only, public or other tenant's key, a
/// malformed one or none.
private func apiKey(_ input: inout FuzzInput, _ keys: FuzzServer.Keys, publicKeyFirst: Bool) -> String? {
    switch input.choose(16) {
    case 10: keys.secretKey
    case 11: keys.readKey
    case 12: keys.publicKey
    case 13: input.bool() ? keys.bareSecretKey : keys.barePublicKey
    case 14: input.string(["sk_", "pk_" + String(repeating: "x", count: 40), "Bearer", " "])
    case 15: nil
    default: publicKeyFirst ? keys.publicKey : keys.secretKey
    }
}

/// How often each method answered each code, and the first message, printed when the run ends: what the inputs
/// reached.
private let answers: Mutex<[String: (count: Int, message: String)]> = {
    atexit {
        let lines = answers.withLock { $0 }.sorted { $0.key < $1.key }.map {
            "answers: \($0.key) \($0.value.count) \($0.value.message.prefix(160))"
        }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
    return Mutex([:])
}()
