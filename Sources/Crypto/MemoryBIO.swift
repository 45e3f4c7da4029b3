import COpenSSL

/// The in-memory `BIO`s that PEM reading and writing go through, with their lifetimes tied to a closure.
enum MemoryBIO {
    /// Runs `body` with a read-only BIO over the UTF-8 bytes of `text` (valid only inside `body`).
    static func reading<T, E: Error>(
        _ text: String, _ body: (OpaquePointer) throws(E) -> T
    ) throws(E) -> T {
        var bytes = Array(text.utf8)
        let count = Int32(bytes.count)
        if bytes.isEmpty { bytes = [0] }  // BIO_new_mem_buf rejects a null pointer even for zero bytes.
        // The BIO refers to `bytes` without copying, so it lives and dies inside this closure.
        let result: Result<T, E> = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, count) else {
                preconditionFailure("BIO_new_mem_buf failed: \(OpenSSLErrorQueue.drain())")
            }
            defer { BIO_free(bio) }
            return Result { () throws(E) -> T in try body(bio) }
        }
        return try result.get()
    }

    /// Runs `write` against an empty writable BIO and returns what it wrote, or nil when `write` reports failure.
    static func writing(_ write: (OpaquePointer) -> Bool) -> [UInt8]? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard write(bio) else { return nil }
        let pending = Int(BIO_ctrl_pending(bio))
        var output = [UInt8](repeating: 0, count: pending)
        let read = output.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(pending)) }
        guard pending == 0 || Int(read) == pending else { return nil }
        return output
    }
}
