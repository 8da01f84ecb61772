/// Why a merge could not be done. New kinds may be added; match kinds with a `default` case.
public struct GuestMergeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    package typealias Kind = ErrorKind<GuestMergeError>

    /// What went wrong.
    public let kind: ErrorKind<GuestMergeError>
    /// The guest.
    public let guest: GuestID
    /// An explanation.
    public let message: String

    /// `busy for guest …: …`.
    public var description: String { "\(kind) for guest \(guest): \(message)" }
}

extension ErrorKind where Failure == GuestMergeError {
    /// The guest's data merged into another account already (a guest merges once).
    public static let mergedElsewhere = Self("merged-elsewhere")
    /// Another login held the merge for longer than two leases.
    public static let busy = Self("busy")
}
