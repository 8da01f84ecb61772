/// Why a guest's data could not be merged into an account: data of a shape its kind's rule cannot read,
/// a guest that merged into another account already, or a merge another login holds. New kinds may be
/// added; match kinds with a `default` case.
public struct MergeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Whose data does not have the shape its kind's rule reads.
    package enum Side: String, Hashable, Sendable, CustomStringConvertible {
        /// The guest's.
        case guest
        /// The account's.
        case account

        /// `guest` or `account`.
        package var description: String { rawValue }
    }

    /// What went wrong.
    public let kind: ErrorKind<MergeError>
    /// An explanation naming the guest, or the side and the data kind at fault (never a value of the data).
    public let message: String

    /// Creates a merge error.
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - message: An explanation.
    package init(_ kind: ErrorKind<MergeError>, message: String) {
        self.kind = kind
        self.message = message
    }

    /// Data of a kind whose rule cannot read it.
    /// - Parameters:
    ///   - kind: The data kind (`history`).
    ///   - side: Whose data.
    ///   - message: What is wrong with it.
    package init(kind: String, side: Side, _ message: String) {
        self.init(.unreadable, message: "the \(side)'s \(kind): \(message)")
    }

    /// `unreadable: the guest's history: entry 2 is not …`, `busy: another login is merging guest …`.
    public var description: String { "\(kind): \(message)" }
}

extension ErrorKind where Failure == MergeError {
    /// A guest's or an account's data does not have the shape its kind's rule reads; nothing changed.
    public static let unreadable = Self("unreadable")
    /// The guest's data merged into another account already (a guest merges once).
    public static let mergedElsewhere = Self("merged-elsewhere")
    /// Another login held the merge for longer than two leases.
    public static let busy = Self("busy")
}
