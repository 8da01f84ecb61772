import OneTapSupport

/// A fixed-size output buffer over a ``CommandIO``: commands append bytes, the buffer writes them out in
/// large blocks. Memory stays bounded whatever the output size.
final class OutputBuffer {
    private let io: any CommandIO
    private let storage: UnsafeMutableRawBufferPointer
    private var used = 0
    /// Whether a write to the output failed; later writes are dropped.
    private(set) var failed = false

    /// Creates a buffer.
    /// - Parameters:
    ///   - io: Where the bytes go.
    ///   - capacity: The block size.
    init(io: any CommandIO, capacity: Int = 256 << 10) {
        self.io = io
        storage = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        storage.deallocate()
    }

    /// Writes everything buffered.
    func flush() {
        guard used > 0 else { return }
        if !failed, !io.writeOutput(UnsafeRawBufferPointer(rebasing: storage[0..<used])) { failed = true }
        used = 0
    }

    /// Makes room for `count` more bytes and returns where to write them; call ``commit(_:)`` after.
    @inline(__always)
    func reserve(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        if used + count > storage.count { flush() }
        if count > storage.count {
            // Larger than a block: cannot happen for the bounded records written through here.
            preconditionFailure("record larger than the output block")
        }
        return (storage.baseAddress! + used).assumingMemoryBound(to: UInt8.self)
    }

    /// Marks `count` reserved bytes as written.
    @inline(__always)
    func commit(_ count: Int) { used += count }

    /// Appends raw bytes of any length.
    func append(_ bytes: UnsafeRawBufferPointer) {
        if bytes.count > storage.count {
            flush()
            if !failed, !io.writeOutput(bytes) { failed = true }
            return
        }
        let target = reserve(bytes.count)
        if let base = bytes.baseAddress { UnsafeMutableRawPointer(target).copyMemory(from: base, byteCount: bytes.count) }
        commit(bytes.count)
    }

    /// Appends a string's UTF-8.
    func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends text output and a line break; a control or format character in it but a tab or a line feed
    /// (from an input file, a stored record, a client's report) is shown as U+FFFD, so no input sends the
    /// terminal an escape sequence.
    func line(_ text: String) {
        append(DisplayText.line(text))
        append("\n")
    }
}
