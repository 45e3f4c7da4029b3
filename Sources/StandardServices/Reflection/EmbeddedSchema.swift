public import ProtoJSON

extension EmbeddedDescriptors {
    /// The message types of ``fileDescriptorSet`` as protobuf's JSON mapping reads them: for Connect calls in JSON
    /// and `entctl --json`. The set is checked in and tested, so failing to read it is a build defect.
    public static let messageSchema: ProtoSchema = {
        do {
            return try ProtoSchema(fileDescriptorSet: fileDescriptorSet)
        } catch {
            preconditionFailure("EmbeddedDescriptors does not read as a schema (\(error)): run Scripts/generate-descriptors")
        }
    }()
}
