#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`: the lock behind every piece of shared mutable state in
/// OneTap that is not an actor (stores, the channel-health tracker, the test doubles).
///
/// It is a plain POSIX mutex on purpose: ThreadSanitizer understands it, so `swift test
/// --sanitize=thread` checks the code that uses it (the futex-based `Synchronization.Mutex` is invisible
/// to it and reports false races).
package final class LockedValue<Value: Sendable>: @unchecked Sendable {
    /// The value, behind a pointer: `body(&value.pointee)` needs no dynamic exclusivity check (a class's
    /// stored `var` passed `inout` costs one, two runtime calls through thread-local storage, on every
    /// lock); the mutex already makes every access exclusive.
    private let value: UnsafeMutablePointer<Value>
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates a guarded value.
    /// - Parameter value: The initial value.
    package init(_ value: Value) {
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    /// - Parameter body: Reads or changes the value; keep it short and never block in it.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    @inline(__always)
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
