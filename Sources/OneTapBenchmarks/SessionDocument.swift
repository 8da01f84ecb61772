import Foundation
import OneTap

/// The reference for the session JSON round trip: the same document (`onetap-session/2`, as
/// `LoginSession.json()` writes it) through `Codable`, `JSONEncoder` and `JSONDecoder`, into a mirror of
/// its members typed with the library's own `Codable` values (ids, flows, codes, steps parsed as they
/// are read). `LoginSession` itself has no `Codable` form; this one is the benchmark's own.
struct SessionDocument: Codable {
    struct Plan: Codable {
        let carrier: Carrier
        let evidence: EvidenceSource
        let flows: FlowSequence
        let reason: RoutingReason
        let condition: String
    }

    struct Step: Codable {
        let flow: LoginFlow
        let attempt: Int
        let code: String
        let detail: String?
        let action: OutcomeAction
        let meaning: String
        let next: Decision.Step
    }

    struct Alert: Codable {
        let flow: LoginFlow
        let code, meaning: String
    }

    struct Unknown: Codable {
        let flow: LoginFlow
        let token: SHA256Digest
        let atMs: Int64
    }

    struct Verified: Codable {
        let phoneNumber: PhoneNumber
        let account: AccountID?
    }

    struct Pending: Codable {
        let key, action: String
        let payload: JSONValue?
        let createdAtMs, expiresAtMs: Int64
    }

    let format: String
    let id: LoginSessionID
    let version: Int
    let plan: Plan
    let stage: String
    let flow: LoginFlow?
    let attempt: Int?
    let token: SHA256Digest?
    let receivedAtMs: Int64?
    let ending: Decision.Ending?
    let trace: [Step]
    let alerts: [Alert]
    let createdAtMs, expiresAtMs: Int64
    let exchangedTokens: [SHA256Digest]
    let unknownExchanges: [Unknown]
    let verified: Verified?
    let pending: Pending?
    let platform: Platform?
}
