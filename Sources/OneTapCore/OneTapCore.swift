// OneTapCore: the pure decisions. Values in, values out: no clock, no randomness, no I/O, no actor, no
// global state (`import OneTap` re-exports it). The vocabulary it shares with every layer (Secret,
// ParseError, ErrorKind, JSONValue, SHA256Digest) comes from OneTapSupport, re-exported here.
@_exported import OneTapSupport
