/// Size limits the HTTP/1.1 parser enforces as bytes arrive; exceeding one fails the request (and the connection)
/// without buffering past the limit.
public struct HTTP1Limits: Sendable, Hashable {
    /// Request line plus header field lines, counting every CRLF including the one ending the section
    /// (and any empty lines tolerated before the request line). Over it: 431.
    /// The trailer section of a chunked body is bounded by the same number separately.
    public var maxHeaderBytes: Int
    /// Header field lines (and, separately, trailer field lines). Over it: 431.
    public var maxHeaderCount: Int
    /// Decoded body bytes, whether declared by Content-Length or accumulated from chunks. Over it: 413.
    public var maxBodyBytes: Int
    /// The request target of the request line. Over it: 414.
    public var maxRequestTargetBytes: Int
    /// The method token. Over it: 501 (no method that long is implemented).
    public var maxMethodBytes: Int
    /// One chunk-size line including chunk extensions, excluding its CRLF. Over it: 400.
    public var maxChunkLineBytes: Int

    public init(
        maxHeaderBytes: Int = 8192,
        maxHeaderCount: Int = 100,
        maxBodyBytes: Int = 1 << 20,
        maxRequestTargetBytes: Int = 4096,
        maxMethodBytes: Int = 32,
        maxChunkLineBytes: Int = 1024
    ) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
        self.maxRequestTargetBytes = maxRequestTargetBytes
        self.maxMethodBytes = maxMethodBytes
        self.maxChunkLineBytes = maxChunkLineBytes
    }
}
