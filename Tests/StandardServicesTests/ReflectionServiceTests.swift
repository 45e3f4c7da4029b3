import ProtobufWire
import RPCCore
@testable import StandardServices
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct ReflectionServiceTests {
    static let v1Path = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
    static let v1alphaPath = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"

    /// A router as the server builds it: the real services' names, health, then reflection.
    func router() -> RPCRouter {
        var router = RPCRouter()
        router.register(MethodDescriptor(service: "entitlements.v1.EntitlementService", method: "Check"),
                        RPCHandler(kind: .unary) { _, _ in })
        router.register([HealthService()])
        ReflectionService(serviceNames: router.serviceNames).register(on: &router)
        return router
    }

    /// Sends each request on one stream and returns the responses, checking each echoes its request.
    func ask(
        _ requests: [ServerReflectionRequest],
        path: String = v1Path,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [ServerReflectionResponse] {
        let call = InProcessCall(router: router(), path: path)
        var responses: [ServerReflectionResponse] = []
        for request in requests {
            call.send(request)
            let response = try #require(
                try await call.nextMessage(as: ServerReflectionResponse.self), sourceLocation: sourceLocation
            )
            #expect(response.originalRequest == request, sourceLocation: sourceLocation)
            #expect(response.validHost == request.host, sourceLocation: sourceLocation)
            responses.append(response)
        }
        call.finishSending()
        let status = await call.status()
        #expect(status.code == .ok, "\(status)", sourceLocation: sourceLocation)
        return responses
    }

    func ask(_ request: ServerReflectionRequest.MessageRequest?, path: String = v1Path) async throws
        -> ServerReflectionResponse.MessageResponse?
    {
        try await ask([ServerReflectionRequest(host: "localhost:50051", request)], path: path)[0].messageResponse
    }

    /// The files of a file_descriptor_response, decoded; fails on any other answer.
    func files(
        _ response: ServerReflectionResponse.MessageResponse?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [FileDescriptorProto] {
        guard case .fileDescriptorResponse(let files)? = response else {
            Issue.record("expected a file_descriptor_response, got \(String(describing: response))",
                         sourceLocation: sourceLocation)
            return []
        }
        let decoded = try files.fileDescriptorProto.map { try FileDescriptorProto(serializedBytes: $0) }
        // Self-contained: every dependency of every file returned is returned too, each file once.
        let names = decoded.map(\.name)
        #expect(Set(names).count == names.count, "duplicate files: \(names)", sourceLocation: sourceLocation)
        for file in decoded {
            for dependency in file.dependency {
                #expect(names.contains(dependency), "\(file.name) needs \(dependency)", sourceLocation: sourceLocation)
            }
        }
        return decoded
    }

    func errorCode(_ response: ServerReflectionResponse.MessageResponse?) -> Int32? {
        guard case .errorResponse(let error)? = response else { return nil }
        return error.errorCode
    }

    @Test(arguments: [v1Path, v1alphaPath])
    func listsRegisteredServices(path: String) async throws {
        let response = try await ask(.listServices(""), path: path)
        guard case .listServicesResponse(let list)? = response else {
            Issue.record("unexpected \(String(describing: response))")
            return
        }
        #expect(list.service.map(\.name) == [
            "entitlements.v1.EntitlementService",
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection",
        ])
    }

    @Test func resolvesTheEntitlementService() async throws {
        let files = try files(try await ask(.fileContainingSymbol("entitlements.v1.EntitlementService")))
        let file = try #require(files.first)
        #expect(file.package == "entitlements.v1")
        #expect(file.service.contains { $0.name == "EntitlementService" })
        #expect(files.count == 1 + (try transitiveDependencies(of: file.name)).count)
    }

    @Test(arguments: [
        "grpc.health.v1.Health",
        "grpc.health.v1.Health.Check",
        "grpc.health.v1.Health.Watch",
        "grpc.health.v1.HealthCheckRequest",
        "grpc.health.v1.HealthCheckResponse.ServingStatus",
        "grpc.health.v1.HealthCheckResponse.SERVING",
        "grpc.health.v1.HealthCheckRequest.service",
        ".grpc.health.v1.HealthCheckResponse",
    ])
    func resolvesHealthSymbols(symbol: String) async throws {
        let files = try files(try await ask(.fileContainingSymbol(symbol)))
        #expect(files.map(\.name) == ["grpc/health/v1/health.proto"])
    }

    @Test func resolvesReflectionSymbolsOfBothVersions() async throws {
        let v1 = try files(try await ask(.fileContainingSymbol("grpc.reflection.v1.ServerReflection.ServerReflectionInfo")))
        #expect(v1.map(\.name) == ["grpc/reflection/v1/reflection.proto"])
        let v1alpha = try files(
            try await ask(.fileContainingSymbol("grpc.reflection.v1alpha.ErrorResponse"), path: Self.v1alphaPath)
        )
        #expect(v1alpha.map(\.name) == ["grpc/reflection/v1alpha/reflection.proto"])
    }

    @Test func fileByFilenameReturnsTheFileWithItsDependencies() async throws {
        let index = try DescriptorIndex(fileDescriptorSet: EmbeddedDescriptors.fileDescriptorSet)
        for file in index.files {
            let files = try files(try await ask(.fileByFilename(file.name)))
            #expect(files.first?.name == file.name)
            #expect(Set(files.dropFirst().map(\.name)) == Set(try transitiveDependencies(of: file.name)))
        }
        let health = try files(try await ask(.fileByFilename("grpc/health/v1/health.proto")))
        #expect(health.count == 1)
        // The bytes are the embedded ones, verbatim.
        guard case .fileDescriptorResponse(let raw)? = try await ask(.fileByFilename("grpc/health/v1/health.proto"))
        else { return }
        #expect(raw.fileDescriptorProto.first == index.files.first { $0.name == "grpc/health/v1/health.proto" }?.bytes)
    }

    @Test func unknownNamesAreNotFound() async throws {
        #expect(errorCode(try await ask(.fileContainingSymbol("no.such.Symbol"))) == 5)
        #expect(errorCode(try await ask(.fileContainingSymbol("grpc.health.v1.Health.Nope"))) == 5)
        #expect(errorCode(try await ask(.fileByFilename("no/such.proto"))) == 5)
        #expect(errorCode(try await ask(.fileContainingExtension(
            ExtensionRequest(containingType: "grpc.health.v1.HealthCheckRequest", extensionNumber: 100)
        ))) == 5)
        #expect(errorCode(try await ask(.allExtensionNumbersOfType("no.such.Type"))) == 5)
        #expect(errorCode(try await ask(nil)) == 12)

        guard case .errorResponse(let error)? = try await ask(.fileContainingSymbol("no.such.Symbol")) else { return }
        #expect(error.errorMessage.contains("no.such.Symbol"))
    }

    @Test func extensionNumbersOfAKnownTypeWithoutExtensions() async throws {
        let response = try await ask(.allExtensionNumbersOfType("grpc.health.v1.HealthCheckRequest"))
        #expect(response == .allExtensionNumbersResponse(
            ExtensionNumberResponse(baseTypeName: "grpc.health.v1.HealthCheckRequest", extensionNumber: [])
        ))
    }

    @Test func manyRequestsOnOneStream() async throws {
        let requests: [ServerReflectionRequest] = [
            ServerReflectionRequest(host: "a", .listServices("*")),
            ServerReflectionRequest(host: "b", .fileContainingSymbol("grpc.health.v1.Health")),
            ServerReflectionRequest(host: "c", .fileContainingSymbol("missing.Thing")),
            ServerReflectionRequest(host: "d", .fileByFilename("grpc/reflection/v1/reflection.proto")),
        ]
        let responses = try await ask(requests)
        #expect(responses.count == 4)
    }

    /// Extensions, which the embedded protos do not declare, on a hand-built set.
    @Test func indexesExtensions() throws {
        var base = FileDescriptorProto()
        base.name = "base.proto"
        base.package = "ext"
        var options = DescriptorProto()
        options.name = "Options"
        var nested = DescriptorProto()
        nested.name = "Inner"
        var color = EnumDescriptorProto()
        color.name = "Color"
        var red = NamedDescriptorProto()
        red.name = "RED"
        color.value = [red]
        nested.enumType = [color]
        options.nestedType = [nested]
        base.messageType = [options]

        var more = FileDescriptorProto()
        more.name = "more.proto"
        more.package = "ext.more"
        more.dependency = ["base.proto"]
        var flag = FieldDescriptorProto()
        flag.name = "flag"
        flag.extendee = ".ext.Options"
        flag.number = 1000
        var level = FieldDescriptorProto()
        level.name = "level"
        level.extendee = ".ext.Options"
        level.number = 7
        more.extension = [flag, level]

        var set = FileDescriptorSet()
        set.file = [base.serializedBytes(), more.serializedBytes()]
        let service = try ReflectionService(fileDescriptorSet: set.serializedBytes(), serviceNames: [])

        func answer(_ request: ServerReflectionRequest.MessageRequest) -> ServerReflectionResponse.MessageResponse? {
            service.response(to: ServerReflectionRequest(request)).messageResponse
        }
        #expect(answer(.allExtensionNumbersOfType("ext.Options")) == .allExtensionNumbersResponse(
            ExtensionNumberResponse(baseTypeName: "ext.Options", extensionNumber: [7, 1000])
        ))
        let extending = try files(answer(.fileContainingExtension(
            ExtensionRequest(containingType: "ext.Options", extensionNumber: 1000)
        )))
        #expect(extending.map(\.name) == ["more.proto", "base.proto"])
        #expect(try files(answer(.fileContainingSymbol("ext.more.flag"))).first?.name == "more.proto")
        #expect(try files(answer(.fileContainingSymbol("ext.Options.Inner.Color"))).map(\.name) == ["base.proto"])
        #expect(try files(answer(.fileContainingSymbol("ext.Options.Inner.RED"))).map(\.name) == ["base.proto"])
        #expect(errorCode(answer(.fileContainingSymbol("ext.Options.Inner.Color.RED"))) == 5)
        #expect(errorCode(answer(.fileContainingExtension(
            ExtensionRequest(containingType: "ext.Options", extensionNumber: 1)
        ))) == 5)
    }

    @Test func malformedSetIsRejected() {
        #expect(throws: ProtoDecodingError.self) {
            try ReflectionService(fileDescriptorSet: [0x0A, 0x05, 0x01], serviceNames: [])
        }
    }

    @Test func requestCodecKeepsEmptyOneofStrings() throws {
        let request = ServerReflectionRequest(.listServices(""))
        #expect(request.serializedBytes() == [0x3A, 0x00])
        #expect(try ServerReflectionRequest(serializedBytes: [0x3A, 0x00]) == request)
        #expect(ServerReflectionRequest(nil).serializedBytes().isEmpty)

        let response = ServerReflectionResponse(
            validHost: "h",
            originalRequest: ServerReflectionRequest(host: "h", .fileContainingExtension(
                ExtensionRequest(containingType: "a.B", extensionNumber: 5)
            )),
            .fileDescriptorResponse(FileDescriptorResponse(fileDescriptorProto: [[], [1, 2, 3]]))
        )
        #expect(try ServerReflectionResponse(serializedBytes: response.serializedBytes()) == response)
        let numbers = ServerReflectionResponse(originalRequest: nil, .allExtensionNumbersResponse(
            ExtensionNumberResponse(baseTypeName: "a.B", extensionNumber: [1, 300])
        ))
        #expect(try ServerReflectionResponse(serializedBytes: numbers.serializedBytes()) == numbers)
    }

    /// The names `file` depends on, transitively, from the embedded set.
    func transitiveDependencies(of file: String) throws -> [String] {
        let index = try DescriptorIndex(fileDescriptorSet: EmbeddedDescriptors.fileDescriptorSet)
        var result: [String] = []
        var pending = [file]
        while let next = pending.popLast() {
            guard let position = index.fileIndex(named: next) else { continue }
            for dependency in index.files[position].dependencies where !result.contains(dependency) {
                result.append(dependency)
                pending.append(dependency)
            }
        }
        return result
    }
}
