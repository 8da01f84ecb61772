/// The server's keys by id: the first signs what the server issues now (access tokens, refresh-token
/// digests), and every key in the ring is still accepted when checking what was issued before.
///
/// Rotating, in three deploys: (1) add the new key *after* the current one on every instance (each can
/// then verify what the other signs); (2) once every instance has it, put it first (it signs from now on);
/// (3) once everything the old key signed has expired (2 hours for access tokens, 30 days for refresh
/// tokens), remove the old key, and what it signed stops verifying. Putting a new key first on one
/// instance before every instance has it makes the others refuse what that instance signs. Keys come from the environment (`ONETAP_SERVER_KEYS`) or a file, never from source:
///
/// ```
/// # newest first: this one signs
/// 2026-12:q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq80=
/// 2026-06:3q2+7wEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJo=
/// ```
///
/// A secret: its description lists the key ids only.
public struct ServerKeyRing: Sendable, CustomStringConvertible, CustomReflectable {
    /// The keys, the signing key first.
    package let entries: [(id: KeyID, key: ServerKey)]

    /// Creates a ring.
    /// - Parameter keys: The keys by id, the signing key first; at least one, each id once.
    /// - Throws: ``ParseError`` with subject `server keys`: `empty` for no key, `malformed` for an id given twice.
    package init(_ keys: [(id: KeyID, key: ServerKey)]) throws(ParseError) {
        guard !keys.isEmpty else { throw ParseError(.serverKeys, .empty, input: "<redacted>", reason: "a key ring has at least one key") }
        var seen: Set<KeyID> = []
        for (id, _) in keys where !seen.insert(id).inserted {
            throw ParseError(.serverKeys, .malformed, input: "<redacted>", reason: "the key id \(id) is given twice")
        }
        entries = keys
    }

    /// A ring of one key, named `default` (the package's tests and single-key tools).
    package init(single key: ServerKey) {
        entries = [(KeyID(unchecked: "default"), key)]
    }

    /// Reads a ring from text: one `id:base64` entry per line (or separated by commas), the signing key
    /// first; blank lines and lines starting with `#` are skipped.
    /// - Parameter text: The text of `ONETAP_SERVER_KEYS` or of a key file.
    /// - Throws: ``ParseError`` with subject `server keys` (`empty`, `malformed`, naming the entry by its
    ///   number and the key id, never the key or a character of it).
    /// - Complexity: O(*n*) in the text's length.
    public init(parsing text: Secret) throws(ParseError) {
        var keys: [(id: KeyID, key: ServerKey)] = []
        var number = 0
        for line in text.reveal().split(whereSeparator: { $0.isNewline || $0 == "," }) {
            let entry = String(line).trimmingASCIIWhitespace()
            if entry.isEmpty || entry.hasPrefix("#") { continue }
            number += 1
            guard let colon = entry.firstIndex(of: ":") else {
                throw ParseError(.serverKeys, .malformed, input: "<redacted>", reason: "entry \(number) has no ':' between its id and its key (write id:base64)")
            }
            // An entry written the wrong way round would put the key where the id goes: the id's error
            // never quotes what it read.
            let id: KeyID
            do {
                id = try KeyID(String(entry[..<colon]).trimmingASCIIWhitespace())
            } catch {
                throw ParseError(.serverKeys, error.kind, input: "<redacted>", reason: "entry \(number)'s id is not 1 to 16 of A-Z, a-z, 0-9, _ and - (write id:base64)")
            }
            let key: ServerKey
            do {
                key = try ServerKey(base64: Secret(String(entry[entry.index(after: colon)...]).trimmingASCIIWhitespace()))
            } catch {
                throw ParseError(.serverKeys, error.kind, input: "<redacted>", reason: "the key \(id) (entry \(number)): \(error.reason)")
            }
            keys.append((id, key))
        }
        try self.init(keys)
    }

    /// The id of the key that signs.
    package var signingID: KeyID { entries[0].id }

    /// The key that signs.
    package var signing: ServerKey { entries[0].key }

    /// The ids of every key, the signing key first.
    package var ids: [KeyID] { entries.map(\.id) }

    /// The key with an id, if the ring has it.
    /// - Parameter id: The key id.
    /// - Returns: The key, or nil when the ring has no such key (retired, or never ours).
    /// - Complexity: O(*k*) in the number of keys (a handful).
    package func key(_ id: KeyID) -> ServerKey? {
        entries.first(where: { $0.id == id })?.key
    }

    /// The key with an id given as bytes of a token, if the ring has it (no allocation).
    /// - Parameter id: The id's bytes, as the token carries them.
    /// - Returns: The key and its id, or nil when the ring has no such key.
    /// - Complexity: O(*k*) in the number of keys (a handful).
    package func key(utf8 id: UnsafeBufferPointer<UInt8>) -> (id: KeyID, key: ServerKey)? {
        for entry in entries {
            let text = entry.id.text.utf8
            if text.withContiguousStorageIfAvailable({ $0.elementsEqual(id) }) ?? text.elementsEqual(id) { return (entry.id, entry.key) }
        }
        return nil
    }

    /// `ServerKeyRing(signing 2026-12; also 2026-06)`: the ids, never a key.
    public var description: String {
        "ServerKeyRing(signing \(signingID)\(entries.count > 1 ? "; also " + entries.dropFirst().map(\.id.text).joined(separator: ", ") : ""))"
    }

    /// A mirror with no children.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
