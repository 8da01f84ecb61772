#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// SplitMix64 (Steele, Lea and Flood 2014; the reference `splitmix64.c`): a small seeded generator, so
/// that what is random in tests, simulations, generated traffic and benchmarks is the same on every run
/// and a failure can be replayed from its seed. Never for ids, codes or keys: those come from the system
/// CSPRNG (`SystemRandom` in `OneTap`).
///
/// Seed 0's first output is `0xE220A8397B1DCDAF`, the reference implementation's.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator at a seed.
    /// - Parameter seed: The seed; the same seed gives the same sequence.
    package init(seed: UInt64) { state = seed }

    /// The next 64 bits.
    /// - Returns: The next output of the reference sequence.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniformly chosen element (by the remainder: a bias too small to matter for test inputs).
    /// - Parameter elements: A non-empty collection.
    /// - Returns: One of its elements.
    package mutating func pick<C: Collection>(_ elements: C) -> C.Element where C.Index == Int {
        elements[elements.startIndex + Int(next() % UInt64(elements.count))]
    }

    /// True with probability `percent` / 100.
    /// - Parameter percent: 0 to 100.
    /// - Returns: Whether the draw fell under it.
    package mutating func chance(_ percent: UInt64) -> Bool { next() % 100 < percent }

    /// Uniform in [0, 1), from the top 53 bits.
    /// - Returns: The draw.
    package mutating func uniform() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }

    /// True with the given probability.
    /// - Parameter probability: 0 to 1.
    /// - Returns: Whether the draw fell under it.
    package mutating func chance(probability: Double) -> Bool { uniform() < probability }

    /// An element chosen by weight (the weights need not sum to 1).
    /// - Parameter weighted: Weights and values; not empty.
    /// - Returns: The chosen value.
    package mutating func pick<T>(weighted: [(Double, T)]) -> T {
        let total = weighted.reduce(0) { $0 + $1.0 }
        var draw = uniform() * total
        for (weight, value) in weighted {
            if draw < weight { return value }
            draw -= weight
        }
        return weighted[weighted.count - 1].1
    }

    /// An exponential draw.
    /// - Parameter mean: The mean.
    /// - Returns: -mean · ln(1 - U).
    package mutating func exponential(mean: Double) -> Double { -mean * log(1 - uniform()) }

    /// A log-normal draw: exp(ln median + sigma · N(0, 1)), N by Box–Muller.
    /// - Parameters:
    ///   - median: The median.
    ///   - sigma: The spread of the logarithm.
    /// - Returns: The draw.
    package mutating func logNormal(median: Double, sigma: Double) -> Double {
        let normal = (-2 * log(1 - uniform())).squareRoot() * cos(2 * Double.pi * uniform())
        return median * exp(sigma * normal)
    }
}
