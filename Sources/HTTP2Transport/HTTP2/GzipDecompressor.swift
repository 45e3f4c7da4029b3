import CZlib
import RPCCore

/// `grpc-encoding: gzip` for request messages, through zlib, bounded by the receive limit.
struct GzipDecompressor: MessageDecompressor {
    func decompress(_ bytes: ArraySlice<UInt8>, limit: Int) throws(RPCError) -> [UInt8] {
        var stream = z_stream()
        // 16 + MAX_WBITS selects the gzip wrapper.
        guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw RPCError(code: .internal, message: "Could not start gzip decompression.")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var input = Array(bytes)
        let status: Int32 = input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = UInt32(inputBuffer.count)
            while true {
                let result = chunk.withUnsafeMutableBufferPointer { chunkBuffer -> Int32 in
                    stream.next_out = chunkBuffer.baseAddress
                    stream.avail_out = UInt32(chunkBuffer.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                if output.count + produced > limit { return Z_BUF_ERROR + 1000 }
                output.append(contentsOf: chunk[0..<produced])
                if result == Z_STREAM_END { return Z_STREAM_END }
                if result != Z_OK { return result }
                if stream.avail_in == 0 && produced == 0 { return Z_DATA_ERROR }
            }
        }
        switch status {
        case Z_STREAM_END: return output
        case Z_BUF_ERROR + 1000:
            throw RPCError(
                code: .resourceExhausted,
                message: "Decompressed message exceeds the limit of \(limit) bytes.")
        default:
            throw RPCError(code: .internal, message: "Could not decompress gzip message (zlib error \(status)).")
        }
    }
}
