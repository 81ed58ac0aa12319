import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Serves `GET /metrics` in the Prometheus text format (AGT-7) on loopback or a unix socket,
/// with Hummingbird like every HTTP server of the project.
struct MetricsServer: Service {
    let address: MetricsAddress
    let metrics: AgentMetrics
    let logger: Logger
    /// Told the address actually bound (port 0 picks one), once listening.
    let state: AgentState

    func run() async throws {
        let router = Router()
        let metrics = self.metrics
        router.get("/metrics") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.render())))
        }
        let bindAddress: BindAddress
        switch address {
        case .tcp(let host, let port): bindAddress = .hostname(host, port: port)
        case .unix(let path): bindAddress = .unixDomainSocket(path: path)
        }
        let state = self.state
        let address = self.address
        let app = Application(router: router, configuration: ApplicationConfiguration(address: bindAddress, serverName: nil),
                              onServerRunning: { channel in
                                  switch address {
                                  case .tcp(let host, _):
                                      let port = channel.localAddress?.port ?? 0
                                      state.update { $0.metricsAddress = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
                                  case .unix(let path):
                                      state.update { $0.metricsAddress = "unix:" + path }
                                  }
                              }, logger: logger)
        try await app.run()
    }
}
