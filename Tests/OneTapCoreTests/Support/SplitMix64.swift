/// SplitMix64 (Steele, Lea and Flood 2014; the reference `splitmix64.c`): a small seeded generator, so
/// random tests are the same on every run and a failure can be replayed from its seed.
///
/// Seed 0's first output is `0xE220A8397B1DCDAF`, the reference implementation's.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniformly chosen element.
    mutating func pick<C: Collection>(_ elements: C) -> C.Element where C.Index == Int {
        elements[elements.startIndex + Int(next() % UInt64(elements.count))]
    }

    /// True with probability `percent` / 100.
    mutating func chance(_ percent: UInt64) -> Bool { next() % 100 < percent }
}
