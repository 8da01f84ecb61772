#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What identifies a version of a file: device, inode, size and modification time. A rename gives a new
/// inode; an in-place rewrite a new size or time.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let seconds: Int
    let nanoseconds: Int

    static let none = FileIdentity(device: 0, inode: 0, size: -1, seconds: 0, nanoseconds: 0)

    init(device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int) {
        self.device = device
        self.inode = inode
        self.size = size
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    init(_ info: stat) {
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        self.init(
            device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino), size: Int64(info.st_size),
            seconds: Int(time.tv_sec), nanoseconds: Int(time.tv_nsec))
    }

    /// Whether the file's time was at least `age` before `now` (the kernel's wall clock): false for a time
    /// at or after `now` (a clock set back), so an unsure answer leads to a fresh look.
    /// - Parameters:
    ///   - now: The kernel's wall clock when the identity was read.
    ///   - age: How old the time must be.
    /// - Returns: Whether it is that old.
    func isSettled(at now: timespec, after age: Duration) -> Bool {
        let elapsed = Duration.seconds(now.tv_sec - seconds) + .nanoseconds(now.tv_nsec - nanoseconds)
        return elapsed >= age
    }
}
