import BoundedText
public import RPCCore

/// gRPC server reflection (`grpc.reflection.v1.ServerReflection` and its predecessor
/// `grpc.reflection.v1alpha.ServerReflection`, both served) over a FileDescriptorSet.
///
/// Every request on the bidirectional stream gets exactly one response, echoing the request and its host. Build it
/// after registering the other services, so it can list them:
///
/// ```swift
/// var router = RPCRouter()
/// router.register([entitlementService, healthService])
/// ReflectionService(serviceNames: router.serviceNames).register(on: &router)
/// ```
public struct ReflectionService: RPCService {
    public static let v1ServiceName = "grpc.reflection.v1.ServerReflection"
    public static let v1alphaServiceName = "grpc.reflection.v1alpha.ServerReflection"
    public static let methodName = "ServerReflectionInfo"

    private let index: DescriptorIndex
    private let listedServices: ListServiceResponse

    /// - Parameters:
    ///   - fileDescriptorSet: a serialized `google.protobuf.FileDescriptorSet` that includes the imports of its files
    ///     (`protoc --include_imports`).
    ///   - serviceNames: the fully-qualified services the server actually serves; list_services answers these (plus
    ///     the two reflection services), sorted.
    /// - Throws: a `ProtoDecodingError` when the set does not parse.
    public init(fileDescriptorSet: [UInt8], serviceNames: some Sequence<String>) throws {
        index = try DescriptorIndex(fileDescriptorSet: fileDescriptorSet)
        var names = Set(serviceNames)
        names.insert(Self.v1ServiceName)
        names.insert(Self.v1alphaServiceName)
        listedServices = ListServiceResponse(service: names.sorted().map { ServiceResponse(name: $0) })
    }

    /// Serves ``EmbeddedDescriptors/fileDescriptorSet``, the descriptors of every .proto under Protos/.
    public init(serviceNames: some Sequence<String>) {
        do {
            try self.init(fileDescriptorSet: EmbeddedDescriptors.fileDescriptorSet, serviceNames: serviceNames)
        } catch {
            preconditionFailure("EmbeddedDescriptors does not parse (\(error)): run Scripts/generate-descriptors")
        }
    }

    public func register(on router: inout RPCRouter) {
        for service in [Self.v1ServiceName, Self.v1alphaServiceName] {
            router.registerBidirectional(MethodDescriptor(service: service, method: Self.methodName)) {
                (requests: RequestMessages<ServerReflectionRequest>, responses: ResponseWriter<ServerReflectionResponse>, _) in
                for try await request in requests {
                    try await responses.write(response(to: request))
                }
            }
        }
    }

    /// The answer to one request of the stream.
    public func response(to request: ServerReflectionRequest) -> ServerReflectionResponse {
        ServerReflectionResponse(validHost: request.host, originalRequest: request, answer(request.messageRequest))
    }

    private func answer(_ request: ServerReflectionRequest.MessageRequest?) -> ServerReflectionResponse.MessageResponse {
        switch request {
        case .listServices?:
            return .listServicesResponse(listedServices)

        case .fileByFilename(let name)?:
            guard let file = index.fileIndex(named: name) else {
                return error(.notFound, "File \(name.quotedForMessage) not found.")
            }
            return files(file)

        case .fileContainingSymbol(let symbol)?:
            guard let file = index.fileIndex(containingSymbol: symbol) else {
                return error(.notFound, "Symbol \(symbol.quotedForMessage) not found.")
            }
            return files(file)

        case .fileContainingExtension(let request)?:
            guard let file = index.fileIndex(extending: request.containingType, number: request.extensionNumber) else {
                return error(
                    .notFound,
                    "Extension \(request.extensionNumber) of type \(request.containingType.quotedForMessage) not found."
                )
            }
            return files(file)

        case .allExtensionNumbersOfType(let type)?:
            guard let numbers = index.extensionNumbers(of: type) else {
                return error(.notFound, "Type \(type.quotedForMessage) not found.")
            }
            return .allExtensionNumbersResponse(ExtensionNumberResponse(baseTypeName: type, extensionNumber: numbers))

        case nil:
            return error(.unimplemented, "The request sets none of the message_request fields this server knows.")
        }
    }

    private func files(_ file: Int) -> ServerReflectionResponse.MessageResponse {
        .fileDescriptorResponse(FileDescriptorResponse(fileDescriptorProto: index.fileWithDependencies(file)))
    }

    private func error(_ code: RPCError.Code, _ message: String) -> ServerReflectionResponse.MessageResponse {
        .errorResponse(ErrorResponse(errorCode: Int32(code.rawValue), errorMessage: message))
    }
}
