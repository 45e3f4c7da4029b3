import Foundation
@testable import StandardServices
import TestSupport
import Testing

@Suite struct EmbeddedDescriptorsTests {
    static let packageRoot = RepositoryFiles.root

    static let script = packageRoot.appendingPathComponent("Scripts/generate-descriptors")

    /// Whether the script can find a compiler (it looks in the same places).
    static var protocIsAvailable: Bool {
        let environment = ProcessInfo.processInfo.environment
        if let protoc = environment["PROTOC"], !protoc.isEmpty { return true }
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        let candidates = path.map { "\($0)/protoc" } + [
            packageRoot.appendingPathComponent(".venv/bin/python").path, "/tmp/venvtest/bin/python",
        ]
        return candidates.contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test func embeddedDescriptorSetIsUpToDate() async throws {
        // Scripts/setup installs protoc: a machine without it cannot prove the set is fresh, which is a failure.
        try #require(Self.protocIsAvailable, "needs protoc (or grpc_tools in .venv) to regenerate the descriptor set")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("descriptors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("descriptors.pb")

        let errors = directory.appendingPathComponent("stderr")
        let status = try await ProcessLaunch.run(
            "/bin/bash", [Self.script.path, "--set-out", output.path], directory: Self.packageRoot.path, stderr: errors.path)
        let diagnostics = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        try #require(status == 0, "Scripts/generate-descriptors failed: \(diagnostics)")

        let regenerated = [UInt8](try Data(contentsOf: output))
        let isFresh = regenerated == EmbeddedDescriptors.fileDescriptorSet
        #expect(
            isFresh,
            """
            Sources/StandardServices/Reflection/EmbeddedDescriptors.swift is stale (Protos/ changed: \
            \(regenerated.count) bytes now, \(EmbeddedDescriptors.fileDescriptorSet.count) embedded): \
            run Scripts/generate-descriptors
            """
        )
    }

    @Test func embeddedSetHoldsEveryProtoUnderProtos() throws {
        let index = try DescriptorIndex(fileDescriptorSet: EmbeddedDescriptors.fileDescriptorSet)
        let names = Set(index.files.map(\.name))
        for required in [
            "grpc/health/v1/health.proto", "grpc/reflection/v1/reflection.proto",
            "grpc/reflection/v1alpha/reflection.proto",
        ] {
            #expect(names.contains(required))
        }
        let protos = Self.packageRoot.appendingPathComponent("Protos").resolvingSymlinksInPath()
        let enumerator = FileManager.default.enumerator(atPath: protos.path)
        var found = 0
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".proto") else { continue }
            found += 1
            #expect(names.contains(relative), "\(relative) is missing: run Scripts/generate-descriptors")
        }
        #expect(found >= 3, "no .proto files found under \(protos.path)")
        // Self-contained: every import is in the set.
        for file in index.files {
            for dependency in file.dependencies { #expect(names.contains(dependency), "\(file.name) → \(dependency)") }
        }
    }
}
