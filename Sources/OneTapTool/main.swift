// The `onetap` executable. Everything lives in OneTapCLI, where it can be tested.
import OneTapCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

exit(await OneTapCommandLine.main())
