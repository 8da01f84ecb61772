/// The ordered flows of a plan: at most one of each flow, so at most four, stored inline.
///
/// A plan is built on every login request; keeping its flows in a fixed-size value instead of an array
/// keeps ``LoginDecisionEngine/plan(for:)`` free of heap allocation.
public struct FlowSequence: RandomAccessCollection, Hashable, Sendable, CustomStringConvertible,
    ExpressibleByArrayLiteral
{
    /// The flows' ``LoginFlow/index`` values, one per byte from the lowest.
    private var packed: UInt32 = 0
    /// How many flows there are: 1 to 4.
    public private(set) var count: Int = 0

    /// Creates a plan's flows: at least one, each at most once, the last one SMS (SMS login is always
    /// the last resort), so at most four.
    /// - Parameter flows: The flows, in the order to try them.
    /// - Throws: ``ParseError`` with subject `flow sequence`: `empty`, or `malformed` for a flow that
    ///   appears twice or a sequence that does not end with `sms`.
    package init(_ flows: some Sequence<LoginFlow>) throws(ParseError) {
        let list = Array(flows)
        if let problem = Self.validate(list) {
            throw ParseError(
                .flowSequence, list.isEmpty ? .empty : .malformed, input: list.map(\.rawValue).joined(separator: ","), reason: problem)
        }
        self.init(unchecked: list)
    }

    /// Creates a sequence from a literal written in code: `[.mobile, .sms]`.
    /// - Parameter elements: The flows, following the rules of ``init(_:)``.
    /// - Precondition: The literal follows those rules (a literal is the programmer's, not input: build
    ///   sequences from input with ``init(_:)``, which throws).
    public init(arrayLiteral elements: LoginFlow...) {
        if let problem = Self.validate(elements) { preconditionFailure("[\(elements.map(\.rawValue).joined(separator: ", "))]: \(problem)") }
        self.init(unchecked: elements)
    }

    /// Creates a sequence from flows ``validate(_:)`` accepted.
    package init(unchecked flows: [LoginFlow]) {
        for flow in flows { append(flow) }
    }

    /// Why a list of flows cannot be a plan's flows, or nil when it can: it must be non-empty, name each
    /// flow at most once, and end with SMS.
    /// - Parameter flows: The flows.
    /// - Returns: A message, or nil.
    package static func validate(_ flows: [LoginFlow]) -> String? {
        if flows.isEmpty { return "no flows; a plan ends with sms" }
        if Set(flows).count != flows.count { return "a flow appears twice" }
        if flows.last != .sms { return "the last flow must be sms (SMS login is always the last resort)" }
        return nil
    }

    private mutating func append(_ flow: LoginFlow) {
        packed |= UInt32(flow.index) << (8 * UInt32(count))
        count += 1
    }

    /// The first position, 0.
    public var startIndex: Int { 0 }
    /// One past the last position: the number of flows.
    public var endIndex: Int { count }

    /// The flow at a position.
    /// - Parameter position: From ``startIndex`` up to, not including, ``endIndex``; any other traps, as an array's
    ///   subscript does (a programming error, never input: positions come from the sequence's own indices).
    public subscript(position: Int) -> LoginFlow {
        precondition(position >= 0 && position < count, "index out of range")
        switch (packed >> (8 * UInt32(position))) & 0xFF {
        case 0: return .mobile
        case 1: return .tianyi
        case 2: return .unicom
        default: return .sms
        }
    }

    /// Whether the sequence holds a flow.
    /// - Parameter flow: The flow.
    /// - Returns: True when present.
    /// - Complexity: O(1).
    package func contains(_ flow: LoginFlow) -> Bool {
        firstIndex(of: flow) != nil
    }

    /// The position of a flow.
    /// - Parameter flow: The flow.
    /// - Returns: Its position, or nil.
    package func firstIndex(of flow: LoginFlow) -> Int? {
        for position in 0..<count where self[position] == flow { return position }
        return nil
    }

    /// `mobile → sms`.
    public var description: String { map(\.rawValue).joined(separator: " → ") }
}
