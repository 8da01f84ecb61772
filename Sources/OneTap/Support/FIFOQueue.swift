/// A first-in, first-out list for the server's bounded memories (``RecentLoginSessions``, the breaker's
/// ``ClientLedger`` and ``SpentClients``) and the PostgreSQL counter gate's lines: appended at the back, taken
/// from the front in O(1) amortized.
///
/// The elements stay in one array after a head index; the array lets go of what lies before the head once that is
/// over 1,024 elements and more than half of it, so the array never holds more than twice the live elements (plus
/// 1,024). An owner whose elements can go stale in place (a key replaced since) drops them with ``keep(where:)``
/// when they pile up.
///
/// - Complexity: ``append(_:)``, ``first`` and ``popFirst()`` are O(1) amortized; ``keep(where:)`` and
///   ``update(_:)`` are O(n).
package struct FIFOQueue<Element: Sendable>: Sendable {
    private var items: [Element] = []
    private var head = 0

    /// An empty queue.
    package init() {}

    /// How many elements the queue holds.
    package var count: Int { items.count - head }

    /// The oldest element, or nil when the queue is empty.
    package var first: Element? { head < items.count ? items[head] : nil }

    /// Adds an element at the back.
    /// - Parameter element: The element.
    package mutating func append(_ element: Element) {
        items.append(element)
    }

    /// Takes the oldest element.
    /// - Returns: The element, or nil when the queue is empty.
    package mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let element = items[head]
        head += 1
        if head > 1_024, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Keeps only the elements `isLive` accepts, in their order.
    /// - Parameter isLive: Whether an element stays.
    package mutating func keep(where isLive: (Element) -> Bool) {
        items = items[head...].filter(isLive)
        head = 0
    }

    /// Changes every element in place.
    /// - Parameter body: The change.
    package mutating func update(_ body: (inout Element) -> Void) {
        for index in head..<items.count { body(&items[index]) }
    }

    /// Empties the queue.
    package mutating func removeAll() {
        items = []
        head = 0
    }
}
