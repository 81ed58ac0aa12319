// swift-tools-version:6.0
import PackageDescription

// Decision: library and executable code imports FoundationEssentials, never the full Foundation,
// which loads ICU and costs ~5 ms at every `edge` start (SCN-12 measures the whole process against
// zbarimg's). `edge` is a Linux agent; FoundationEssentials is part of its toolchain.
//
// Decision: module names carry an `Edge` prefix so they never collide with system or package
// module names (there is a `Scanning`/`Imaging` in more than one ecosystem).
//
// Decision: Linux only (Debian); no platform list, no Darwin branches.
let package = Package(
    name: "edge",
    products: [
        .executable(name: "edge", targets: ["edge"]),
        .executable(name: "edge-agent", targets: ["edge-agent"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // SQLite through GRDB (migrations, WAL pools); system libsqlite3.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        // Already in the graph through Hummingbird; named because the stand-in imports them.
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.30.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        // Through HummingbirdHTTP2; the FCM stand-in serves HTTP/2 over TLS with it.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The agent's /metrics (AGT-7): swift-metrics' API over a Prometheus registry per agent.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.1.0"),
        // The kiosk's pages (UI-1): logic-less templates, escaped by default, rendered on the server.
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.0.0"),
        // Already in the graph through Hummingbird; the FCM path's HTTP/2 client
        // (EdgeFCMTransport/FCMTransport.swift says why libcurl 7.88 cannot be used there).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.30.0"),
        // Already in the graph (Hummingbird, AsyncHTTPClient); FCM's sends go through NIOHTTP2's
        // frames directly (EdgeFCMTransport/HTTP2StreamRouter.swift says why).
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.36.0"),
    ],
    targets: [
        // C libraries, one folder each: module map + shim.h.
        // Headers only: libzbar itself is loaded with dlopen when the first scanner is made (EdgeScanning/ZbarLibrary.swift).
        .systemLibrary(name: "CZbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CLibCrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CTSS", providers: [.apt(["libtss2-dev"])]),
        // Headers only: libcurl itself is loaded with dlopen on first use (EdgeHTTP/CurlLibrary.swift).
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CV4L2", pkgConfig: "libv4l2", providers: [.apt(["libv4l-dev"])]),
        // glibc's malloc statistics (part of libc: no package, nothing to link).
        .systemLibrary(name: "CMalloc"),

        // The commit this binary was built from: a weak default that packaging/build-deb replaces
        // at link time (EdgeCore/BuildInfo.swift says why).
        .target(name: "CEdgeBuildInfo"),

        // Library modules by capability. EdgeCore holds only what every module shares.
        .target(name: "EdgeCore", dependencies: ["CEdgeBuildInfo"]),
        .target(name: "EdgeImaging", dependencies: ["CPNG", "CTurboJPEG", "EdgeCore"]),
        .target(name: "EdgeScanning", dependencies: ["CZbar", "EdgeCore", "EdgeImaging", "EdgePayloads"]),
        .target(name: "EdgePayloads", dependencies: ["EdgeCore"]),
        // V4L2 capture through libv4l2 (HW-1..4): the ioctl seam, sessions, hot-plug supervision.
        .target(name: "EdgeCapture", dependencies: ["CV4L2", "EdgeCore", "EdgeImaging"]),
        .target(name: "EdgeCrypto", dependencies: ["CLibCrypto", "EdgeCore"]),
        .target(name: "EdgeTPM", dependencies: ["CTSS", "EdgeCore", "EdgeCrypto"]),
        .target(name: "EdgeVault", dependencies: ["EdgeCore", "EdgeCrypto", "EdgeTPM"]),
        .target(name: "EdgeStore", dependencies: ["EdgeCore", .product(name: "GRDB", package: "GRDB.swift"),
                                                  .product(name: "GRDBSQLite", package: "GRDB.swift")]),
        // The backend contract (SYN-10) as Swift values: shared by the agent and the stand-in.
        .target(name: "EdgeContract"),
        // HTTP(S) over libcurl (SYN-5): the one transport, shared by the sync core and the FCM client.
        .target(name: "EdgeHTTP", dependencies: ["CCurl", "EdgeCore"]),
        // Sender and pull: the sync core's moving parts (SYN-6..9).
        .target(name: "EdgeSync", dependencies: ["EdgeCore", "EdgeHTTP", "EdgeStore", "EdgeContract",
                                                 .product(name: "GRDB", package: "GRDB.swift"),
                                                 .product(name: "Logging", package: "swift-log")]),
        // The FCM HTTP v1 client (PSH-7..9): messages, OAuth2 service-account tokens, error taxonomy.
        .target(name: "EdgeFCM", dependencies: ["EdgeCore", "EdgeCrypto", "EdgeHTTP", "EdgeContract"]),
        // The FCM path's HTTP/2 transport over AsyncHTTPClient (FCMTransport says why not libcurl).
        // A module of its own so the parsers' fuzz build does not compile NIO and BoringSSL.
        .target(name: "EdgeFCMTransport", dependencies: ["EdgeHTTP",
                                                         .product(name: "AsyncHTTPClient", package: "async-http-client"),
                                                         .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                                                         .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOTLS", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                                                         .product(name: "NIOHTTP2", package: "swift-nio-http2"), .product(name: "NIOHPACK", package: "swift-nio-http2")]),
        // The push relay (PSH-2..11): zones from tzdata, quiet hours, digests, badges, its store, the sender and its loop.
        .target(name: "EdgePush", dependencies: ["EdgeCore", "EdgeStore", "EdgeContract", "EdgeFCM", "EdgeHTTP",
                                                 .product(name: "GRDB", package: "GRDB.swift")]),
        // The station (AGT-1..8): configuration, buildAgent and the services it composes.
        .target(name: "EdgeAgent", dependencies: ["CMalloc", "EdgeCore", "EdgeImaging", "EdgeScanning", "EdgePayloads", "EdgeCapture", "EdgeCrypto",
                                                  "EdgeVault", "EdgeStore", "EdgeHTTP", "EdgeSync", "EdgeContract", "EdgePush", "EdgeFCM", "EdgeFCMTransport",
                                                  .product(name: "GRDB", package: "GRDB.swift"),
                                                  .product(name: "Logging", package: "swift-log"),
                                                  .product(name: "Metrics", package: "swift-metrics"),
                                                  .product(name: "Prometheus", package: "swift-prometheus"),
                                                  .product(name: "Hummingbird", package: "hummingbird"),
                                                  .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                  .product(name: "UnixSignals", package: "swift-service-lifecycle")]),
        // The clinic station (ENR-4..15): enrollments, their state machine and store, portal
        // validation, tokens in the vault, revocation, Study Start, re-enrollment.
        .target(name: "EdgeEnrollment", dependencies: ["EdgeCore", "EdgePayloads", "EdgeCrypto", "EdgeVault", "EdgeStore", "EdgeHTTP",
                                                       "EdgeSync", "EdgeContract", "EdgeAgent", "EdgeScanning", "EdgeImaging",
                                                       .product(name: "GRDB", package: "GRDB.swift"),
                                                       .product(name: "Logging", package: "swift-log"),
                                                       .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]),
        // The receiving dock (RCV-1..7): PO lookup and its offline cache, GRN drafts and
        // confirmation, photo evidence, conflicts, vendor / material / product cards.
        .target(name: "EdgeReceiving", dependencies: ["EdgeCore", "EdgePayloads", "EdgeImaging", "EdgeCapture", "EdgeCrypto", "EdgeStore",
                                                      "EdgeHTTP", "EdgeSync", "EdgeContract", "EdgeAgent",
                                                      .product(name: "GRDB", package: "GRDB.swift"),
                                                      .product(name: "Logging", package: "swift-log"),
                                                      .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]),
        // The kiosk (UI-1..8): the local web UI and its JSON API, served by the agent; templates,
        // script and style embedded in the binary (no CDN, no files to install beside it).
        .target(name: "EdgeKiosk", dependencies: ["EdgeCore", "EdgeAgent", "EdgeEnrollment", "EdgeReceiving", "EdgePayloads", "EdgeImaging",
                                                  "EdgeStore", "EdgeSync", "EdgeContract", "EdgeVault", "EdgeCrypto",
                                                  .product(name: "Hummingbird", package: "hummingbird"),
                                                  .product(name: "HummingbirdCore", package: "hummingbird"),
                                                  .product(name: "HummingbirdTLS", package: "hummingbird"),
                                                  .product(name: "Mustache", package: "swift-mustache"),
                                                  .product(name: "NIOSSL", package: "swift-nio-ssl"),
                                                  .product(name: "GRDB", package: "GRDB.swift"),
                                                  .product(name: "Logging", package: "swift-log"),
                                                  .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
                resources: [.embedInCode("Assets/kiosk.js"), .embedInCode("Assets/kiosk.css"), .embedInCode("Assets/layout.mustache"),
                            .embedInCode("Assets/dock.mustache"), .embedInCode("Assets/clinic.mustache"), .embedInCode("Assets/status.mustache"),
                            .embedInCode("Assets/login.mustache"), .embedInCode("Assets/dock-lookup.mustache"),
                            .embedInCode("Assets/camera-item.mustache"), .embedInCode("Assets/scan-row.mustache"),
                            .embedInCode("Assets/enrollment-card.mustache"), .embedInCode("Assets/history-step.mustache"),
                            .embedInCode("Assets/status-camera.mustache"), .embedInCode("Assets/status-part.mustache"),
                            .embedInCode("Assets/status-wait.mustache")]),
        // The whole station by its role (issue #27): buildStation chooses the capabilities and
        // gives them to buildAgent's one service group. `edge run` and the tests call it.
        .target(name: "EdgeStation", dependencies: ["EdgeCore", "EdgeAgent", "EdgeEnrollment", "EdgeReceiving", "EdgeKiosk"]),
        .target(name: "EdgeStandin", dependencies: ["EdgeCore", "EdgeContract", "EdgeCrypto",
                                                    .product(name: "Hummingbird", package: "hummingbird"),
                                                    .product(name: "HummingbirdCore", package: "hummingbird"),
                                                    .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                                                    .product(name: "NIOSSL", package: "swift-nio-ssl"),
                                                    .product(name: "NIOCore", package: "swift-nio"),
                                                    .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                                                    .product(name: "HTTPTypes", package: "swift-http-types"),
                                                    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                    .product(name: "Logging", package: "swift-log")]),
        .executableTarget(name: "edge-standin", dependencies: ["EdgeStandin", .product(name: "ArgumentParser", package: "swift-argument-parser")]),

        // What both executables print and how `edge scan --image` runs: terminal output, scan
        // records, the request's values. No ArgumentParser, capture, store or server in it.
        .target(name: "EdgeCommandLine", dependencies: ["EdgeCore", "EdgeImaging", "EdgeScanning", "EdgePayloads"]),

        // The two executables (issue #32 item 3, SCN-12): `edge`, a front that decodes still
        // images itself and execs edge-agent for everything else (EdgeFront.swift says when), and
        // `edge-agent`, the whole command line and the station. `edge scan` once per file pays at
        // start only for what it runs.
        //
        // How they are linked (Benchmarks/start-cost.py measures it):
        // - --no-export-dynamic: the Swift toolchain exports every symbol of a static-runtime
        //   executable (46,000 in edge-agent) for dladdr, and the runtime's start-up dladdr then
        //   scans them all (1.6 M instructions of each process). Nothing resolves symbols in them;
        //   crash backtraces read the symbol table or DWARF, and a station has no swift-backtrace.
        // - lld with -z pack-relative-relocs (DT_RELR, glibc >= 2.36): the relative relocations
        //   are applied from a bitmap instead of a table (edge-agent: 150,000 of them, a 28 KB
        //   bitmap instead of 3.5 MB, 0.6 M instructions and ~40 page faults).
        // - `edge` only: libstdc++ (the static Swift runtime's) linked in. Loading and relocating
        //   the shared one cost 2.0 M of the front's 12.9 M instructions on linking-code.png.
        //   The Swift driver adds `-lstdc++` itself, after every package flag, and lld prefers a
        //   shared library to an archive it has not loaded yet; so Sources/edge/link holds a
        //   linker script named libstdc++.so, searched before the compiler's directory, that
        //   points `-lstdc++` at libstdc++.a (the GCC runtime library exception allows this). A
        //   build with the shared Swift runtime (debug) gets the shared libstdc++ through
        //   libswiftCore.so as before: the front's own code refers to no C++ symbol.
        // Not done: -no-pie, which would save edge-agent ~1.3 M instructions and ~360 page faults
        // more; it loses ASLR for the agent that serves the kiosk and holds the vault's secrets.
        .executableTarget(name: "edge", dependencies: ["EdgeCommandLine", "EdgeCore", "EdgeImaging", "EdgeScanning", "EdgePayloads"],
                          exclude: ["link"],
                          linkerSettings: [.unsafeFlags(["-use-ld=lld", "-L", Context.packageDirectory + "/Sources/edge/link",
                                                         "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"])]),
        .executableTarget(name: "edge-agent", dependencies: [
            "EdgeCommandLine", "EdgeImaging", "EdgeScanning", "EdgePayloads", "EdgeVault", "EdgeCrypto", "EdgeStore", "EdgeHTTP", "EdgeSync",
            "EdgeContract", "EdgeCapture", "EdgePush", "EdgeFCM", "EdgeAgent", "EdgeEnrollment", "EdgeReceiving", "EdgeKiosk", "EdgeStation",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], linkerSettings: [.unsafeFlags(["-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"])]),

        // In-process benchmark driver (Benchmarks/run.py runs it beside zbarimg and zxing-cpp).
        .executableTarget(name: "edge-bench", dependencies: ["EdgeCore", "EdgeImaging", "EdgeScanning", "EdgeVault", "EdgeCrypto", "EdgeTPM",
                                                           "EdgeStore", "EdgeHTTP", "EdgeSync", "EdgePush", "EdgeFCM", "EdgeFCMTransport",
                                                           .product(name: "GRDB", package: "GRDB.swift")],
                          path: "Benchmarks/edge-bench"),
        // libFuzzer targets for every parser of untrusted input; Tests/Fuzz/run builds this with
        // -sanitize=fuzzer,address in its own scratch path (the ordinary build only replays files).
        .executableTarget(name: "edge-fuzz", dependencies: ["EdgeContract", "EdgeCore", "EdgeCrypto", "EdgeFCM", "EdgeHTTP", "EdgeImaging",
                                                           "EdgePayloads", "EdgePush", "EdgeScanning", "EdgeSync", "EdgeVault"],
                          path: "Tests/Fuzz/edge-fuzz"),

        .testTarget(name: "EdgeImagingTests", dependencies: ["EdgeImaging", "EdgeTestSupport"]),
        .testTarget(name: "EdgeScanningTests", dependencies: ["EdgeScanning", "EdgeImaging", "EdgeTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "EdgePayloadsTests", dependencies: ["EdgePayloads", "EdgeTestSupport"]),
        .testTarget(name: "EdgeCryptoTests", dependencies: ["EdgeCrypto", "EdgeTestSupport"]),
        // A swtpm process per test case, shared by the TPM and vault tests; the vivid driver for
        // the camera tests in the VM; the openssl tool for the RSA and FCM tests.
        // ... and `TestStation`, the station the agent, receiving, enrollment and kiosk tests share.
        .target(name: "EdgeTestSupport", dependencies: ["EdgeAgent", "EdgeCore", "EdgeCrypto", "EdgeStandin", "EdgeStation", "EdgeVault",
                                                        .product(name: "Logging", package: "swift-log")],
                path: "Tests/EdgeTestSupport"),
        .testTarget(name: "EdgeTPMTests", dependencies: ["EdgeTPM", "EdgeCrypto", "EdgeTestSupport"]),
        .testTarget(name: "EdgeVaultTests", dependencies: ["EdgeVault", "EdgeCrypto", "EdgeTPM", "EdgeTestSupport"]),
        .testTarget(name: "EdgeCoreTests", dependencies: ["EdgeCore", "EdgeTestSupport"]),
        .testTarget(name: "EdgeStoreTests", dependencies: ["EdgeStore", "EdgeCore", "EdgePush", "EdgeTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        // Real servers on 127.0.0.1: Servers/test_server.py (python3 stdlib) and nghttpd for HTTP/2.
        .testTarget(name: "EdgeHTTPTests", dependencies: ["EdgeHTTP", "EdgeTestSupport"], exclude: ["Servers"]),
        .testTarget(name: "EdgeSyncTests", dependencies: ["EdgeSync", "EdgeHTTP", "EdgeCore", "EdgeStore", "EdgeContract", "EdgeStandin",
                                                          .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "EdgePushTests", dependencies: ["EdgePush", "EdgeStore", "EdgeContract", "EdgeTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        // The FCM client and the relay's sender against the FCM stand-in (one harness for both).
        .testTarget(name: "EdgeFCMTests", dependencies: ["EdgeFCM", "EdgeFCMTransport", "EdgeTestSupport", "EdgeCrypto", "EdgePush", "EdgeStore", "EdgeHTTP",
                                                         "EdgeStandin", "EdgeContract", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "EdgeCLITests", dependencies: ["edge", "edge-agent", "edge-standin", "EdgeCommandLine", "EdgeTestSupport"]),
        .testTarget(name: "EdgeContractTests", dependencies: ["EdgeContract"]),
        // The station's schema and export with every capability's section (StationSchema).
        .testTarget(name: "EdgeStationTests", dependencies: ["EdgeStation", "EdgeAgent", "EdgeCore", "EdgeCrypto", "EdgeStore", "EdgeEnrollment",
                                                             "EdgeReceiving", "EdgePush", "EdgeStandin", "EdgeVault",
                                                             "EdgeTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "EdgeStandinTests", dependencies: ["EdgeStandin", "EdgeContract"]),
        // Host tests use a scripted VideoDriver; device tests run when EDGE_TEST_CAMERA names a
        // node (the vivid VM, .ci/vivid-vm).
        // The whole agent through buildAgent against the stand-in on 127.0.0.1, frames replayed from images.
        .testTarget(name: "EdgeAgentTests", dependencies: ["EdgeAgent", "EdgeCore", "EdgeCrypto", "EdgeStandin", "EdgeTestSupport", "EdgeStore", "EdgeSync", "EdgeContract",
                                                           "EdgeImaging", "EdgeCapture", "EdgeVault", "EdgePush",
                                                           .product(name: "GRDB", package: "GRDB.swift"),
                                                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                           .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "EdgeCaptureTests", dependencies: ["EdgeCore", "EdgeCapture", "EdgeImaging", "EdgeScanning", "EdgeTestSupport"]),
        // Enrollment and receiving over real HTTP to the stand-in on 127.0.0.1 (swtpm for the TPM cases).
        .testTarget(name: "EdgeEnrollmentTests", dependencies: ["EdgeEnrollment", "EdgeAgent", "EdgeStation", "EdgeCore", "EdgeCrypto", "EdgeVault", "EdgeStore",
                                                                "EdgeSync", "EdgeHTTP", "EdgeContract", "EdgePayloads", "EdgeStandin", "EdgeTestSupport",
                                                                .product(name: "GRDB", package: "GRDB.swift"),
                                                                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                                .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "EdgeReceivingTests", dependencies: ["EdgeReceiving", "EdgeAgent", "EdgeStation", "EdgeCore", "EdgeCrypto", "EdgeStore", "EdgeSync",
                                                               "EdgeHTTP", "EdgeContract", "EdgePayloads", "EdgeImaging", "EdgeCapture", "EdgePush",
                                                               "EdgeStandin", "EdgeTestSupport",
                                                               .product(name: "GRDB", package: "GRDB.swift"),
                                                               .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                               .product(name: "Logging", package: "swift-log")]),
        // The kiosk's HTTP surface in process (CSRF, CSP, SSE resume, the API against models/kiosk-api.openapi.json);
        // the browser tests (Tests/Browser, Playwright + Debian's chromium) drive `edge run` itself.
        .testTarget(name: "EdgeKioskTests", dependencies: ["EdgeKiosk", "EdgeAgent", "EdgeStation", "EdgeCore", "EdgeStandin", "EdgeTestSupport", "EdgeEnrollment",
                                                           "EdgeReceiving", "EdgeStore", "EdgeContract", "EdgeImaging",
                                                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                           .product(name: "Logging", package: "swift-log")]),
    ],
    swiftLanguageModes: [.v6]
)

// Concrete generic types (Set<BarcodeFormat>, [String: Action]) get their metadata from accessor
// functions that pass the conformances, not from mangled names the runtime resolves: a mangled
// name's requirements (BarcodeFormat: Hashable) are looked up by scanning every conformance record
// in the binary, about 0.45 M instructions each the first time, 14 of them in one `edge scan`
// (30% of its instructions; issue #32 item 3). The cost is a little more code.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])]
}
