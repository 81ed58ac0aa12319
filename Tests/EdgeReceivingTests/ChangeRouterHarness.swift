import EdgeAgent
import EdgeReceiving
import EdgeSync
import Testing

/// The station's router with the dock's routes, and one pull through it as `edge sync run` pulls.
enum ChangeRouterHarness {
    static func router(_ dock: ReceivingDock) -> ChangeRouter {
        let router = ChangeRouter()
        ReceivingRoutes.register(on: router, dock: dock)
        return router
    }

    static func pull(_ fixture: DockFixture, router: ChangeRouter) async throws -> PullReport {
        let sync = try #require(fixture.configuration.sync)
        let transport = try #require(fixture.parts.transport)
        let identity = try #require(fixture.parts.identity)
        let tokens = try #require(fixture.parts.tokens)
        return try await StationParts.pull(outbox: fixture.outbox, transport: transport, tokens: tokens, settings: sync, identity: identity, router: router)
    }
}
