import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Builds the stand-in as a Hummingbird application bound to 127.0.0.1 (only), for the executable
/// (`runService()`) and for `Standin` (in process). `onServerRunning` gets the bound port, which is
/// how port 0 (any free port) is learnt.
///
/// Throws `StandinError.notLoopback` for any other host: refusing here, before anything binds, is
/// what keeps a stand-in from ever listening on a network (SYN-11).
public func buildStandinApplication(
    configuration: StandinConfiguration,
    backend: StandinBackend,
    port: Int,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    guard configuration.host == StandinConfiguration.loopbackHost else {
        throw StandinError(
            .notLoopback, "edge-standin binds \(StandinConfiguration.loopbackHost) only, not \(configuration.host)",
            context: ["host": configuration.host])
    }
    guard (0...65535).contains(port) else {
        throw StandinError(.invalidPort, "Port \(port) is not 0 to 65535", context: ["port": String(port)])
    }
    var logger = Logger(label: "edge-standin")
    logger.logLevel = configuration.logLevel
    let injector = backend.faults
    let journal = backend.journal
    return Application(
        responder: StandinResponder(backend: backend),
        server: .http1(configuration: HTTP1Channel.Configuration(
            additionalChannelHandlers: [FaultChannelHandler(injector: injector, journal: journal)])),
        configuration: ApplicationConfiguration(
            address: .hostname(StandinConfiguration.loopbackHost, port: port), serverName: "edge-standin"),
        onServerRunning: { channel in
            await onServerRunning(channel.localAddress?.port ?? port)
        },
        logger: logger)
}
