import Testing

/// The PostgreSQL store a `PostgresStores` factory made (each hands out its protocol), for the checks only
/// the store's own type shows: its schema, its settings, its description.
/// - Parameters:
///   - store: What the factory returned.
///   - type: The store type it must be.
/// - Returns: The store as that type.
/// - Throws: When the factory made something else.
func concrete<Store>(_ store: Any, as type: Store.Type) throws -> Store {
    try #require(store as? Store, "the factory made \(Swift.type(of: store)), not \(Store.self)")
}
