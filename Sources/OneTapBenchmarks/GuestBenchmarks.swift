import Foundation
import OneTap

/// The login gate against a plain `[String: String]` lookup, and merge plans from 1,000 to 100,000
/// items per kind, to show how the cost grows.
enum GuestBenchmarks {
    static func run(_ options: BenchmarkOptions, _ report: inout Report, repetitions: Int) {
        if options.wants("gate") {
            let gate = LoginGate.builtIn
            let guest = Identity.guest(GuestID.random())
            let actions = ["favourite", "share", "browse", "comment", "place-order", "unlisted-action", "add-to-cart", "feedback"]
            let batch = 1024
            let table = Dictionary(uniqueKeysWithValues: gate.rules.map { ($0.action, $0.needs.rawValue) })
            let (ours, reference) = measurePair(batch: batch, repetitions: repetitions) {
                for index in 0..<batch { blackHole(gate.decide(actions[index & 7], for: guest)) }
            } reference: {
                for index in 0..<batch { blackHole(table[actions[index & 7]] ?? "account") }
            }
            report.add(Suites.row("gate decision", batch, ours, "[String: String] lookup", reference, target: "≤ 50 ns, ≥ 1× the lookup, 0 allocations",
                                  met: ours.median <= 50 && ours.median <= reference.median && (ours.allocations ?? 0) == 0, promisesNoAllocation: true))
        }

        if options.wants("merge") {
            let base = Date(timeIntervalSince1970: 1_796_090_400)
            func data(_ count: Int, _ salt: Int) -> [String: JSONValue] {
                let ids = (0..<count).map { "item-\(($0 * 7 + salt) % (count * 2))" }
                return [
                    "favourites": .array(ids.map(JSONValue.string)),
                    "history": .array(ids.enumerated().map { .object(["item": .string($1), "at": .string(base.addingTimeInterval(Double($0)).iso8601)]) }),
                    "cart": .array(ids.map { .object(["item": .string($0), "qty": .number(3)]) }),
                    "downloads": .array(ids.map(JSONValue.string)),
                    "settings": .object(Dictionary(uniqueKeysWithValues: ids.map { ($0, JSONValue.bool(true)) })),
                    "drafts": .array(ids.map(JSONValue.string)),
                ]
            }
            var perItem: [(Int, Double)] = []
            for count in options.quick ? [1_000, 10_000] : [1_000, 10_000, 100_000] {
                let guest = data(count, 1), account = data(count, 2)
                let runs = max(3, repetitions / (count / 1_000))
                let time = measure(batch: 1, repetitions: runs) { blackHole(try? MergePlan.plan(guest: guest, account: account, rules: .builtIn)) }
                perItem.append((count, time.median / Double(count * 6)))
                if count == 1_000 {
                    report.add(Suites.row("merge plan (1,000 items per kind, 6 kinds)", 1, time, "—", time, target: nil, met: nil))
                }
            }
            // Linear keeps ns per item flat, n log n lets it grow by log n, quadratic by n.
            var growth = Suites.row("merge plan: ns per item, 1k → \(perItem.last!.0 / 1000)k", 1, (perItem.last!.1, perItem.last!.1, nil), "—",
                                    (perItem.last!.1, perItem.last!.1, nil), target: nil, met: nil)
            growth.extra = perItem.map { ("ns_per_item_\($0.0)", format($0.1)) } + [("growth", format(perItem.last!.1 / perItem.first!.1))]
            report.add(growth)
        }
    }
}
