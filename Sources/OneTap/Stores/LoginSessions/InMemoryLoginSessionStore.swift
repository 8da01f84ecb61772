/// Login sessions in this process's memory: the default, and the model the conformance suite checks
/// other stores against. Thread-safe; every operation is atomic. Its operations are its table's
/// (``InMemoryVersionedRecords``).
package final class InMemoryLoginSessionStore: LoginSessionStore, InMemoryVersionedStore {
    /// The sessions.
    package let table = InMemoryVersionedRecords<LoginSession>()

    /// Creates an empty store.
    package init() {}
}
