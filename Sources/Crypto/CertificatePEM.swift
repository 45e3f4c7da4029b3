import COpenSSL

/// PEM text for certificates: trust roots live in config files and the development CA writes its chain out.
extension Certificate {
    /// The first CERTIFICATE block in `pemEncoded` (other blocks, such as keys, before it are skipped).
    public init(pemEncoded: String) throws(CryptoError) {
        let handle: X509Handle? = MemoryBIO.reading(pemEncoded) { bio in
            PEM_read_bio_X509(bio, nil, { _, _, _, _ in 0 }, nil).map(X509Handle.init(taking:))
        }
        guard let handle else {
            throw .malformed("no readable CERTIFICATE block in PEM: \(OpenSSLErrorQueue.drain())")
        }
        try self.init(handle: handle, derEncoded: Self.encode(handle))
    }

    /// Every CERTIFICATE block in `pem`, in order. Throws `.malformed` when there is none or one is damaged.
    public static func allFromPEM(_ pem: String) throws(CryptoError) -> [Certificate] {
        let result: Result<[Certificate], CryptoError> = MemoryBIO.reading(pem) { bio in
            var certificates: [Certificate] = []
            while true {
                guard let x509 = PEM_read_bio_X509(bio, nil, { _, _, _, _ in 0 }, nil) else { break }
                let handle = X509Handle(taking: x509)
                do throws(CryptoError) {
                    certificates.append(try Certificate(handle: handle, derEncoded: encode(handle)))
                } catch {
                    return .failure(error)
                }
            }
            // Running out of blocks ends with "no start line"; any other error is a damaged block.
            let last = ERR_peek_last_error()
            if certificates.isEmpty || ERR_GET_LIB(last) != ERR_LIB_PEM || ERR_GET_REASON(last) != PEM_R_NO_START_LINE {
                let count = certificates.count
                return .failure(.malformed("unreadable CERTIFICATE block after \(count) in PEM: \(OpenSSLErrorQueue.drain())"))
            }
            OpenSSLErrorQueue.clear()
            return .success(certificates)
        }
        return try result.get()
    }

    /// Every certificate in a certificate file's contents: each CERTIFICATE block of PEM text, or the one DER
    /// certificate of a binary file.
    public static func all(inFile contents: [UInt8]) throws(CryptoError) -> [Certificate] {
        if let text = String(validating: contents, as: UTF8.self), text.contains("-----BEGIN") {
            return try allFromPEM(text)
        }
        return [try Certificate(derEncoded: contents)]
    }

    /// The certificate as a single PEM CERTIFICATE block.
    public var pemEncoded: String {
        guard let bytes = MemoryBIO.writing({ PEM_write_bio_X509($0, handle.pointer) == 1 }) else {
            preconditionFailure("PEM_write_bio_X509 failed: \(OpenSSLErrorQueue.drain())")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The DER encoding of a parsed certificate (OpenSSL keeps the bytes it decoded, so this is exact).
    static func encode(_ handle: X509Handle) throws(CryptoError) -> [UInt8] {
        let count = i2d_X509(handle.pointer, nil)
        guard count > 0 else { throw .malformed("certificate cannot be re-encoded: \(OpenSSLErrorQueue.drain())") }
        var output = [UInt8](repeating: 0, count: Int(count))
        let written = output.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_X509(handle.pointer, &cursor)
        }
        guard written == count else { throw .internalError("i2d_X509 wrote \(written) of \(count) bytes") }
        return output
    }
}
