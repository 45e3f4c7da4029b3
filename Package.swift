// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "entitlementd",
    // The server needs macOS 15 (Synchronization); EntitlementsKit runs from iOS 16 (Duration, Task.sleep(for:)),
    // its EntitlementsModel from iOS 17 (Observation).
    platforms: [.macOS(.v15), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .executable(name: "entitlementd", targets: ["entitlementd"]),
        .executable(name: "entctl", targets: ["entctl"]),
        // The app SDK: EntitlementsKit builds on Apple platforms too; EntitlementsKitGRPC adds native gRPC for Linux.
        .library(name: "EntitlementsKit", targets: ["EntitlementsKit", "EntitlementsKitGRPC"]),
    ],
    targets: [
        // C libraries, each behind one module. Only the transport (PosixIO through HTTP2Transport), Crypto and
        // EntitlementStorage import them.
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // What Swift cannot import from them, one shim per library or OS, each depending only on what it includes:
        // Linux system calls (CSystemShims), OpenSSL macros and callbacks (COpenSSLShims): Crypto links no nghttp2.
        .target(name: "CSystemShims"),
        .target(name: "COpenSSLShims", dependencies: ["COpenSSL"]),

        // Layers, bottom up.
        .target(name: "EntitlementdVersion", swiftSettings: strict),
        .target(name: "Encodings", swiftSettings: strict),
        .target(name: "FileAccess", swiftSettings: strict),
        .target(name: "CivilCalendar", swiftSettings: strict),
        .target(name: "BoundedText", swiftSettings: strict),
        // The request ID bound to a call's task, which the logger, the domain and the webhook outbox pick up.
        .target(name: "RequestTracing", dependencies: ["CSystemShims"], swiftSettings: strict),
        // Prometheus text exposition, sharded counters and histograms; every layer that reports metrics uses it.
        .target(name: "Metrics", swiftSettings: strict),
        .target(name: "ProtobufWire", swiftSettings: strict),
        .target(name: "EntitlementsProto", dependencies: ["ProtobufWire"], swiftSettings: strict),
        .target(name: "ProtoJSON", dependencies: ["ProtobufWire", "Encodings", "CivilCalendar"], swiftSettings: strict),
        .target(
            name: "RPCCore",
            dependencies: ["ProtobufWire", "BoundedText", "CivilCalendar", "Encodings", "Metrics", "RequestTracing", "CSystemShims"],
            swiftSettings: strict),
        // The transport, bottom up: event loops and sockets; TLS over them; HTTP/1.1 (the server's parser and
        // serializer, the outbound client); HTTP/2, gRPC and gRPC-Web, the server. Only the last links nghttp2.
        .target(name: "PosixIO", dependencies: ["CSystemShims"], swiftSettings: strict),
        .target(name: "TransportTLS", dependencies: ["PosixIO", "FileAccess", "COpenSSL", "COpenSSLShims"], swiftSettings: strict),
        .target(
            name: "HTTP1", dependencies: ["PosixIO", "TransportTLS", "Encodings", "Metrics", "RequestTracing"], swiftSettings: strict),
        .target(
            name: "HTTP2Transport",
            dependencies: [
                "PosixIO", "TransportTLS", "HTTP1", "RPCCore", "ProtoJSON", "BoundedText", "Encodings", "Metrics", "RequestTracing",
                "CNGHTTP2", "CZlib", "CSystemShims",
            ],
            swiftSettings: strict
        ),
        // The one outbound HTTP client: retries, backoff and URLs over the transport's HTTP/1.1 client.
        .target(name: "OutboundHTTP", dependencies: ["HTTP1", "PosixIO", "CivilCalendar", "Metrics"], swiftSettings: strict),
        .target(
            name: "StandardServices", dependencies: ["RPCCore", "ProtobufWire", "ProtoJSON", "BoundedText", "Encodings"],
            swiftSettings: strict),
        .target(name: "Crypto", dependencies: ["COpenSSL", "COpenSSLShims", "CivilCalendar", "Encodings"], swiftSettings: strict),
        // Compact JWS and JSON Web Key Sets, shared by the stores: ES256 signing for the App Store, RS256 for Google.
        .target(name: "JOSE", dependencies: ["Crypto", "Encodings", "BoundedText"], swiftSettings: strict),
        .target(name: "AppStore", dependencies: ["JOSE", "Crypto", "CivilCalendar", "Encodings", "FileAccess"], swiftSettings: strict),
        // Google Play's data formats (purchases, notifications), read by the domain; the API client is GooglePlayAPI.
        .target(name: "GooglePlay", dependencies: ["CivilCalendar", "Encodings"], swiftSettings: strict),
        // Stripe's formats: webhook signatures, events and the objects they carry.
        .target(name: "Stripe", dependencies: ["Crypto", "Encodings"], swiftSettings: strict),
        // Standard Webhooks signing (whsec_ secrets, webhook-id/-timestamp/-signature) for our outgoing webhooks.
        .target(name: "StandardWebhooks", dependencies: ["Crypto", "Encodings", "BoundedText"], swiftSettings: strict),
        // Stripe's API: objects re-fetched so that events are applied as the objects are now.
        .target(
            name: "AppStoreServerAPI", dependencies: ["JOSE", "Crypto", "CivilCalendar", "Encodings", "OutboundHTTP", "HTTP1"],
            swiftSettings: strict),
        .target(name: "StripeAPI", dependencies: ["Stripe", "OutboundHTTP", "HTTP1", "BoundedText", "Encodings"], swiftSettings: strict),
        // Signing keys published as a JWKS at a URL (Google's, a tenant backend's), fetched and cached.
        .target(
            name: "SigningKeys", dependencies: ["JOSE", "Crypto", "OutboundHTTP", "HTTP1", "CivilCalendar"], swiftSettings: strict
        ),
        // Google's APIs: service-account tokens, the Play Developer API, Pub/Sub push tokens.
        .target(
            name: "GooglePlayAPI",
            dependencies: [
                "GooglePlay", "OutboundHTTP", "HTTP1", "JOSE", "Crypto", "CivilCalendar", "Encodings", "FileAccess", "BoundedText",
                "SigningKeys",
            ],
            swiftSettings: strict
        ),
        .target(
            name: "EntitlementDomain",
            dependencies: [
                "Crypto", "ProtobufWire", "BoundedText", "AppStore", "GooglePlay", "Stripe", "StandardWebhooks", "Encodings",
                "FileAccess", "CivilCalendar", "RequestTracing",
            ],
            swiftSettings: strict
        ),
        // The tenants file format: strict JSON with lines, read into the domain's values by the domain's rules.
        .target(name: "TenantConfiguration", dependencies: ["BoundedText", "EntitlementDomain", "FileAccess"], swiftSettings: strict),
        .target(name: "EntitlementStorage", dependencies: ["CSQLite", "CLibPQ", "EntitlementDomain", "CivilCalendar", "Encodings", "Metrics"], swiftSettings: strict),
        .target(
            name: "EntitlementServices",
            dependencies: [
                "RPCCore", "ProtobufWire", "EntitlementsProto", "EntitlementDomain", "AppStore", "JOSE",
                "Crypto", "BoundedText", "Encodings", "GooglePlay", "GooglePlayAPI", "Stripe", "StripeAPI", "StandardWebhooks",
                "OutboundHTTP", "HTTP1", "FileAccess", "CivilCalendar", "AppStoreServerAPI", "Metrics", "RequestTracing",
                "SigningKeys",
            ],
            swiftSettings: strict
        ),
        .target(
            name: "EntitlementClient", dependencies: ["HTTP2Transport", "PosixIO", "RPCCore", "StandardServices", "EntitlementsProto", "ProtobufWire"],
            swiftSettings: strict
        ),
        .target(
            name: "EntitlementServer",
            dependencies: [
                "BoundedText", "HTTP2Transport", "HTTP1", "PosixIO", "RPCCore", "StandardServices", "EntitlementServices",
                "EntitlementDomain",
                "EntitlementStorage", "EntitlementdVersion", "FileAccess", "TenantConfiguration", "OutboundHTTP", "Metrics",
                "GooglePlayAPI", "AppStoreServerAPI", "CivilCalendar", "CSystemShims",
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "entitlementd", dependencies: ["EntitlementServer"], swiftSettings: strict),
        .executableTarget(
            name: "entctl",
            dependencies: [
                "BoundedText", "EntitlementClient", "EntitlementsProto", "EntitlementDomain", "Crypto", "AppStore", "GooglePlay",
                "Stripe", "JOSE", "CivilCalendar", "EntitlementdVersion", "Encodings", "FileAccess", "HTTP2Transport", "HTTP1", "PosixIO",
                "ProtobufWire", "ProtoJSON", "RPCCore", "StandardServices", "StandardWebhooks",
            ],
            swiftSettings: strict
        ),

        // Seeds a benchmark database and measures push latency for Scripts/benchmark.
        .executableTarget(
            name: "entitlementd-bench",
            dependencies: [
                "EntitlementClient", "EntitlementsProto", "EntitlementDomain", "EntitlementStorage", "RPCCore", "AppStore",
                "AppStoreServerAPI", "Crypto", "HTTP2Transport", "HTTP1", "PosixIO", "ProtobufWire", "JOSE", "Encodings",
                "Stripe", "CivilCalendar", "TestSupport",
            ],
            path: "Sources/BenchmarkTool", swiftSettings: strict
        ),

        // Test helpers shipped as a module: test-only services, a running-server fixture, certificate minting.
        .target(
            name: "TestSupport",
            dependencies: [
                "RPCCore", "ProtobufWire", "HTTP2Transport", "HTTP1", "EntitlementServer", "EntitlementDomain", "EntitlementServices",
                "EntitlementStorage", "Crypto", "Encodings", "Metrics",
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "interop-server", dependencies: ["TestSupport", "EntitlementServer"], path: "Sources/InteropServer",
            swiftSettings: strict
        ),

        // Signed statuses are checked with CryptoKit on Apple platforms, with the OpenSSL module on Linux.
        .target(
            name: "EntitlementsKit",
            dependencies: [
                "EntitlementsProto", "ProtobufWire", "Encodings", .target(name: "Crypto", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strict),
        .target(
            name: "EntitlementsKitGRPC", dependencies: ["EntitlementsKit", "EntitlementClient", "EntitlementsProto", "HTTP2Transport", "PosixIO"],
            swiftSettings: strict),
        // The README's Swift SDK guide as a program: builds on Linux without its StoreKit and SwiftUI parts.
        .executableTarget(
            name: "entitlements-kit-sample", dependencies: ["EntitlementsKit", "EntitlementsKitGRPC", "HTTP2Transport"],
            path: "Sources/EntitlementsKitSample", swiftSettings: strict),
        .testTarget(
            name: "EntitlementsKitTests",
            dependencies: [
                "EntitlementsKit", "EntitlementsKitGRPC", "EntitlementClient", "EntitlementsProto", "TestSupport", "Crypto",
                "EntitlementDomain", "EntitlementServices",
            ]),
        .testTarget(name: "EncodingsTests", dependencies: ["Encodings", "TestSupport"]),
        .testTarget(name: "CivilCalendarTests", dependencies: ["CivilCalendar"]),
        .testTarget(
            name: "AppStoreServerAPITests",
            dependencies: ["AppStoreServerAPI", "CivilCalendar", "Crypto", "OutboundHTTP", "TestSupport"], exclude: ["Resources"]),
        .testTarget(name: "StripeTests", dependencies: ["Stripe", "CivilCalendar", "TestSupport", "Encodings"], exclude: ["Resources"]),
        .testTarget(name: "StandardWebhooksTests", dependencies: ["StandardWebhooks", "TestSupport"], exclude: ["Resources"]),
        .testTarget(name: "OutboundHTTPTests", dependencies: ["OutboundHTTP", "HTTP1", "HTTP2Transport", "TestSupport", "RPCCore"]),
        .testTarget(name: "ProtobufWireTests", dependencies: ["ProtobufWire", "TestSupport", "Encodings"]),
        .testTarget(name: "BoundedTextTests", dependencies: ["BoundedText"]),
        .testTarget(name: "MetricsTests", dependencies: ["Metrics"]),
        .testTarget(
            name: "EntitlementsProtoTests",
            dependencies: ["EntitlementsProto", "ProtobufWire", "TestSupport", "Encodings", "ProtoJSON", "StandardServices"],
            exclude: ["Resources"]),
        .testTarget(name: "ProtoJSONTests", dependencies: ["ProtoJSON", "StandardServices"]),
        .testTarget(name: "RPCCoreTests", dependencies: ["RPCCore", "TestSupport", "ProtobufWire", "RequestTracing"]),
        .testTarget(name: "PosixIOTests", dependencies: ["PosixIO"]),
        .testTarget(name: "TransportTLSTests", dependencies: ["TransportTLS", "PosixIO", "Encodings"]),
        .testTarget(name: "HTTP1Tests", dependencies: ["HTTP1", "PosixIO", "TestSupport"]),
        .testTarget(name: "HTTP2TransportTests", dependencies: ["HTTP2Transport", "HTTP1", "RPCCore", "TestSupport", "ProtobufWire", "CSystemShims"]),
        .testTarget(name: "StandardServicesTests", dependencies: ["StandardServices", "TestSupport", "EntitlementClient", "HTTP2Transport", "ProtobufWire", "RPCCore"]),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport", "RPCCore", "ProtobufWire", "Encodings"]),
        .testTarget(
            name: "EntitlementServerTests",
            dependencies: [
                "EntitlementServer", "TestSupport", "EntitlementdVersion", "FileAccess", "HTTP2Transport", "HTTP1", "PosixIO", "RPCCore",
                "StandardServices",
                "EntitlementDomain", "EntitlementServices",
            ]
        ),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto", "CivilCalendar", "TestSupport", "Encodings"]),
        .testTarget(name: "JOSETests", dependencies: ["JOSE", "CivilCalendar", "Crypto", "TestSupport", "Encodings"], exclude: ["Resources"]),
        .testTarget(name: "AppStoreTests", dependencies: ["AppStore", "CivilCalendar", "JOSE", "Crypto", "TestSupport", "Encodings"], exclude: ["Resources"]),
        .testTarget(name: "EntitlementStorageTests", dependencies: ["EntitlementStorage", "EntitlementDomain", "TestSupport"]),
        .testTarget(name: "GooglePlayTests", dependencies: ["GooglePlay", "TestSupport", "Encodings"]),
        .testTarget(
            name: "SigningKeysTests",
            dependencies: ["SigningKeys", "JOSE", "Crypto", "OutboundHTTP", "CivilCalendar", "TestSupport"]
        ),
        .testTarget(
            name: "GooglePlayAPITests",
            dependencies: [
                "GooglePlayAPI", "GooglePlay", "CivilCalendar", "OutboundHTTP", "JOSE", "Crypto", "Encodings", "TestSupport",
                "SigningKeys",
            ],
            exclude: ["Resources"]
        ),
        .testTarget(
            name: "EntitlementDomainTests",
            dependencies: ["EntitlementDomain", "EntitlementStorage", "TestSupport", "AppStore", "GooglePlay", "Stripe", "CivilCalendar", "Encodings"]
        ),
        .testTarget(name: "TenantConfigurationTests", dependencies: ["TenantConfiguration", "EntitlementDomain", "TestSupport", "Crypto", "CivilCalendar"]),
        .testTarget(
            name: "EntitlementServicesTests",
            dependencies: [
                "EntitlementServices", "EntitlementDomain", "EntitlementStorage", "EntitlementsProto", "TestSupport", "EntitlementClient", "CivilCalendar",
                "RPCCore", "Crypto", "HTTP2Transport", "ProtobufWire", "StandardServices", "JOSE", "OutboundHTTP",
                "SigningKeys",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Tests build with the same settings, so that a test's imports too state what it depends on.
for target in package.targets where target.type == .test {
    target.swiftSettings = strict
}
