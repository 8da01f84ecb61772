// The one place OneTap names Foundation: FoundationEssentials where the toolchain has it (Linux: dates,
// data, JSON coding, without the rest of Foundation), Foundation elsewhere. Every module of the package
// and every integrator that imports OneTap sees it through this import, as OneTap's public API is
// written in its types (Date, Duration, Data).
#if canImport(FoundationEssentials)
@_exported import FoundationEssentials
#else
@_exported import Foundation
#endif
