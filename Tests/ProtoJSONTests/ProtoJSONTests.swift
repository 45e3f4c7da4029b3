import ProtoJSON
import StandardServices
import Testing

/// The JSON mapping's edges the protobuf documentation names, on the server's own messages.
@Suite struct ProtoJSONTests {
    let schema = try! ProtoSchema(fileDescriptorSet: EmbeddedDescriptors.fileDescriptorSet)

    func json(_ bytes: [UInt8], _ type: String) throws -> String {
        String(decoding: try schema.json(fromBinary: bytes, messageName: type), as: UTF8.self)
    }

    func roundTrip(_ json: String, _ type: String, ignoringUnknownFields: Bool = false) throws -> String {
        try self.json(
            try schema.binary(fromJSON: Array(json.utf8), messageName: type, ignoringUnknownFields: ignoringUnknownFields),
            type)
    }

    func error(_ json: String, _ type: String) -> ProtoJSONError? {
        do {
            _ = try schema.binary(fromJSON: Array(json.utf8), messageName: type)
            return nil
        } catch {
            return error
        }
    }

    @Test func namesEitherWayAndDefaultsLeftOut() throws {
        let type = "entitlements.v1.SignOfferRequest"
        #expect(try roundTrip(#"{"app_user_id": "ana", "productId": "p", "offerId": ""}"#, type)
            == #"{"appUserId":"ana","productId":"p"}"#)
        #expect(try roundTrip(#"{"appUserId": null}"#, type) == "{}")
        #expect(error(#"{"appUserId": "a", "app_user_id": "b"}"#, type)?.code == .duplicateField)
        #expect(error(#"{"nope": 1}"#, type)?.code == .unknownField)
        #expect(try roundTrip(#"{"nope": 1, "productId": "p"}"#, type, ignoringUnknownFields: true) == #"{"productId":"p"}"#)
        #expect(error(#"{"appUserId": 5}"#, type)?.code == .invalidValue)
        #expect(error(#"["appUserId"]"#, type)?.code == .invalidValue)
        #expect(error(#"{"appUserId": "a""#, type)?.code == .malformedJSON)
    }

    @Test func integersEnumsAndTimes() throws {
        let type = "entitlements.v1.SignOfferResponse"
        // 64-bit integers are written as strings and read from either.
        #expect(try roundTrip(#"{"timestamp": 1700000000123}"#, type) == #"{"timestamp":"1700000000123"}"#)
        #expect(try roundTrip(#"{"timestamp": "-5"}"#, type) == #"{"timestamp":"-5"}"#)
        #expect(try roundTrip(#"{"timestamp": 1e3}"#, type) == #"{"timestamp":"1000"}"#)
        #expect(error(#"{"timestamp": 1.5}"#, type)?.code == .invalidValue)
        #expect(error(#"{"timestamp": "9223372036854775808"}"#, type)?.code == .invalidValue)
        let eligibility = "entitlements.v1.IntroductoryOfferEligibility"
        #expect(try roundTrip(#"{"reason": "SUBSCRIBED_BEFORE", "subscribedStore": 2}"#, eligibility)
            == #"{"reason":"SUBSCRIBED_BEFORE","subscribedStore":"PLAY_STORE"}"#)
        #expect(try roundTrip(#"{"reason": 7}"#, eligibility) == #"{"reason":7}"#, "an unknown number stays a number")
        #expect(error(#"{"reason": "MAYBE"}"#, eligibility)?.code == .invalidValue)
        let signature = "entitlements.v1.OfferSignature"
        #expect(try roundTrip(#"{"signedAt": "2026-12-01T10:00:00.500Z"}"#, signature) == #"{"signedAt":"2026-12-01T10:00:00.500Z"}"#)
        #expect(try roundTrip(#"{"signedAt": "2026-12-01T12:00:00.000001+02:00"}"#, signature)
            == #"{"signedAt":"2026-12-01T10:00:00.000001Z"}"#)
        #expect(try roundTrip(#"{"signedAt": "1970-01-01T00:00:00Z"}"#, signature) == #"{"signedAt":"1970-01-01T00:00:00Z"}"#)
        #expect(error(#"{"signedAt": "2026-12-01"}"#, signature)?.code == .invalidValue)
        #expect(error(#"{"signedAt": "2026-12-01T10:00:00.1234567890Z"}"#, signature)?.code == .invalidValue)
    }

    @Test func bytesAndRepeatedFields() throws {
        let chunk = "entitlements.v1.ExportCustomerChunk"
        #expect(try roundTrip(#"{"data": "AAEC/w=="}"#, chunk) == #"{"data":"AAEC/w=="}"#)
        #expect(try roundTrip(#"{"data": "AAEC_w"}"#, chunk) == #"{"data":"AAEC/w=="}"#, "URL-safe, unpadded")
        #expect(error(#"{"data": "not base64!"}"#, chunk)?.code == .invalidValue)
        let request = "entitlements.v1.GetOfferEligibilityRequest"
        #expect(try roundTrip(#"{"productIds": ["a", "b"]}"#, request) == #"{"productIds":["a","b"]}"#)
        #expect(try roundTrip(#"{"productIds": []}"#, request) == "{}")
        #expect(error(#"{"productIds": ["a", null]}"#, request)?.code == .invalidValue)
    }

    @Test func methodsByPathWithTheirTypes() throws {
        let sync = try #require(schema.methods["/entitlements.v1.EntitlementService/SyncStatus"])
        #expect(sync.inputType == "entitlements.v1.SyncStatusRequest" && sync.outputType == "entitlements.v1.SyncStatusResponse")
        #expect(!sync.isServerStreaming && !sync.isClientStreaming)
        let stream = try #require(schema.methods["/entitlements.v1.EntitlementService/StreamStatus"])
        #expect(stream.isServerStreaming && stream.outputType == "entitlements.v1.StatusEvent")
        #expect(schema.methods["/grpc.health.v1.Health/Check"] != nil)
        // Every method's messages are known, so a call can be transcoded whichever it is.
        for method in schema.methods.values {
            #expect(schema.messages[method.inputType] != nil && schema.messages[method.outputType] != nil, "\(method.path)")
        }
    }

    /// Binary input may set several members of a oneof; the last one read is the member, as when parsing it (the
    /// fuzzer's second find: writing both made JSON the reader refuses).
    @Test func oneofKeepsItsLastMember() throws {
        let type = "grpc.reflection.v1alpha.ServerReflectionRequest"
        // host (1, in no oneof), file_by_filename (3), then all_extension_numbers_of_type (6).
        let bytes: [UInt8] = [0x0A, 0x01, 0x68, 0x1A, 0x01, 0x61, 0x32, 0x01, 0x62]
        #expect(try json(bytes, type) == #"{"host":"h","allExtensionNumbersOfType":"b"}"#)
        #expect(try json([0x32, 0x01, 0x62, 0x1A, 0x01, 0x61], type) == #"{"fileByFilename":"a"}"#)
        #expect(try roundTrip(try json(bytes, type), type) == #"{"host":"h","allExtensionNumbersOfType":"b"}"#)
    }

    @Test func badBinaryIsRefusedNotTrapped() throws {
        // A string field (1) given as a varint, and a length running past the end.
        for bytes: [UInt8] in [[0x08, 0x01], [0x0A, 0x05, 0x61]] {
            #expect(throws: ProtoJSONError.self) { try json(bytes, "entitlements.v1.SignOfferRequest") }
        }
        // A packed repeated field holding no numbers is an empty list, left out (the fuzzer's first find).
        #expect(try json([0x2A, 0x00], "entitlements.v1.GetMetricsRequest") == "{}")
        // Invalid UTF-8 in a string.
        #expect(throws: ProtoJSONError.self) { try json([0x0A, 0x01, 0xFF], "entitlements.v1.SignOfferRequest") }
    }
}
